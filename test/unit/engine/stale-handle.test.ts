// Issue 20: `resize` through one handle left other handles on the array with the old shape, and a
// write through one of them put chunks outside the new shape that nothing ever reads. Now every
// layout change makes older handles on the same store stale (STALE_HANDLE), before anything is written.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore, type ZarrStore } from '../../../src/engine/store.ts';
import { V2Array } from '../../../src/engine/v2-array.ts';
import { isFloeError } from '../../../src/errors.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { abortedSignal } from '../../support/abort.ts';
import { refusal } from '../../support/error-code.ts';
import { storeKeys } from '../../support/store-keys.ts';

const chunkKeys = async (store: ZarrStore) => (await storeKeys(store)).filter((k) => k.startsWith('a/c/'));

async function twoHandles(store: ZarrStore): Promise<[ZarrArray, ZarrArray]> {
  const created = await ZarrArray.create(store, '/a', { shape: [8], chunkShape: [2], dataType: 'int32', fillValue: 0 });
  await created.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
  return [await ZarrArray.open(store, '/a'), await ZarrArray.open(store, '/a')];
}

describe('a handle made stale by a resize through another', () => {
  it('refuses set, setAttributes and resize with STALE_HANDLE and writes no chunk outside the new shape', async () => {
    const store = new StorageStore(new MemoryStorage());
    const [first, second] = await twoHandles(store);
    const shrunk = await first.resize([4]);
    expect(await chunkKeys(store)).toEqual(['a/c/0', 'a/c/1']);

    const err = await refusal(() => second.set([7], 99));
    expect(err.code).toBe('STALE_HANDLE');
    expect(isFloeError(err, 'STALE_HANDLE') && err.details).toEqual({ handleShape: [8], storedShape: [4] });
    expect(err.message).toMatch(/open the array again/);
    expect(await chunkKeys(store)).toEqual(['a/c/0', 'a/c/1']); // before the fix: a/c/3 appeared

    for (const run of [() => second.set([0], 9), () => second.setAttributes({ note: 'stale' }), () => second.resize([6])]) {
      expect((await refusal(run)).code).toBe('STALE_HANDLE');
    }
    expect((await ZarrArray.open(store, '/a')).shape).toEqual([4]); // setAttributes did not write [8] back
    expect((await refusal(() => first.set([0], 9))).code).toBe('STALE_HANDLE'); // the resized handle's old self too

    await shrunk.set([3], 40);
    const reopened = await ZarrArray.open(store, '/a');
    await reopened.set([0], 10);
    expect(Array.from((await reopened.get()).data as Int32Array)).toEqual([10, 2, 3, 40]);
  });

  it('in a repository session: the commit holds no chunk reference outside the grid', async () => {
    const repo = await Repository.create(Storage.newInMemory());
    const session = await repo.writableSession('main');
    const [first, second] = await twoHandles(session.store);
    await first.resize([4]);
    expect((await refusal(() => second.set([7], 99))).code).toBe('STALE_HANDLE');
    await session.commit('shrink');
    expect((await repo.verify()).outOfGridRefs).toEqual([]);
  });

  it('a replacement (create with overwrite) makes older handles stale; the new handle writes', async () => {
    const store = new StorageStore(new MemoryStorage());
    const [old] = await twoHandles(store);
    const replaced = await ZarrArray.create(store, '/a', { shape: [2], chunkShape: [2], dataType: 'int32', fillValue: 0, overwrite: true });
    expect(await refusal(() => old.set([5], 1))).toMatchObject({ code: 'STALE_HANDLE', details: { handleShape: [8], storedShape: [2] } });
    await replaced.set(undefined, Int32Array.of(7, 8));
    expect(await chunkKeys(store)).toEqual(['a/c/0']);
  });

  it('an aborted resize changes nothing and leaves the other handles current', async () => {
    const store = new StorageStore(new MemoryStorage());
    const [first, second] = await twoHandles(store);
    expect((await refusal(() => first.resize([4], { signal: abortedSignal() }))).code).toBe('ABORTED');
    await second.set([7], 80);
    await first.set([6], 70);
    expect(Array.from((await first.get()).data as Int32Array)).toEqual([1, 2, 3, 4, 5, 6, 70, 80]);
  });

  it('Zarr v2: a stale handle is refused the same way, and no chunk lands outside the shape', async () => {
    const store = new StorageStore(new MemoryStorage());
    const created = await V2Array.createAt(store, '/a', { zarrFormat: 2, shape: [8], chunks: [2], dtype: '<i4', compressor: null, fillValue: 0 });
    await created.set(undefined, 1);
    const [first, second] = [await V2Array.openAt(store, '/a'), await V2Array.openAt(store, '/a')];
    const shrunk = await first.resize([4]);
    expect(await refusal(() => second.set([7], 99))).toMatchObject({ code: 'STALE_HANDLE', details: { handleShape: [8], storedShape: [4] } });
    expect((await storeKeys(store)).filter((k) => /^a\/\d$/.test(k))).toEqual(['a/0', 'a/1']);
    await shrunk.set([3], 4);
    expect(Array.from((await (await V2Array.openAt(store, '/a')).get()).data as Int32Array)).toEqual([1, 1, 1, 4]);
  });
});
