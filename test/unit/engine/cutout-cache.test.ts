// Small reads over compressed chunks go through the store's decoded-chunk cache: concurrent
// windows over one chunk share one fetch and decode, one window's abort fails no other, repeated
// windows copy from the cache, a write through the store is never followed by an old chunk, and
// big reads keep nothing.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { openStore } from '../../../src/engine/api.ts';
import { slice } from '../../../src/engine/selection.ts';
import { withFaults } from '../../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../../src/engine/storage/wrap.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';
import { failure } from '../../support/abort.ts';

const N = 256;
const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
const values = Float32Array.from({ length: N * N }, (_, i) => (i % 977) * 0.25);

/**
 * A zstd array of 128x128 chunks over memory, counting chunk GETs; `delayMs` slows each GET
 * (`lateMs`: a GET reads at once and answers that much later, so what it read may be stale).
 */
async function cutoutArray(delayMs = 0, decodedChunkBytes?: number, lateMs = 0) {
  const memory = new MemoryStorage();
  const setup = await ZarrArray.create(new StorageStore(memory), '/a', { shape: [N, N], chunkShape: [128, 128], dataType: 'float32', codecs } as never);
  await setup.set(undefined, values);
  const gets: string[] = [];
  const counted = wrapStorage(memory, async (call, run) => {
    if (call.operation === 'get' && call.key.includes('/c/')) gets.push(call.key);
    const result = await run();
    if (lateMs > 0 && call.operation === 'get') await new Promise((resolve) => setTimeout(resolve, lateMs));
    return result;
  });
  const slow = delayMs > 0 ? withFaults(counted, (call) => (call.operation === 'get' ? { kind: 'delay', ms: delayMs } : undefined)) : counted;
  const store = new StorageStore(slow, decodedChunkBytes === undefined ? {} : { decodedChunkBytes });
  return { array: await ZarrArray.open(store, '/a'), store, gets };
}

const windowOf = (r: number, c: number, h: number, w: number) => {
  const out = new Float32Array(h * w);
  for (let i = 0; i < h; i++) out.set(values.subarray((r + i) * N + c, (r + i) * N + c + w), i * w);
  return Array.from(out);
};
const read = async (array: ZarrArray, r: number, c: number, h = 16, w = 16, signal?: AbortSignal) =>
  Array.from((await array.get([slice(r, r + h), slice(c, c + w)], signal ? { signal } : {})).data as Float32Array);

