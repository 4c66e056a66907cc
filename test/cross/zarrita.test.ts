// Cross-implementation tests with zarrita.js 0.7.5: arrays Floe writes are read by zarrita, and
// arrays zarrita writes are read by Floe, through one shared store.
//
// Covered both ways: every data type zarrita holds with bytes (both endians), transpose, zstd,
// blosc with each of its six compressors (numcodecs.js: blosclz, lz4, lz4hc, snappy, zlib, zstd)
// and numcodecs.delta (integer types). Floe -> zarrita only: gzip, crc32c, shards, and `string`
// arrays (vlen-utf8: plain, compressed and sharded).
//
// zarrita's known gaps shape the cases (they are its limits, not Floe bugs):
// - it cannot encode gzip, zlib, crc32c or vlen-utf8, nor write shards: those appear only Floe -> zarrita;
// - it does not verify crc32c on read (it strips the 4 bytes), so a checksum cannot be tested here;
// - it ignores `index_location: "start"` (always reads the index as a suffix): shards use "end";
// - `zarr.get` may return data in another memory order (a transposed array keeps F strides): results
//   are compared after laying them out in C order with the returned strides;
// - `zarr.create` without `codecs` writes `"codecs": []`, which the spec (and Floe) refuse: the
//   tests always pass codecs; it cannot JSON-encode a bigint fill value, so 64-bit fills are numbers;
// - it has no float16 on Node 20, reads hex-NaN fill values as integers, and has no complex or r<N>
//   types: those data types and fill values are left out;
// - its delta codec adds and subtracts in the element type, which for floats rounds: delta cases use
//   integer types, where both sides wrap around exactly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import FileSystemStore from '@zarrita/storage/fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import type { ArrayData } from '../../src/format/zarr/data-types.ts';
import { bytesOf, cOrdered } from '../support/zarrita-layout.ts';

type Dtype = 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'float32' | 'float64' | 'bool';
const DTYPES: readonly Dtype[] = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'bool'];
const SHAPE = [5, 7];
const CHUNKS = [2, 3];
const N = 35;

/** Deterministic values that use each type's range (negatives, large magnitudes, NaN for floats). */
function values(dtype: Dtype): ArrayData {
  const f = (i: number): number => (i * 7919) % 251 - 125;
  switch (dtype) {
    case 'int8': return Int8Array.from({ length: N }, (_, i) => f(i));
    case 'int16': return Int16Array.from({ length: N }, (_, i) => f(i) * 257);
    case 'int32': return Int32Array.from({ length: N }, (_, i) => f(i) * 16777259);
    case 'int64': return BigInt64Array.from({ length: N }, (_, i) => BigInt(f(i)) * 73786976294838206n);
    case 'uint8': return Uint8Array.from({ length: N }, (_, i) => f(i) + 125);
    case 'uint16': return Uint16Array.from({ length: N }, (_, i) => (f(i) + 125) * 261);
    case 'uint32': return Uint32Array.from({ length: N }, (_, i) => (f(i) + 125) * 17043521);
    case 'uint64': return BigUint64Array.from({ length: N }, (_, i) => BigInt(f(i) + 125) * 72624976668147841n);
    case 'float32': return Float32Array.from({ length: N }, (_, i) => (i === 3 ? NaN : f(i) / 3));
    case 'float64': return Float64Array.from({ length: N }, (_, i) => (i === 5 ? -Infinity : f(i) * 1e300 / 7));
    case 'bool': return Uint8Array.from({ length: N }, (_, i) => (f(i) > 0 ? 1 : 0));
  }
}

const endian = (dtype: Dtype, e: 'little' | 'big'): CodecMetadata =>
  ['int8', 'uint8', 'bool'].includes(dtype) ? { name: 'bytes' } : { name: 'bytes', configuration: { endian: e } };

