// Preloaded (NODE_OPTIONS --import) into every Node process a test starts, by the warning gate
// (test/setup/warning-gate.ts): records each process warning, with its stack, as one JSON line
// in the file FLOE_WARNING_LOG names. The test's own process judges them (support/warning-gate.ts),
// so the rules live in one place and a child needs nothing but this file. Plain JS: children run
// without tsx.
import { appendFileSync } from 'node:fs';

const log = process.env.FLOE_WARNING_LOG;
if (log) {
  Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 40);
  process.on('warning', (warning) => {
    const record = { name: warning.name, message: warning.message, stack: warning.stack ?? '', argv: [`pid ${process.pid}`, ...process.argv.slice(1, 3)].join(' ') };
    try {
      appendFileSync(log, JSON.stringify(record) + '\n');
    } catch {
      // The test process is gone or cleaned up: nobody is left to judge it.
    }
  });
}
