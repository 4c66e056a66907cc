// Damaged stored data and bad caller input: each fails with its error code, names the chunk key,
// and a refused write leaves the array as it was.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
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

async function keys(store: StorageStore): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store.list()) out.push(k);
  return out.sort();
}

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
    await expectFailure(array.set([slice(0, 4)], 2 ** 40), 'INVALID_METADATA');
    await expectFailure(array.get(undefined, { out: new Int32Array(7) }), 'INVALID_ARGUMENT');
    expect(Array.from((await array.get()).data as Int32Array)).toEqual(original);
  });
});
