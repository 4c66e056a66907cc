// `floe conformance`: the harness from floe/testing behind a command line.
import { describe, expect, it } from 'vitest';
import { floe, tempDir } from './helpers.ts';

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
});
