// Issue 28: the warning gate (test/setup/warning-gate.ts) fails a test in which Floe emits a
// process warning, in the test's process or in a child it starts, and lets listed foreign ones
// through. Shown by running planted.fixture.ts under the gate in a separate vitest (~4 s).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, verdict, WARNING_LOG_ENV } from '../support/warning-gate.ts';

describe('the warning gate', () => {
  it('fails warnings from Floe frames and unlisted foreign ones, allows listed ones', () => {
    const at = (file: string) => `Warning: x\n    at f (${file}:1:1)\n    at g (node:internal/x:1:1)`;
    expect(verdict({ name: 'MaxListenersExceededWarning', message: 'm', stack: at(path.join(ROOT, 'src/engine/abort.ts')) })).toMatch(/^Floe emitted it/);
    expect(verdict({ name: 'W', message: 'm', stack: at(`file://${path.join(ROOT, 'dist/engine/abort.js')}`) })).toMatch(/^Floe emitted it/);
    expect(verdict({ name: 'W', message: 'm', stack: at('/tmp/x/node_modules/floe/dist/index.js') })).toMatch(/^Floe emitted it/);
    expect(verdict({ name: 'W', message: 'm', stack: at('/tmp/x/node_modules/other/index.js') })).toMatch(/not allowed/);
    expect(verdict({ name: 'ExperimentalWarning', message: 'WASI is an experimental feature and might change at any time', stack: at('/x/node_modules/@earthmover/icechunk-wasm32-wasi/icechunk.wasi.cjs') })).toBeNull();
    // A listed warning is still Floe's fault when Floe's code is on its stack.
    expect(verdict({ name: 'ExperimentalWarning', message: 'WASI is an experimental feature', stack: at(path.join(ROOT, 'src/x.ts')) + '\n    at h (/x/icechunk-wasm32-wasi/a.cjs:1:1)' })).toMatch(/^Floe emitted it/);
  });

  it('fails exactly the planted tests of a vitest run, in-process and in a child', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
    delete env[WARNING_LOG_ENV]; // the run sets up its own gate; its warnings are not this test's
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/warning-gate/vitest.config.ts', '--reporter', 'verbose', '--no-color'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = run.stdout + run.stderr;
    expect(run.status).toBe(1);
    expect(output).toMatch(/Tests\s+3 failed \| 1 passed/);
    expect(output).toMatch(/✓ .*clean: no warning, passes/);
    for (const name of ['planted in this process', 'planted in a child process running the built package', 'a foreign warning nobody listed: fails']) expect(output).toMatch(new RegExp(`× .*${name}`));
    expect(output).toMatch(/PlantedWarning: planted by the warning-gate test\n\s+Floe emitted it \(at .*src\/cache\/lru\.ts/);
    expect(output).toMatch(/PlantedWarning: planted by the warning-gate test \[in child: .*\]\n\s+Floe emitted it \(at .*dist\/cache\/lru\.js/);
    expect(output).toMatch(/UnlistedWarning: from somewhere else\n\s+not Floe's/);
  }, 90_000);
});
