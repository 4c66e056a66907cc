import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/build.ts', 'test/setup/ceph.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores on CI: more workers only thrash.
    pool: 'forks',
    maxWorkers: 2,
  },
});
