// floe/testing's harness in CI: Floe against the reference Icechunk (repository histories) and
// against zarrita (plain Zarr v3 arrays), with fixed seeds and bounded runs. A failure prints the
// shrunk case and the replay command.
import { afterAll, describe, expect, it } from 'vitest';
import { icechunkRepositoryAdapter } from '../../src/testing/adapters/icechunk-repository.ts';
import { floeRepositoryAdapter } from '../../src/testing/adapters/floe-repository.ts';
import { SHARED_START, type HistoryOp } from '../../src/testing/arbitraries/repository-history.ts';
import { RepositoryModel, type Expectation } from '../../src/testing/model/repository-model.ts';
import { checkHistory } from '../../src/testing/repository-runner.ts';

const reference = icechunkRepositoryAdapter();
afterAll(() => reference.dispose());

/** The model's expectation for each op of `history` (undefined where it skips the op). */
const expectations = (history: readonly HistoryOp[]): (Expectation | undefined)[] => {
  const model = new RepositoryModel(2);
  return history.map((op) => model.step(op));
};

describe('Floe against the reference Icechunk', () => {
  it('smoke: a racing commit conflicts in both', async () => {
    const history = [
      { op: 'createArray', slot: 0, path: '/a' }, { op: 'writeChunk', slot: 0, node: 0, chunk: 1, value: 7 },
      { op: 'createGroup', slot: 1, path: '/b' }, { op: 'commit', slot: 0 }, { op: 'commit', slot: 1 },
      { op: 'tag', from: 0 }, { op: 'retag', tag: 0 }, { op: 'move', branch: 0, node: 0, to: '/b' },
    ] as const;
    expect(await checkHistory([floeRepositoryAdapter(), reference], history)).toBeUndefined();
  }, 60_000);

  it('racing sessions: one rebases cleanly and commits, then conflicting rebases fail in both', async () => {
    // After SHARED_START: /a (group), /a/c and /b (arrays #0 and #1), s0 and s1 on that commit.
    const history: HistoryOp[] = [
      ...SHARED_START,
      { op: 'writeChunk', slot: 0, node: 0, chunk: 0, value: 1 }, { op: 'writeChunk', slot: 1, node: 0, chunk: 1, value: 2 },
      { op: 'setAttr', slot: 1, node: 2, value: 3 }, { op: 'commit', slot: 0 },
      { op: 'commit', slot: 1 }, { op: 'rebase', slot: 1 }, { op: 'commit', slot: 1 },
      { op: 'open', slot: 0, branch: 0 }, { op: 'open', slot: 1, branch: 0 },
      { op: 'writeChunk', slot: 0, node: 1, chunk: 3, value: 4 }, { op: 'writeChunk', slot: 1, node: 1, chunk: 3, value: 5 },
      { op: 'commit', slot: 0 }, { op: 'rebase', slot: 1 },
      { op: 'open', slot: 0, branch: 0 }, { op: 'open', slot: 1, branch: 0 },
      { op: 'setAttr', slot: 0, node: 2, value: 6 }, { op: 'writeChunk', slot: 1, node: 1, chunk: 0, value: 7 },
      { op: 'commit', slot: 0 }, { op: 'rebase', slot: 1 },
    ];
    // What the model expects, so the history stays the case it claims to be.
    const outcomes = expectations(history).map((e) => e && `${e.action.do}: ${e.error ?? 'ok'}${e.conflicts ? ` ${e.conflicts.map((c) => c.kind).join()}` : ''}`);
    expect(outcomes.slice(SHARED_START.length + 4)).toEqual([
      'commit: conflict', 'rebase: ok', 'commit: ok', 'open: ok', 'open: ok', 'writeChunk: ok', 'writeChunk: ok',
      'commit: ok', 'rebase: conflict ChunkDoubleUpdate', 'open: ok', 'open: ok', 'setAttribute: ok', 'writeChunk: ok',
      'commit: ok', 'rebase: conflict ChunksUpdatedInUpdatedArray',
    ]);
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
    // 20 histories: with races and shared content each holds about twice the commits they used to.
    const result = await runConformance({ against: 'icechunk', runs: 20, seed: 42 });
    expect(result.divergence, result.report).toBeUndefined();
  }, 60_000);
});