describe('cutouts through the decoded-chunk cache', () => {
  it('concurrent windows over one chunk fetch and decode it once', async () => {
    const { array, store, gets } = await cutoutArray(20);
    const spots = Array.from({ length: 12 }, (_, i) => [i * 7, 100 - i * 5] as const);
    const got = await Promise.all(spots.map(([r, c]) => read(array, r, c)));
    got.forEach((g, i) => expect(g).toEqual(windowOf(spots[i]![0], spots[i]![1], 16, 16)));
    expect(gets).toEqual(['a/c/0/0']);
    expect(store.decodedChunks!.cache.stats()).toMatchObject({ loads: 1, joined: 11 });
    expect(await read(array, 50, 60)).toEqual(windowOf(50, 60, 16, 16)); // and later ones copy
    expect(gets).toHaveLength(1);
  });

  it("aborting one window fails it alone: the others get their values from the one fetch", async () => {
    const { array, gets } = await cutoutArray(60);
    const controller = new AbortController();
    const aborted = failure(read(array, 3, 3, 16, 16, controller.signal));
    const others = [read(array, 10, 20), read(array, 40, 90, 16, 16, new AbortController().signal)];
    setTimeout(() => controller.abort(), 20);
    const { err } = await aborted;
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(await Promise.all(others)).toEqual([windowOf(10, 20, 16, 16), windowOf(40, 90, 16, 16)]);
    expect(gets).toEqual(['a/c/0/0']);
  });

  it('a window read after a write, an erase or an overwrite through the store sees the new values', async () => {
    const { array, store } = await cutoutArray();
    expect(await read(array, 5, 5)).toEqual(windowOf(5, 5, 16, 16)); // cached now
    await array.set([slice(0, 128), slice(0, 128)], 4); // a whole chunk: written without reading it
    expect(await read(array, 5, 5)).toEqual(Array(256).fill(4));
    await array.set([slice(0, 128), slice(0, 128)], 0); // all fill: the chunk is erased
    expect(await read(array, 5, 5)).toEqual(Array(256).fill(0));
    expect(await read(array, 130, 130)).toEqual(windowOf(130, 130, 16, 16));
    const replaced = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [128, 128], dataType: 'float32', fillValue: 0, codecs, overwrite: true } as never);
    await replaced.set([slice(128, 256), slice(128, 256)], 9);
    expect(await read(replaced, 130, 130)).toEqual(Array(256).fill(9));
  });

  it('a window racing a write never leaves the old chunk behind for later windows', async () => {
    const { array } = await cutoutArray(0, undefined, 30);
    const racing = read(array, 8, 8); // its fetch read the old bytes; the write lands before they arrive
    await array.set([slice(0, 128), slice(0, 128)], 2);
    await racing;
    expect(await read(array, 8, 8)).toEqual(Array(256).fill(2));
  });

  it('the same chunk bytes read under other metadata (zarr.json rewritten) decode anew', async () => {
    const { array, store } = await cutoutArray();
    expect(await read(array, 5, 5)).toEqual(windowOf(5, 5, 16, 16)); // cached, little-endian
    const meta = JSON.parse(new TextDecoder().decode(await store.get('a/zarr.json')));
    const bigEndian = [{ name: 'bytes', configuration: { endian: 'big' } }, codecs[1]];
    await store.set('a/zarr.json', new TextEncoder().encode(JSON.stringify({ ...meta, codecs: bigEndian })));
    const swapped = Buffer.from(Float32Array.from(windowOf(5, 5, 16, 16)).buffer).swap32();
    const expected = Array.from(new Float32Array(swapped.buffer, swapped.byteOffset, 256));
    expect(await read(await ZarrArray.open(store, '/a'), 5, 5)).toEqual(expected);
  });

  it('caches chunks of a 64-bit integer array (a bigint fill value in the cache key)', async () => {
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/i', { shape: [64, 64], chunkShape: [32, 32], dataType: 'int64', fillValue: -(2n ** 63n), codecs } as never);
    await array.set(undefined, BigInt64Array.from({ length: 64 * 64 }, (_, i) => BigInt(i) * 3n));
    for (let pass = 0; pass < 2; pass++) {
      const got = (await array.get([slice(4, 6), slice(40, 42)])).data as BigInt64Array;
      expect(Array.from(got)).toEqual([(4n * 64n + 40n) * 3n, (4n * 64n + 41n) * 3n, (5n * 64n + 40n) * 3n, (5n * 64n + 41n) * 3n]);
    }
    expect(store.decodedChunks!.cache.stats().hits).toBeGreaterThan(0);
  });

  it('a big read keeps nothing; a small one keeps the chunks it cut', async () => {
    const { array, store } = await cutoutArray(0, 4 << 20); // a cache of its own: 512 KiB per chunk at most
    await array.get();
    expect(store.decodedChunks!.cache.stats().entries).toBe(0);
    await read(array, 120, 120); // touches four chunks in part
    expect(store.decodedChunks!.cache.stats().entries).toBe(4);
  });

  it('decodedChunkBytes 0 keeps no cache; a negative budget is INVALID_ARGUMENT', async () => {
    const { array, store, gets } = await cutoutArray(0, 0);
    expect(store.decodedChunks).toBeUndefined();
    expect(await read(array, 1, 1)).toEqual(windowOf(1, 1, 16, 16));
    expect(await read(array, 2, 2)).toEqual(windowOf(2, 2, 16, 16));
    expect(gets).toHaveLength(2);
    let err: unknown;
    try {
      openStore(':memory:', { decodedChunkBytes: -1 });
    } catch (e) {
      err = e;
    }
    expect(isFloeError(err, 'INVALID_ARGUMENT')).toBe(true);
  });
});
