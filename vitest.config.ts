import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Order matters: temp-dir-check must come after ceph (see its header).
    globalSetup: ['test/setup/build.ts', 'test/setup/ceph.ts', 'test/setup/temp-dir-check.ts'],
    // In each test file's process: a warning Floe causes fails the test (issue 28).
    setupFiles: ['test/setup/warning-gate.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores on CI: more workers only thrash.
    pool: 'forks',
    maxWorkers: 2,
  },
});
