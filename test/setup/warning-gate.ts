// Vitest setupFiles: the warning gate (rules in test/support/warning-gate.ts). In each test
// file's process it listens for process warnings and, through NODE_OPTIONS, preloads a recorder
// into every Node child the tests start (the CLI, race and crash children, npm) which appends
// the child's warnings to a log this file reads. After each test, a warning the gate does not
// allow fails that test; after the file, any that came late fail the file.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { CHILD_PRELOAD, gateReport, parseWarningLog, WARNING_LOG_ENV, type WarningRecord } from '../support/warning-gate.ts';

Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 40);

const log = path.join(tmpdir(), `warnings-${process.pid}-${Date.now()}.jsonl`);
process.env[WARNING_LOG_ENV] = log;
const preload = `--import=${CHILD_PRELOAD}`;
if (!(process.env['NODE_OPTIONS'] ?? '').includes(preload)) process.env['NODE_OPTIONS'] = `${process.env['NODE_OPTIONS'] ?? ''} ${preload}`.trim();

const seen: WarningRecord[] = [];
process.on('warning', (w) => seen.push({ name: w.name, message: w.message, stack: w.stack ?? '' }));

let childLines = 0;
function takeWarnings(): WarningRecord[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    // no child has warned
  }
  const children = parseWarningLog(text).slice(childLines);
  childLines += children.length;
  return [...seen.splice(0), ...children];
}

function check(): void {
  const report = gateReport(takeWarnings());
  if (report) throw new Error(report);
}

afterEach(check);
afterAll(async () => {
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  try {
    check();
  } finally {
    rmSync(log, { force: true });
  }
});
