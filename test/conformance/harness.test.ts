// floe/testing's harness in CI: Floe against the reference Icechunk (repository histories) and
// against zarrita (plain Zarr v3 arrays), with fixed seeds and bounded runs. A failure prints the
// shrunk case and the replay command.
import { afterAll, describe, expect, it } from 'vitest';
import { icechunkRepositoryAdapter } from '../../src/testing/adapters/icechunk-repository.ts';
import { floeRepositoryAdapter } from '../../src/testing/adapters/floe-repository.ts';
import { checkHistory } from '../../src/testing/repository-runner.ts';

const reference = icechunkRepositoryAdapter();
afterAll(() => reference.dispose());

describe('Floe against the reference Icechunk', () => {
  it('smoke: a racing commit conflicts in both', async () => {
    const history = [
      { op: 'createArray', slot: 0, path: '/a' }, { op: 'writeChunk', slot: 0, node: 0, chunk: 1, value: 7 },
      { op: 'createGroup', slot: 1, path: '/b' }, { op: 'commit', slot: 0 }, { op: 'commit', slot: 1 },
      { op: 'tag', from: 0 }, { op: 'retag', tag: 0 }, { op: 'move', branch: 0, node: 0, to: '/b' },
    ] as const;
    expect(await checkHistory([floeRepositoryAdapter(), reference], history)).toBeUndefined();
  }, 60_000);
});

describe('runConformance', () => {
  it('Floe and zarrita agree on generated arrays (fixed seed)', async () => {
    const { runConformance } = await import('../../src/testing/conformance-command.ts');
    const result = await runConformance({ against: 'zarrita', runs: 150, seed: 42 });
    expect(result.divergence, result.report).toBeUndefined();
  }, 60_000);

  it('Floe and the reference Icechunk agree on generated histories (fixed seed)', async () => {
    const { runConformance } = await import('../../src/testing/conformance-command.ts');
    const result = await runConformance({ against: 'icechunk', runs: 30, seed: 42 });
    expect(result.divergence, result.report).toBeUndefined();
  }, 60_000);
});
