// Damaged stored data and bad caller input: each fails with its error code, names the chunk key,
// and a refused write leaves the array as it was.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError, type ErrorCode, type FloeError } from '../../../src/errors.ts';
import { storeKeys } from '../../support/store-keys.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';

const LE = { name: 'bytes', configuration: { endian: 'little' } };

async function make(codecs: CodecMetadata[], chunkShape = [4]): Promise<{ store: StorageStore; array: ZarrArray }> {
  const store = new StorageStore(new MemoryStorage());
  const array = await ZarrArray.create(store, '/a', { shape: [8], chunkShape, dataType: 'int32', codecs });
  await array.set(undefined, Int32Array.from({ length: 8 }, (_, i) => i + 1));
  return { store, array };
}

async function expectFailure(p: Promise<unknown>, code: ErrorCode, key?: string): Promise<void> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(isFloeError(caught, code), String(caught)).toBe(true);
  if (key) expect((caught as Error).message).toContain(key);
}

async function damage(store: StorageStore, key: string, edit: (b: Uint8Array) => Uint8Array): Promise<void> {
  const bytes = await store.get(key);
  if (!bytes) throw new Error(`no ${key} to damage`);
  await store.set(key, edit(bytes.slice()));
}

describe('damaged chunks', () => {
  it.each<[string, CodecMetadata[]]>([
    ['bytes', [LE]],
    ['gzip', [LE, { name: 'gzip', configuration: { level: 1 } }]],
    ['zstd', [LE, { name: 'zstd', configuration: { level: 1, checksum: false } }]],
    ['blosc', [LE, { name: 'blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 } }]],
  ])('a truncated %s chunk is CORRUPT_OBJECT naming the key', async (_label, codecs) => {
    const { store, array } = await make(codecs);
    await damage(store, 'a/c/1', (b) => b.subarray(0, b.length - 3));
    await expectFailure(array.get([slice(4, 8)]), 'CORRUPT_OBJECT', 'a/c/1');
    // The undamaged chunk still reads.
    expect(Array.from((await array.get([slice(0, 4)])).data as Int32Array)).toEqual([1, 2, 3, 4]);
  });

  it('garbage in a gzip chunk is CORRUPT_OBJECT naming the key', async () => {
    const { store, array } = await make([LE, { name: 'gzip', configuration: { level: 1 } }]);
    await damage(store, 'a/c/0', (b) => b.map((x, i) => (i > 10 ? x ^ 0x5a : x)));
    await expectFailure(array.get(), 'CORRUPT_OBJECT', 'a/c/0');
  });

  it('a flipped bit under crc32c is CHECKSUM_MISMATCH naming the key', async () => {
    const { store, array } = await make([LE, { name: 'crc32c' }]);
    await damage(store, 'a/c/1', (b) => ((b[2]! ^= 0x01), b));
    await expectFailure(array.get([5]), 'CHECKSUM_MISMATCH', 'a/c/1');
  });

  it('a partial write over a corrupt chunk fails and does not replace it', async () => {
    const { store, array } = await make([LE, { name: 'crc32c' }]);
    await damage(store, 'a/c/1', (b) => ((b[0]! ^= 0xff), b));
    const before = await store.get('a/c/1');
    await expectFailure(array.set([5], 9), 'CHECKSUM_MISMATCH', 'a/c/1');
    expect(await store.get('a/c/1')).toEqual(before);
  });
});

describe('damaged shards', () => {
  const sharded = (location: 'start' | 'end'): CodecMetadata[] => [{
    name: 'sharding_indexed',
    configuration: { chunk_shape: [2], codecs: [LE], index_codecs: [LE], index_location: location },
  }];
  /** Index entry `i` of a shard with 2 inner chunks, 16 bytes per entry. */
  const entryAt = (b: Uint8Array, location: 'start' | 'end', i: number): number => (location === 'start' ? 0 : b.length - 32) + i * 16;

  it.each(['start', 'end'] as const)('an index (at the %s) pointing outside the shard is CORRUPT_OBJECT naming the key', async (location) => {
    const { store, array } = await make(sharded(location));
    await damage(store, 'a/c/1', (b) => {
      new DataView(b.buffer, b.byteOffset).setBigUint64(entryAt(b, location, 1), 1000n, true);
      return b;
    });
    // Both read paths: one inner chunk by range, and the whole shard at once.
    await expectFailure(array.get([7]), 'CORRUPT_OBJECT', 'a/c/1');
    await expectFailure(array.get(), 'CORRUPT_OBJECT', 'a/c/1');
  });

  it('a shard shorter than its index is CORRUPT_OBJECT naming the key', async () => {
    const { store, array } = await make(sharded('end'));
    await damage(store, 'a/c/0', (b) => b.subarray(0, 20));
    await expectFailure(array.get(), 'CORRUPT_OBJECT', 'a/c/0');
  });

  it('a bad index checksum is CHECKSUM_MISMATCH naming the key', async () => {
    const codecs: CodecMetadata[] = [{
      name: 'sharding_indexed',
      configuration: { chunk_shape: [2], codecs: [LE], index_codecs: [LE, { name: 'crc32c' }], index_location: 'end' },
    }];
    const { store, array } = await make(codecs);
    await damage(store, 'a/c/0', (b) => ((b[b.length - 10]! ^= 0x10), b));
    await expectFailure(array.get([1]), 'CHECKSUM_MISMATCH', 'a/c/0');
  });
});

const keys = storeKeys;

describe('bad selections and values', () => {
  it.each([[[8]], [[-9]], [[1.5]], [[slice(0, 4, 0)]], [[0, 0]], [['...', '...']], [[slice(0.5, 2)]], [['x']]])(
    'refuses selection %j with INVALID_SELECTION, for reads and writes', async (selection) => {
      const { store, array } = await make([LE]);
      const before = await keys(store);
      await expectFailure(array.get(selection as never), 'INVALID_SELECTION');
      await expectFailure(array.set(selection as never, 0), 'INVALID_SELECTION');
      expect(await keys(store)).toEqual(before);
    },
  );

  it('refuses values of the wrong size or kind and writes nothing', async () => {
    const { array } = await make([LE], [2]);
    const original = Array.from((await array.get()).data as Int32Array);
    await expectFailure(array.set([slice(0, 5)], new Int32Array(4)), 'INVALID_SELECTION');
    await expectFailure(array.set([slice(0, 5)], new Int32Array(6)), 'INVALID_SELECTION');
    await expectFailure(array.set([slice(0, 4)], { data: new Int32Array(4), shape: [2, 2], stride: [2, 1] }), 'INVALID_SELECTION');
    await expectFailure(array.set([slice(0, 4)], new Float32Array(4)), 'INVALID_ARGUMENT');
    await expectFailure(array.set([slice(0, 4)], 2 ** 40), 'INVALID_ARGUMENT');
    await expectFailure(array.get(undefined, { out: new Int32Array(7) }), 'INVALID_ARGUMENT');
    expect(Array.from((await array.get()).data as Int32Array)).toEqual(original);
  });
});

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(p: Promise<unknown>): Promise<FloeError> {
  const caught = await p.then(() => undefined, (err: unknown) => err);
  expect(isFloeError(caught), String(caught)).toBe(true);
  return caught as FloeError;
}

function arrayDocument(codecs: unknown[]): string {
  return JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [4], data_type: 'int32',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [2] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs,
  });
}

describe('errors say where', () => {
  it('an unknown codec at open names the array\'s zarr.json', async () => {
    const store = new StorageStore(new MemoryStorage());
    await store.set('grp/arr/zarr.json', new TextEncoder().encode(arrayDocument([LE, { name: 'no-such-codec' }])));
    const err = await rejection(ZarrArray.open(store, '/grp/arr'));
    expect(err.code).toBe('UNSUPPORTED');
    expect(err.where).toBe('grp/arr/zarr.json: codecs');
    expect(err.message).toContain('"no-such-codec"');
  });

  it('an unknown codec inside a shard names the sharding codec\'s configuration', async () => {
    const store = new StorageStore(new MemoryStorage());
    const sharding = { name: 'sharding_indexed', configuration: { chunk_shape: [1], codecs: [LE, { name: 'lzma' }], index_codecs: [LE] } };
    await store.set('s/zarr.json', new TextEncoder().encode(arrayDocument([sharding])));
    const err = await rejection(ZarrArray.open(store, '/s'));
    expect(err.code).toBe('UNSUPPORTED');
    expect(err.where).toBe('s/zarr.json: codecs[0].configuration');
    expect(err.message).toContain('"lzma"');
  });

  it('a misplaced codec at create names the zarr.json it would have written', async () => {
    const store = new StorageStore(new MemoryStorage());
    const created = ZarrArray.create(store, '/x/y', { shape: [4], chunkShape: [2], dataType: 'int32', codecs: [{ name: 'gzip' }, LE] });
    const err = await rejection(created);
    expect(err.code).toBe('INVALID_METADATA');
    expect(err.where).toBe('x/y/zarr.json: codecs');
    expect(await store.get('x/y/zarr.json')).toBeUndefined();
  });

  it('an out-of-bounds index names the array and the valid range, for reads and writes', async () => {
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/deep/arr', { shape: [3, 8], chunkShape: [2, 2], dataType: 'int32' });
    for (const p of [array.get([0, 8]), array.set([0, 8], 1)]) {
      const err = await rejection(p);
      expect(err.code).toBe('INVALID_SELECTION');
      expect(err.where).toBe('/deep/arr');
      expect(err.message).toContain('dimension 1 of length 8');
      expect(err.message).toContain('-8..7');
    }
    expect((await rejection(array.get([0, 0, 0]))).where).toBe('/deep/arr');
  });

  it('an out-of-range scalar write is INVALID_ARGUMENT about the value, its dtype and the array', async () => {
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/u', { shape: [4], chunkShape: [2], dataType: 'uint8' });
    const err = await rejection(array.set(undefined, 300));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.where).toBe('/u');
    expect(err.message).toContain('cannot write 300 to uint8 array /u');
    expect(err.message).toContain('[0, 255]');
    expect(err.message).not.toContain('fill_value');
    expect((await rejection(array.set(undefined, 'text'))).code).toBe('INVALID_ARGUMENT');
  });

  it('a wrongly typed string element names its index and the array', async () => {
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/names', { shape: [2, 2], chunkShape: [1, 2], dataType: 'string' });
    const err = await rejection(array.set(undefined, ['a', 'b', 'c', 7] as unknown as string[]));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('element [1, 1]');
    expect(err.message).toContain('must be a string, got number 7');
    expect(err.where).toBe('/names');
  });

  it('an NdArray whose strides reach past its data is refused', async () => {
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/n', { shape: [2, 3], chunkShape: [2, 3], dataType: 'int32' });
    const err = await rejection(array.set(undefined, { data: new Int32Array(6), shape: [2, 3], stride: [4, 1] }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('reach elements 0..6');
    expect(await store.get('n/c/0/0')).toBeUndefined();
  });
});
