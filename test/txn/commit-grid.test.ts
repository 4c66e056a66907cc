// A commit that rewrites an array's manifest drops the chunk refs its current grid cannot reach
// (commit-builder's grid filter): after zarr.json is rewritten smaller (chunks left in place) or
// with another rank, and one chunk written, the committed manifest keeps only the refs inside;
// regrowing the array then shows fill where the dropped chunks were.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice, type Selection } from '../../src/engine/selection.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

const metadataKey = 'a/zarr.json';

/** Rewrites the array's zarr.json with another shape and chunk shape, leaving its chunks alone. */
async function rewriteShape(store: ZarrStore, shape: number[], chunkShape: number[]): Promise<void> {
  const bytes = await store.get(metadataKey);
  if (bytes === undefined) throw new Error(`no ${metadataKey}`);
  const meta = JSON.parse(new TextDecoder().decode(bytes)) as { shape: number[]; chunk_grid: { configuration: { chunk_shape: number[] } } };
  meta.shape = shape;
  meta.chunk_grid.configuration.chunk_shape = chunkShape;
  await store.set(metadataKey, new TextEncoder().encode(JSON.stringify(meta)));
}

async function committedArray() {
  const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()));
  const session = await repo.writableSession('main');
  const a = await ZarrArray.create(session.store, '/a', { shape: [64], chunkShape: [16], dataType: 'int32', fillValue: 0 } as never);
  await a.set(undefined, Int32Array.from({ length: 64 }, (_, i) => i + 1));
  await session.commit('64 values in 4 chunks');
  return repo;
}

/** Commits `change` plus -1 written to one chunk at `firstChunk` (so the manifest is rewritten). */
async function valuesAfterCommit(repo: Repository, change: (store: ZarrStore) => Promise<void>, firstChunk: Selection): Promise<number[]> {
  const shrink = await repo.writableSession('main');
  await change(shrink.store);
  await (await ZarrArray.open(shrink.store, '/a')).set(firstChunk, new Int32Array(16).fill(-1));
  await shrink.commit('metadata rewritten, one chunk written');
  const regrow = await repo.writableSession('main');
  await rewriteShape(regrow.store, [64], [16]);
  return Array.from((await (await ZarrArray.open(regrow.store, '/a')).get()).data as Int32Array);
}

describe('commit: chunk refs outside the grid', () => {
  it('keeps the refs inside a shrunk grid and drops the others', async () => {
    const repo = await committedArray();
    const got = await valuesAfterCommit(repo, (store) => rewriteShape(store, [40], [16]), [slice(0, 16)]);
    // 40 elements of 16-element chunks: chunks 0-2 stay (the third partly inside), chunk 3 goes.
    const expected = Array.from({ length: 64 }, (_, i) => (i < 16 ? -1 : i < 48 ? i + 1 : 0));
    expect(got).toEqual(expected);
  });

  it('drops every ref of the old rank when the rank changes', async () => {
    const repo = await committedArray();
    const got = await valuesAfterCommit(repo, (store) => rewriteShape(store, [4, 16], [1, 16]), [0, slice(0, 16)]);
    // The one ref written at rank 2 ([0, 0]) is no chunk of the regrown 1-D array either.
    expect(got).toEqual(new Array<number>(64).fill(0));
  });
});
