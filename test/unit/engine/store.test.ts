// StorageStore's batch and partial methods (get_partial_values, set_partial_values, erase_values,
// list_prefix of the Zarr store interface), on the memory and the local directory backends.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsStorage } from '../../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { StorageStore, type StorageStoreOptions } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const BACKENDS: [string, () => ObjectStorage][] = [
  ['memory', () => new MemoryStorage()],
  ['local directory', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'floe-store-'));
    dirs.push(root);
    return new FsStorage({ root, durable: false });
  }],
];

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);
const list = (b: Uint8Array | undefined): number[] | undefined => (b ? Array.from(b) : undefined);

async function collect(keys: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const k of keys) out.push(k);
  return out.sort();
}

describe.each(BACKENDS)('StorageStore on %s storage', (_name, makeStorage) => {
  async function storeWith(entries: Record<string, Uint8Array>, options?: StorageStoreOptions): Promise<StorageStore> {
    const store = new StorageStore(makeStorage(), options);
    for (const [k, v] of Object.entries(entries)) await store.set(k, v);
    return store;
  }

  describe('getPartialValues', () => {
    it('answers whole values, ranges, suffix ranges and missing keys in request order', async () => {
      const store = await storeWith({ 'a/c/0': bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 'a/zarr.json': bytes(42) });
      const got = await store.getPartialValues([
        ['a/c/0', { offset: 2, length: 3 }],
        ['a/c/0', { suffixLength: 4 }],
        ['a/zarr.json', undefined],
        ['a/c/1', { offset: 0, length: 1 }],
        ['a/c/1', { suffixLength: 2 }],
        ['a/c/1', undefined],
        ['a/c/0', { offset: 7 }],
        ['/a/c/0', { offset: 0, length: 2 }],
      ]);
      expect(got.map(list)).toEqual([[2, 3, 4], [6, 7, 8, 9], [42], undefined, undefined, undefined, [7, 8, 9], [0, 1]]);
    });

    it('clamps a suffix longer than the value and a range past its end', async () => {
      const store = await storeWith({ k: bytes(1, 2, 3) });
      const got = await store.getPartialValues([['k', { suffixLength: 10 }], ['k', { offset: 2, length: 10 }], ['k', { offset: 5, length: 1 }]]);
      expect(got.map(list)).toEqual([[1, 2, 3], [3], []]);
    });

    it('answers an empty request list with an empty list', async () => {
      expect(await (await storeWith({})).getPartialValues([])).toEqual([]);
    });
  });

  describe('setPartialValues', () => {
    it('overwrites inside a value, extends it past its end, and applies requests in order', async () => {
      const store = await storeWith({ k: bytes(1, 2, 3, 4), other: bytes(9) });
      await store.setPartialValues([['k', 1, bytes(20, 30)], ['k', 3, bytes(40, 50, 60)], ['k', 5, bytes(66)]]);
      expect(list(await store.get('k'))).toEqual([1, 20, 30, 40, 50, 66]);
      expect(list(await store.get('other'))).toEqual([9]);
    });

    it('creates a missing key, zero-filled before the offset', async () => {
      const store = await storeWith({});
      await store.setPartialValues([['new/key', 2, bytes(7, 8)]]);
      expect(list(await store.get('new/key'))).toEqual([0, 0, 7, 8]);
    });
  });

  describe('eraseValues', () => {
    it('erases the listed keys, ignores missing ones and keeps the rest', async () => {
      const store = await storeWith({ 'a/c/0': bytes(1), 'a/c/1': bytes(2), 'a/zarr.json': bytes(3) });
      await store.eraseValues(['a/c/0', 'a/zarr.json', 'a/c/missing']);
      expect(await collect(store.list())).toEqual(['a/c/1']);
      expect(await store.get('a/c/0')).toBeUndefined();
      await store.eraseValues([]);
      expect(await collect(store.list())).toEqual(['a/c/1']);
    });
  });

  describe('listPrefix', () => {
    const entries = { 'a/zarr.json': bytes(1), 'a/c/0': bytes(2), 'a/c/1': bytes(3), 'ab/zarr.json': bytes(4), 'b/x': bytes(5) };

    it('lists exactly the keys under a prefix', async () => {
      const store = await storeWith(entries);
      expect(await collect(store.listPrefix('a/'))).toEqual(['a/c/0', 'a/c/1', 'a/zarr.json']);
      expect(await collect(store.listPrefix('a/c/'))).toEqual(['a/c/0', 'a/c/1']);
      expect(await collect(store.listPrefix(''))).toEqual(['a/c/0', 'a/c/1', 'a/zarr.json', 'ab/zarr.json', 'b/x']);
      expect(await collect(store.listPrefix('zz/'))).toEqual([]);
    });

    it('lists keys relative to a store prefix, never outside it', async () => {
      const storage = makeStorage();
      const outer = new StorageStore(storage);
      await outer.set('outside/a/c/0', bytes(1));
      const inner = new StorageStore(storage, { prefix: 'root' });
      for (const [k, v] of Object.entries(entries)) await inner.set(k, v);
      expect(await collect(inner.listPrefix('a/'))).toEqual(['a/c/0', 'a/c/1', 'a/zarr.json']);
      expect(await collect(outer.listPrefix('root/b/'))).toEqual(['root/b/x']);
      expect((await collect(inner.list())).length).toBe(5);
    });
  });

  it('refuses partial writes and erases on a read-only store and changes nothing', async () => {
    const storage = makeStorage();
    await new StorageStore(storage).set('k', bytes(1, 2));
    const store = new StorageStore(storage, { readOnly: true });
    for (const attempt of [() => store.setPartialValues([['k', 0, bytes(9)]]), () => store.eraseValues(['k'])]) {
      const caught = await attempt().then(() => undefined, (err: unknown) => err);
      expect(isFloeError(caught, 'READ_ONLY'), String(caught)).toBe(true);
    }
    expect(list(await store.get('k'))).toEqual([1, 2]);
  });
});

describe('StorageStore.getPartialValues concurrency', () => {
  it('keeps the configured number of reads in flight for a long request list', async () => {
    const storage = new MemoryStorage();
    const store = new StorageStore(storage, { concurrency: 5 });
    for (let i = 0; i < 100; i++) await store.set(`c/${i}`, bytes(i));
    let inFlight = 0;
    let peak = 0;
    const get = storage.get.bind(storage);
    storage.get = async (key, range) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return get(key, range);
    };
    const got = await store.getPartialValues(Array.from({ length: 100 }, (_, i) => [`c/${i}`, undefined] as const));
    expect(got.map((b) => b?.[0])).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(peak).toBe(5);
  });

  it('defaults to 8 in flight and refuses a limit that is not a positive integer', async () => {
    const storage = new MemoryStorage();
    let inFlight = 0;
    let peak = 0;
    const get = storage.get.bind(storage);
    storage.get = async (key, range) => {
      peak = Math.max(peak, ++inFlight);
      await Promise.resolve();
      inFlight--;
      return get(key, range);
    };
    await new StorageStore(storage).getPartialValues(Array.from({ length: 30 }, (_, i) => [`c/${i}`, undefined] as const));
    expect(peak).toBe(8);
    for (const concurrency of [0, 2.5, Number.NaN]) {
      expect(() => new StorageStore(storage, { concurrency }), String(concurrency)).toThrow(/concurrency must be a positive integer/);
    }
  });
});
