// `overwrite: true` replaces a node so that readers see the old node or the new one, never
// neither: the new zarr.json is one put, and what the old node leaves is erased only after it.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { consolidate } from '../../../src/engine/consolidated.ts';
import { ZarrGroup } from '../../../src/engine/group.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { AbortOptions, PutOptions } from '../../../src/engine/storage/types.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { V1Array } from '../../../src/engine/v1-array.ts';
import { V2Array } from '../../../src/engine/v2-array.ts';
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

describe('v2 and v1 create with overwrite', () => {
  const V2_OLD = { zarrFormat: 2, shape: [4], chunks: [2], dtype: '<i2', fillValue: 0, attributes: { old: true } } as const;
  const V2_NEW = { zarrFormat: 2, shape: [6], chunks: [3], dtype: '<i2', fillValue: -1, overwrite: true } as const;

  async function oldV2() {
    const storage = new LoggingStorage();
    const store = new StorageStore(storage);
    await ZarrGroup.create(store, '/', { zarrFormat: 2 });
    const old = await V2Array.createAt(store, '/a', V2_OLD);
    await old.set(undefined, Int16Array.of(1, 2, 3, 4));
    storage.log.length = 0;
    return { storage, store };
  }

  it('v2: a failed .zarray write leaves the old array whole, attributes included', async () => {
    const { storage, store } = await oldV2();
    storage.failPutOf = 'a/.zarray';
    await expect(V2Array.createAt(store, '/a', V2_NEW)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    const a = await V2Array.openAt(store, '/a');
    expect([a.shape, a.attributes]).toEqual([[4], { old: true }]);
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([1, 2, 3, 4]);
    expect(storage.log.filter((op) => op.startsWith('delete'))).toEqual([]);
  });

  it('v2: the new .zarray goes first, then the old chunks and .zattrs; no old chunk reads through the new array', async () => {
    const { storage, store } = await oldV2();
    await V2Array.createAt(store, '/a', { ...V2_NEW, attributes: { fresh: 1 } });
    expect(storage.log[0]).toBe('put a/.zarray');
    expect(storage.log.filter((op) => op.startsWith('delete')).sort()).toEqual(['delete a/.zattrs', 'delete a/0', 'delete a/1']);
    expect(storage.log.at(-1)).toBe('put a/.zattrs');
    const a = await V2Array.openAt(store, '/a');
    expect(a.attributes).toEqual({ fresh: 1 });
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([-1, -1, -1, -1, -1, -1]);
  });

  it('v2: consolidated metadata lists the new node only', async () => {
    const { store } = await oldV2();
    await consolidate(store, '/');
    await V2Array.createAt(store, '/a', V2_NEW);
    const doc = JSON.parse(new TextDecoder().decode(await store.get('.zmetadata'))) as { metadata: Record<string, { shape?: number[] }> };
    expect(doc.metadata['a/.zarray']?.shape).toEqual([6]);
    expect(doc.metadata['a/.zattrs']).toEqual({});
  });

  it('v1: a failed metadata write leaves the old array whole; a good one replaces it without old chunks', async () => {
    const storage = new LoggingStorage();
    const store = new StorageStore(storage);
    const old = await V1Array.create(store, { shape: [4], chunks: [2], dtype: '<i2', compression: 'none', fillValue: 0 });
    await old.set(undefined, Int16Array.of(1, 2, 3, 4));
    storage.failPutOf = 'meta';
    const replacement = { shape: [6], chunks: [3], dtype: '<i2', compression: 'none', fillValue: -1, overwrite: true } as const;
    await expect(V1Array.create(store, replacement)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(Array.from((await (await V1Array.open(store)).get()).data as Int16Array)).toEqual([1, 2, 3, 4]);
    storage.failPutOf = undefined;
    storage.log.length = 0;
    await V1Array.create(store, replacement);
    expect(storage.log[0]).toBe('put meta');
    expect(Array.from((await (await V1Array.open(store)).get()).data as Int16Array)).toEqual([-1, -1, -1, -1, -1, -1]);
  });
});
