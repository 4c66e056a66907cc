// Issue 18 part 3: a commit rewrites only the split manifests whose region has a change; the
// others stay referenced as they were (same id, same extents). Each case checks the manifests
// written and kept against the regions the change touches, and the values read back against a
// plain model of the array.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import {
  arrayMetadata, ARRAY_PATH, chunkKey, compareManifests, createArray, manifestsOf, splitConfig, valuesOf, writeChunk,
} from '../support/split-array.ts';

/** A repository split by `size`, holding a 1-D array of `n` chunks valued 1..n, committed once. */
async function filledArray(shape: number[], size: number) {
  const storage = Storage.fromObjectStorage(new MemoryStorage());
  const repo = await Repository.create(storage, splitConfig(size));
  const session = await repo.writableSession('main');
  await createArray(session.store, shape);
  const model: number[] = [];
  const [rows = 1, cols = 1] = shape.length === 1 ? [1, shape[0] ?? 0] : shape;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const value = r * cols + c + 1;
      await writeChunk(session.store, shape.length === 1 ? [c] : [r, c], value);
      model.push(value);
    }
  }
  await session.commit('all chunks');
  return { storage, repo, model };
}

describe('split manifests reused across commits (issue 18)', () => {
  it('one chunk changed under 4 splits writes 1 manifest and keeps the other 3', async () => {
    const { repo, model } = await filledArray([16], 4);
    const before = await manifestsOf(repo);
    expect(before).toHaveLength(4);
    const session = await repo.writableSession('main');
    await writeChunk(session.store, [5], -5);
    model[5] = -5;
    await session.commit('one chunk');
    const { written, kept, keptUnchanged } = compareManifests(before, await manifestsOf(repo));
    expect(written.map((m) => m.extents)).toEqual([[{ from: 4, to: 8 }]]);
    expect(kept.map((m) => m.extents[0]?.from).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 8, 12]);
    expect(keptUnchanged).toBe(true);
    expect(await valuesOf(repo)).toEqual(model);
  });

  it('one chunk changed under 16 splits (4 x 4 regions) writes 1 manifest and keeps the other 15', async () => {
    const { repo, model } = await filledArray([8, 8], 2);
    const before = await manifestsOf(repo);
    expect(before).toHaveLength(16);
    const session = await repo.writableSession('main');
    await writeChunk(session.store, [3, 5], -1);
    model[3 * 8 + 5] = -1;
    await session.commit('one chunk');
    const { written, kept, keptUnchanged } = compareManifests(before, await manifestsOf(repo));
    expect(written.map((m) => m.extents)).toEqual([[{ from: 2, to: 4 }, { from: 4, to: 6 }]]);
    expect(kept).toHaveLength(15);
    expect(keptUnchanged).toBe(true);
    expect(await valuesOf(repo)).toEqual(model);
  });

  it('extents are the box the chunks span, not the region', async () => {
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), splitConfig(4));
    const session = await repo.writableSession('main');
    await createArray(session.store, [10, 10]);
    for (const index of [[1, 2], [2, 1], [9, 9]]) await writeChunk(session.store, index, 1);
    await session.commit('three chunks');
    const extents = (await manifestsOf(repo)).map((m) => m.extents).sort((a, b) => (a[0]?.from ?? 0) - (b[0]?.from ?? 0));
    expect(extents).toEqual([[{ from: 1, to: 3 }, { from: 1, to: 3 }], [{ from: 9, to: 10 }, { from: 9, to: 10 }]]);
  });

  it('deletes rewrite their region with tight extents, or drop it when emptied', async () => {
    const { repo, model } = await filledArray([16], 4);
    const before = await manifestsOf(repo);
    const trim = await repo.writableSession('main');
    await trim.store.delete(chunkKey([7]));
    model[7] = 0;
    await trim.commit('last chunk of a region deleted');
    const afterTrim = await manifestsOf(repo);
    const trimmed = compareManifests(before, afterTrim);
    expect(trimmed.written.map((m) => m.extents)).toEqual([[{ from: 4, to: 7 }]]);
    expect(trimmed.kept).toHaveLength(3);

    const empty = await repo.writableSession('main');
    for (const i of [12, 13, 14, 15]) {
      await empty.store.delete(chunkKey([i]));
      model[i] = 0;
    }
    await empty.commit('a whole region deleted');
    const emptied = compareManifests(afterTrim, await manifestsOf(repo));
    expect(emptied.written).toEqual([]);
    expect(emptied.kept.map((m) => m.extents[0]?.from).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 4, 8]);
    expect(emptied.keptUnchanged).toBe(true);
    expect(await valuesOf(repo)).toEqual(model);
  });

  it('a shrink rewrites the region the new edge cuts and drops those past it; a grow rewrites nothing', async () => {
    const { repo, model } = await filledArray([16], 4);
    const before = await manifestsOf(repo);
    const shrink = await repo.writableSession('main');
    await shrink.store.set(`${ARRAY_PATH.slice(1)}/zarr.json`, arrayMetadata([10]));
    await shrink.commit('shrunk to 10 chunks');
    const shrunk = await manifestsOf(repo);
    const cut = compareManifests(before, shrunk);
    expect(cut.written.map((m) => m.extents)).toEqual([[{ from: 8, to: 10 }]]);
    expect(cut.kept.map((m) => m.extents[0]?.from).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 4]);
    expect(await valuesOf(repo)).toEqual(model.slice(0, 10));

    const grow = await repo.writableSession('main');
    await grow.store.set(`${ARRAY_PATH.slice(1)}/zarr.json`, arrayMetadata([16]));
    await grow.commit('grown back to 16 chunks');
    const grown = compareManifests(shrunk, await manifestsOf(repo));
    expect(grown.written).toEqual([]);
    expect(grown.kept).toHaveLength(3);
    // The chunks dropped by the shrink stay gone: fill where they were.
    expect(await valuesOf(repo)).toEqual([...model.slice(0, 10), 0, 0, 0, 0, 0, 0]);
  });

  it('a changed split size keeps manifests inside one new region and rewrites those crossing one', async () => {
    const { storage, repo, model } = await filledArray([16], 4);
    const before = await manifestsOf(repo);

    // Split 8: no array change keeps all four; a change in [0, 8) merges its two old manifests.
    const coarse = await Repository.open(storage, splitConfig(8));
    const touchRoot = await coarse.writableSession('main');
    await touchRoot.store.set('zarr.json', new TextEncoder().encode(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: { x: 1 } })));
    await touchRoot.commit('root attributes only');
    expect(compareManifests(before, await manifestsOf(coarse)).written).toEqual([]);
    const change = await coarse.writableSession('main');
    await writeChunk(change.store, [1], -1);
    model[1] = -1;
    await change.commit('one chunk under split 8');
    const merged = await manifestsOf(coarse);
    const coarseDiff = compareManifests(before, merged);
    expect(coarseDiff.written.map((m) => m.extents)).toEqual([[{ from: 0, to: 8 }]]);
    expect(coarseDiff.kept.map((m) => m.extents[0]?.from).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([8, 12]);

    // Split 2: every old manifest crosses a new boundary, so every region is rewritten.
    const fine = await Repository.open(storage, splitConfig(2));
    const again = await fine.writableSession('main');
    await writeChunk(again.store, [0], -2);
    model[0] = -2;
    await again.commit('one chunk under split 2');
    const fineDiff = compareManifests(merged, await manifestsOf(fine));
    expect(fineDiff.kept).toEqual([]);
    expect(fineDiff.written.map((m) => m.extents[0]?.from).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(await valuesOf(fine)).toEqual(model);
  });
});
