// `overwrite: true` replaces a node so that readers see the old node or the new one, never
// neither: the new zarr.json is one put, and what the old node leaves is erased only after it.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { consolidate } from '../../../src/engine/consolidated.ts';
import { ZarrGroup } from '../../../src/engine/group.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { AbortOptions, PutOptions } from '../../../src/engine/storage/types.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { floeError } from '../../../src/errors.ts';
import { memoryRepo } from '../../txn/maintenance/helpers.ts';
import { storeKeys } from '../../support/store-keys.ts';

/** Memory storage that logs puts and deletes, and fails the put of one key on demand. */
class LoggingStorage extends MemoryStorage {
  readonly log: string[] = [];
  failPutOf: string | undefined;

  override async put(key: string, bytes: Uint8Array, options?: PutOptions) {
    if (key === this.failPutOf) throw floeError('STORAGE_ERROR', `injected failure writing ${key}`, { where: key });
    this.log.push(`put ${key}`);
    return super.put(key, bytes, options);
  }

  override async delete(keys: readonly string[], options?: AbortOptions) {
    for (const key of keys) this.log.push(`delete ${key}`);
    return super.delete(keys, options);
  }
}

async function oldArray() {
  const storage = new LoggingStorage();
  const store = new StorageStore(storage);
  await ZarrGroup.create(store, '/');
  const old = await ZarrArray.create(store, '/a', { shape: [4], chunkShape: [2], dataType: 'int16', fillValue: 0 });
  await old.set(undefined, Int16Array.of(1, 2, 3, 4));
  storage.log.length = 0;
  return { storage, store };
}

const NEW = { shape: [6], chunkShape: [3], dataType: 'int16', fillValue: -1, overwrite: true } as const;

describe('ZarrArray.create with overwrite', () => {
  it('leaves the old array whole and readable when the metadata write fails', async () => {
    const { storage, store } = await oldArray();
    storage.failPutOf = 'a/zarr.json';
    await expect(ZarrArray.create(store, '/a', NEW)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    const a = await ZarrArray.open(store, '/a');
    expect(a.shape).toEqual([4]);
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([1, 2, 3, 4]);
    expect(storage.log.filter((op) => op.startsWith('delete'))).toEqual([]);
  });

  it('writes the new metadata before erasing anything; no old chunk reads through the new array', async () => {
    const { storage, store } = await oldArray();
    const a = await ZarrArray.create(store, '/a', NEW);
    expect(storage.log[0]).toBe('put a/zarr.json');
    expect(storage.log.slice(1).sort()).toEqual(['delete a/c/0', 'delete a/c/1']);
    expect(await storeKeys(store)).toEqual(['a/zarr.json', 'zarr.json']);
    // The old chunk keys c/0 and c/1 are also keys of the new grid: they must be fill, not old bytes.
    expect(Array.from((await (await ZarrArray.open(store, '/a')).get()).data as Int16Array)).toEqual([-1, -1, -1, -1, -1, -1]);
    expect(a.chunkShape).toEqual([3]);
  });

  it('replaces a group by an array: its children go after the array is in place', async () => {
    const { storage, store } = await oldArray();
    const g = await ZarrGroup.create(store, '/g');
    await g.createArray('child', { shape: [2], chunkShape: [2], dataType: 'int8' });
    storage.log.length = 0;
    await ZarrArray.create(store, '/g', NEW);
    expect(storage.log[0]).toBe('put g/zarr.json');
    expect(storage.log.slice(1)).toEqual(['delete g/child/zarr.json']);
    expect((await storeKeys(store)).filter((k) => k.startsWith('g/'))).toEqual(['g/zarr.json']);
    expect((await ZarrArray.open(store, '/g')).shape).toEqual([6]);
  });

  it('drops the old node\'s descendants from consolidated metadata in the same write that adds the new node', async () => {
    const { store } = await oldArray();
    const g = await ZarrGroup.create(store, '/g');
    await g.createArray('child', { shape: [2], chunkShape: [2], dataType: 'int8' });
    await consolidate(store, '/');
    await ZarrArray.create(store, '/g', NEW);
    const root = JSON.parse(new TextDecoder().decode(await store.get('zarr.json'))) as { consolidated_metadata: { metadata: Record<string, { node_type: string; shape?: number[] }> } };
    const entries = root.consolidated_metadata.metadata;
    expect(Object.keys(entries).sort()).toEqual(['a', 'g']);
    expect(entries['g']).toMatchObject({ node_type: 'array', shape: [6] });
  });

  it('in a repository session: the committed array is the new one, with no old chunks', async () => {
    const { repo } = await memoryRepo();
    const first = await repo.writableSession('main');
    await ZarrGroup.create(first.store, '/');
    const old = await ZarrArray.create(first.store, '/a', { shape: [4], chunkShape: [2], dataType: 'int16', fillValue: 0 });
    await old.set(undefined, Int16Array.of(1, 2, 3, 4));
    await first.commit('old');
    const second = await repo.writableSession('main');
    await ZarrArray.create(second.store, '/a', NEW);
    const before = await repo.readonlySession({ branch: 'main' }); // not committed yet: still the old array
    expect(Array.from((await (await ZarrArray.open(before.store, '/a')).get()).data as Int16Array)).toEqual([1, 2, 3, 4]);
    await second.commit('new');
    const after = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await (await ZarrArray.open(after.store, '/a')).get()).data as Int16Array)).toEqual([-1, -1, -1, -1, -1, -1]);
  });
});
