// A separate vitest run, started by test/unit/warning-gate.test.ts, of planted.fixture.ts only:
// the warning gate set up as in the real suite, and nothing else (no build, no Ceph).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/warning-gate/planted.fixture.ts'],
    setupFiles: ['test/setup/warning-gate.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