const INTEGERS: readonly Dtype[] = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
/** numcodecs' name for an integer type, as zarr-python writes it in the delta configuration. */
const NUMPY_NAME: Partial<Record<Dtype, string>> = { int8: '|i1', int16: '<i2', int32: '<i4', int64: '<i8', uint8: '|u1', uint16: '<u2', uint32: '<u4', uint64: '<u8' };
const numpyName = (d: Dtype): string => NUMPY_NAME[d]!;
const blosc = (cname: string, shuffle: string, typesize: number) => ({ name: 'blosc', configuration: { cname, clevel: 5, shuffle, typesize, blocksize: 0 } });

/** Chains zarrita can decode; `encodable` marks those it can also write; `only` limits the data types. */
const CHAINS: readonly { label: string; encodable: boolean; only?: readonly Dtype[]; codecs: (d: Dtype) => CodecMetadata[] }[] = [
  { label: 'bytes little', encodable: true, codecs: (d) => [endian(d, 'little')] },
  { label: 'bytes big', encodable: true, codecs: (d) => [endian(d, 'big')] },
  { label: 'transpose + bytes', encodable: true, codecs: (d) => [{ name: 'transpose', configuration: { order: [1, 0] } }, endian(d, 'little')] },
  { label: 'zstd', encodable: true, codecs: (d) => [endian(d, 'little'), { name: 'zstd', configuration: { level: 3, checksum: false } }] },
  { label: 'blosc lz4 shuffle', encodable: true, codecs: (d) => [endian(d, 'little'), { name: 'blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 } }] },
  { label: 'blosc zstd bitshuffle', encodable: true, codecs: (d) => [endian(d, 'big'), { name: 'blosc', configuration: { cname: 'zstd', clevel: 3, shuffle: 'bitshuffle', typesize: 8, blocksize: 0 } }] },
  { label: 'blosc blosclz noshuffle', encodable: true, codecs: (d) => [endian(d, 'little'), { name: 'blosc', configuration: { cname: 'blosclz', clevel: 9, shuffle: 'noshuffle', typesize: 1, blocksize: 0 } }] },
  { label: 'blosc lz4hc bitshuffle', encodable: true, codecs: (d) => [endian(d, 'little'), blosc('lz4hc', 'bitshuffle', 4)] },
  { label: 'blosc snappy shuffle', encodable: true, codecs: (d) => [endian(d, 'big'), blosc('snappy', 'shuffle', 2)] },
  { label: 'blosc zlib noshuffle', encodable: true, codecs: (d) => [endian(d, 'little'), blosc('zlib', 'noshuffle', 8)] },
  { label: 'delta', encodable: true, only: INTEGERS, codecs: (d) => [{ name: 'numcodecs.delta', configuration: { dtype: numpyName(d) } }, endian(d, 'little')] },
  { label: 'delta + blosc zstd', encodable: true, only: INTEGERS, codecs: (d) => [{ name: 'numcodecs.delta', configuration: { dtype: numpyName(d) } }, endian(d, 'little'), blosc('zstd', 'shuffle', 8)] },
  { label: 'gzip', encodable: false, codecs: (d) => [endian(d, 'little'), { name: 'gzip', configuration: { level: 6 } }] },
  { label: 'transpose + big + crc32c', encodable: false, codecs: (d) => [{ name: 'transpose', configuration: { order: [1, 0] } }, endian(d, 'big'), { name: 'crc32c' }] },
];

const CASES = DTYPES.flatMap((dtype) => CHAINS.filter((chain) => !chain.only || chain.only.includes(dtype)).map((chain) => ({ dtype, chain })));
const fillFor = (dtype: Dtype): number | bigint | boolean => (dtype === 'bool' ? true : dtype.endsWith('64') && dtype.includes('int') ? 7n : 3);

/** The fill value as one element's bytes, built from the data type's own typed array. */
function fillElement(dtype: Dtype): Uint8Array {
  const one = values(dtype).slice(0, 1) as Exclude<ArrayData, string[]>;
  const fill = fillFor(dtype);
  one[0] = (typeof fill === 'boolean' ? Number(fill) : fill) as never;
  return bytesOf(one);
}

async function floeWrites(store: StorageStore, path: string, dtype: Dtype, codecs: CodecMetadata[], chunkShape = CHUNKS): Promise<ArrayData> {
  const fill = fillFor(dtype);
  const array = await ZarrArray.create(store, path, { shape: SHAPE, chunkShape, dataType: dtype, codecs, fillValue: fill as never });
  const data = values(dtype);
  // Leave row 4 unwritten so zarrita must fill it from fill_value.
  await array.set([slice(0, 4)], data.slice(0, 28) as ArrayData);
  const expected = data.slice() as ArrayData;
  const fillBytes = fillElement(dtype);
  const out = bytesOf(expected);
  for (let i = 28; i < N; i++) out.set(fillBytes, i * fillBytes.length);
  return expected;
}

describe('Floe writes, zarrita reads (through Floe\'s StorageStore)', () => {
  it.each(CASES.map((c) => [c.dtype, c.chain.label, c] as const))('%s with %s', async (_d, _l, { dtype, chain }) => {
    const store = new StorageStore(new MemoryStorage());
    const expected = await floeWrites(store, '/g/a', dtype, chain.codecs(dtype));
    const arr = await zarr.open(zarr.root(store).resolve('/g/a'), { kind: 'array' });
    expect(arr.shape).toEqual(SHAPE);
    const all = await zarr.get(arr);
    expect(cOrdered(all)).toEqual(bytesOf(expected));
    const part = await zarr.get(arr, [zarr.slice(1, 4), zarr.slice(2, 6)]);
    const w = bytesOf(expected).length / N;
    const rows = [1, 2, 3].flatMap((r) => [2, 3, 4, 5].map((c) => r * 7 + c));
    expect(cOrdered(part)).toEqual(Uint8Array.from(rows.flatMap((i) => [...bytesOf(expected).subarray(i * w, (i + 1) * w)])));
  });

  it.each(['int16', 'float64', 'uint64', 'bool'] as const)('sharded %s (index at the end, crc32c index, zstd inner chunks)', async (dtype) => {
    const store = new StorageStore(new MemoryStorage());
    const codecs: CodecMetadata[] = [{
      name: 'sharding_indexed',
      configuration: {
        chunk_shape: [2, 2],
        codecs: [endian(dtype, 'little'), { name: 'zstd', configuration: { level: 1, checksum: false } }],
        index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
        index_location: 'end',
      },
    }];
    const expected = await floeWrites(store, '/s', dtype, codecs, [4, 4]);
    const arr = await zarr.open(zarr.root(store).resolve('/s'), { kind: 'array' });
    expect(cOrdered(await zarr.get(arr))).toEqual(bytesOf(expected));
    // One element: zarrita fetches the index suffix and a single inner chunk by range.
    const one = await zarr.get(arr, [3, 6]);
    expect(dtype === 'bool' ? Number(one) : one).toBe(values(dtype)[3 * 7 + 6]);
  });
});

describe('Floe writes string arrays (vlen-utf8), zarrita reads', () => {
  const TEXT = ['', 'a', 'zarr', 'é', '日本語', '🧊 ice', 'x'.repeat(40)];
  const written = Array.from({ length: 28 }, (_, i) => TEXT[i % TEXT.length]!);
  // Row 4 is never written: zarrita fills it from fill_value.
  const expected = [...written, ...Array<string>(7).fill('fill')];
  const zstd: CodecMetadata = { name: 'zstd', configuration: { level: 1, checksum: false } };
  const shard = (codecs: CodecMetadata[]): CodecMetadata[] => [{
    name: 'sharding_indexed',
    configuration: { chunk_shape: [2, 2], codecs, index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }], index_location: 'end' },
  }];
  it.each([
    ['plain', [{ name: 'vlen-utf8' }], CHUNKS],
    ['gzip', [{ name: 'vlen-utf8' }, { name: 'gzip', configuration: { level: 1 } }], CHUNKS],
    ['blosc zstd', [{ name: 'vlen-utf8' }, blosc('zstd', 'noshuffle', 1)], CHUNKS],
    ['sharded', shard([{ name: 'vlen-utf8' }]), [4, 4]],
    ['sharded, zstd inner chunks', shard([{ name: 'vlen-utf8' }, zstd]), [4, 4]],
  ] as [string, CodecMetadata[], number[]][])('%s', async (_label, codecs, chunkShape) => {
    const store = new StorageStore(new MemoryStorage());
    const floe = await ZarrArray.create(store, '/s', { shape: SHAPE, chunkShape, dataType: 'string', codecs, fillValue: 'fill' });
    await floe.set([slice(0, 4)], written);
    const arr = await zarr.open(zarr.root(store).resolve('/s'), { kind: 'array' });
    expect(arr.dtype).toBe('string');
    const all = await zarr.get(arr);
    expect(all.shape).toEqual(SHAPE);
    expect(all.data).toEqual(expected);
    const part = await zarr.get(arr, [zarr.slice(1, 5), 6]);
    expect(part.data).toEqual([expected[13], expected[20], expected[27], expected[34]]);
  });
});

/** zarrita JSON-encodes the fill value with JSON.stringify, which refuses bigint. */
const zarritaFill = (dtype: Dtype): number | boolean => {
  const f = fillFor(dtype);
  return typeof f === 'bigint' ? Number(f) : f;
};

describe('zarrita writes, Floe reads', () => {
  const encodable = CASES.filter((c) => c.chain.encodable);
  it.each(encodable.map((c) => [c.dtype, c.chain.label, c] as const))('%s with %s', async (_d, _l, { dtype, chain }) => {
    const store = new StorageStore(new MemoryStorage());
    const arr = await zarr.create(zarr.root(store).resolve('/z'), {
      shape: SHAPE, chunkShape: CHUNKS, dtype, codecs: chain.codecs(dtype) as never, fillValue: zarritaFill(dtype) as never,
    });
    const data = values(dtype);
    const head = (data as Exclude<ArrayData, unknown[]>).slice(0, 28);
    const asZarrita = dtype === 'bool' ? new zarr.BoolArray(head.buffer as ArrayBuffer) : head;
    // `as never`: zarrita types the chunk by its dtype literal, which a loop over dtypes cannot name.
    await zarr.set(arr, [zarr.slice(0, 4), null], { data: asZarrita, shape: [4, 7], stride: [7, 1] } as never);
    const floe = await ZarrArray.open(store, '/z');
    expect(floe.dtype).toBe(dtype);
    const got = await floe.get();
    const fillBytes = fillElement(dtype);
    const expected = bytesOf(data).slice();
    for (let i = 28; i < N; i++) expected.set(fillBytes, i * fillBytes.length);
    expect(bytesOf(got.data)).toEqual(expected);
  });
});

describe('a directory store shared with zarrita\'s FileSystemStore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'floe-zarrita-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('zarrita reads what Floe wrote with openStore(dir), sharded and not', async () => {
    const store = openStore(dir);
    const plain = await floeWrites(store, '/plain', 'float32', [endian('float32', 'big'), { name: 'gzip', configuration: { level: 1 } }]);
    const sharded = await floeWrites(store, '/sharded', 'int32', [{
      name: 'sharding_indexed',
      configuration: { chunk_shape: [2, 2], codecs: [endian('int32', 'little')], index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], index_location: 'end' },
    }], [4, 4]);
    const fs = new FileSystemStore(dir);
    const a = await zarr.open(zarr.root(fs).resolve('/plain'), { kind: 'array' });
    expect(cOrdered(await zarr.get(a))).toEqual(bytesOf(plain));
    const b = await zarr.open(zarr.root(fs).resolve('/sharded'), { kind: 'array' });
    expect(cOrdered(await zarr.get(b))).toEqual(bytesOf(sharded));
  });

  it('Floe reads what zarrita wrote with FileSystemStore', async () => {
    const fs = new FileSystemStore(dir);
    const arr = await zarr.create(zarr.root(fs).resolve('/from-zarrita'), { shape: SHAPE, chunkShape: CHUNKS, dtype: 'uint16', fillValue: 9, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] });
    const data = values('uint16') as Uint16Array;
    await zarr.set(arr, null, { data, shape: SHAPE, stride: [7, 1] });
    const floe = await ZarrArray.open(openStore(dir, { readOnly: true }), '/from-zarrita');
    expect(Array.from((await floe.get()).data as Uint16Array)).toEqual(Array.from(data));
  });
});
