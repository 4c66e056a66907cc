// `floe conformance`: the harness from floe/testing behind a command line.
import { afterAll, describe, expect, it } from 'vitest';
import { floe, removeTempDirs, ROOT, spawnFloe, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

describe('floe conformance', () => {
  it('reports agreement with zarrita on a seeded run', async () => {
    const r = await floe(['conformance', '--against', 'zarrita', '--runs', '5', '--seed', '11', '--json'], { cwd: tempDir() });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { agree: boolean; seed: number; runs: number };
    expect(out).toMatchObject({ agree: true, seed: 11, runs: 5 });
  });

  it('refuses an unknown peer with a usage error', async () => {
    const r = await floe(['conformance', '--against', 'zarr-python'], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--against must be one of zarrita, icechunk');
  });

  it('runs against the reference Icechunk from the command line', async () => {
    // Run from the checkout: see the next test for other directories.
    const r = await spawnFloe(['conformance', '--against', 'icechunk', '--runs', '2', '--seed', '42', '--json'], ROOT, 150_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ against: 'icechunk', runs: 2, seed: 42, agree: true, report: 'floe and icechunk agree on 2 generated cases (seed 42)' });
  }, 240_000);

  // The reference's child process loads tsx from Floe's own dependencies, not the working directory.
  it('runs against the reference Icechunk from any directory', async () => {
    const r = await spawnFloe(['conformance', '--against', 'icechunk', '--runs', '1', '--seed', '42', '--json'], tempDir(), 150_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ against: 'icechunk', agree: true });
  }, 240_000);
});
