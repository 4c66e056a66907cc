// Cross-tests with zarrita.js 0.7.5 on Zarr v2: arrays Floe writes are read by zarrita (open.v2)
// with identical values; zarrita writes (zarr.set) into v2 arrays and Floe reads them; zarrita
// opens Floe's consolidated hierarchies (v2 .zmetadata and v3 inline) from the consolidated
// document alone.
//
// zarrita's own limits shape the cases: it has no float16 on Node 20, no complex, datetime or
// record dtypes in v2; it encodes blosc, zstd and delta but not gzip, zlib or vlen-utf8, so those
// appear only Floe -> zarrita; it reads S<n>/U<n> into its own string arrays (compared by value),
// and fills missing S<n> chunks with the fill's base64 text undecoded (so S<n> cases use no fill).
import { describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { createGroup } from '../../src/engine/api.ts';
import { consolidate } from '../../src/engine/consolidated.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array, type V2ArrayInput } from '../../src/engine/v2-array.ts';
import type { ArrayData } from '../../src/format/zarr/data-types.ts';
import type { NumcodecsConfig } from '../../src/format/numpy/numcodecs.ts';
import { bytesOf, cOrdered, cOrderPositions } from '../support/zarrita-layout.ts';

const SHAPE = [5, 7];
const CHUNKS = [2, 3];
const N = 35;
const f = (i: number): number => ((i * 7919) % 251) - 125;

const i2 = (): ArrayData => Int16Array.from({ length: N }, (_, i) => f(i) * 257);
const i4 = (): ArrayData => Int32Array.from({ length: N }, (_, i) => f(i) * 16777259);

/** Typestr -> values that use its range, as Floe's memory form. */
const NUMERIC: Readonly<Record<string, () => ArrayData>> = {
  '|b1': () => Uint8Array.from({ length: N }, (_, i) => (f(i) > 0 ? 1 : 0)),
  '|i1': () => Int8Array.from({ length: N }, (_, i) => f(i)),
  '<i2': i2,
  '>i2': () => Int16Array.from({ length: N }, (_, i) => f(i) * 129),
  '<i4': i4,
  '<i8': () => BigInt64Array.from({ length: N }, (_, i) => BigInt(f(i)) * 73786976294838206n),
  '|u1': () => Uint8Array.from({ length: N }, (_, i) => f(i) + 125),
  '<u4': () => Uint32Array.from({ length: N }, (_, i) => (f(i) + 125) * 17043521),
  '>u8': () => BigUint64Array.from({ length: N }, (_, i) => BigInt(f(i) + 125) * 72624976668147841n),
  '<f4': () => Float32Array.from({ length: N }, (_, i) => (i === 3 ? NaN : f(i) / 3)),
  '>f8': () => Float64Array.from({ length: N }, (_, i) => (i === 5 ? -Infinity : (f(i) * 1e300) / 7)),
};

const blosc = (cname: string, shuffle: number): NumcodecsConfig => ({ id: 'blosc', cname, clevel: 5, shuffle, blocksize: 0 });
/** Compressors zarrita reads; `encodable` marks those it also writes. */
const COMPRESSORS: readonly { label: string; config: NumcodecsConfig | null; encodable: boolean }[] = [
  { label: 'none', config: null, encodable: true },
  { label: 'blosc lz4 shuffle', config: blosc('lz4', 1), encodable: true },
  { label: 'blosc zstd bitshuffle', config: blosc('zstd', 2), encodable: true },
  { label: 'zstd', config: { id: 'zstd', level: 3 }, encodable: true },
  { label: 'zlib', config: { id: 'zlib', level: 1 }, encodable: false },
  { label: 'gzip', config: { id: 'gzip', level: 5 }, encodable: false },
];

interface Case { label: string; input: V2ArrayInput; values: () => ArrayData; encodable: boolean }

const CASES: readonly Case[] = Object.entries(NUMERIC).flatMap(([dtype, values], i) => COMPRESSORS.map((c, j): Case => ({
  label: `${dtype} ${c.label}`,
  values,
  encodable: c.encodable,
  input: {
    zarrFormat: 2, shape: SHAPE, chunks: CHUNKS, dtype, compressor: c.config, fillValue: dtype === '|b1' ? true : 3,
    order: (i + j) % 2 === 0 ? 'C' : 'F', dimensionSeparator: (i + j) % 3 === 0 ? '/' : '.',
  },
}))).concat([
  { label: '<i4 delta + zlib', values: i4, encodable: false, input: { zarrFormat: 2, shape: SHAPE, chunks: CHUNKS, dtype: '<i4', filters: [{ id: 'delta', dtype: '<i4' }], compressor: { id: 'zlib', level: 1 }, fillValue: 0 } },
  { label: '<i2 delta + blosc', values: i2, encodable: true, input: { zarrFormat: 2, shape: SHAPE, chunks: CHUNKS, dtype: '<i2', filters: [{ id: 'delta', dtype: '<i2' }], compressor: blosc('lz4', 1), fillValue: 0, order: 'F' } },
]);

/** zarrita's arrays in C order as Floe's memory bytes. */
async function zarritaReads(store: StorageStore, path: string): Promise<Uint8Array> {
  const arr = await zarr.open.v2(zarr.root(store).resolve(path), { kind: 'array' });
  return cOrdered(await zarr.get(arr));
}

/** Writes rows 0-3 (row 4 stays fill) and returns what the whole array holds then. */
async function floeWrites(store: StorageStore, path: string, c: Case): Promise<Uint8Array> {
  const array = await V2Array.createAt(store, path, c.input);
  const data = c.values();
  await array.set([slice(0, 4)], data.slice(0, 28) as ArrayData);
  return bytesOf((await array.get()).data);
}

describe('Floe writes Zarr v2, zarrita reads', () => {
  it.each(CASES.map((c) => [c.label, c] as const))('%s', async (_l, c) => {
    const store = new StorageStore(new MemoryStorage());
    const expected = await floeWrites(store, '/g/a', c);
    const fill = bytesOf(c.values().slice(0, 1));
    expect(expected.subarray(28 * fill.length)).not.toEqual(bytesOf(c.values()).subarray(28 * fill.length)); // row 4 is fill
    expect(await zarritaReads(store, '/g/a')).toEqual(expected);
  });

  it('strings: U<n>, S<n> and vlen-utf8 object arrays', async () => {
    const store = new StorageStore(new MemoryStorage());
    const words = ['a', 'bé', '', '日本', 'zz'];
    const u = await V2Array.createAt(store, '/u', { zarrFormat: 2, shape: [5], chunks: [2], dtype: '<U2', fillValue: 'x', compressor: blosc('lz4', 1) });
    await u.set(undefined, words);
    const o = await V2Array.createAt(store, '/o', { zarrFormat: 2, shape: [5], chunks: [2], dtype: 'string', fillValue: '', compressor: { id: 'zstd', level: 1 } });
    await o.set(undefined, words);
    // A null fill: zarrita fills missing S<n> chunks with the base64 text itself (a RangeError).
    const s = await V2Array.createAt(store, '/s', { zarrFormat: 2, shape: [3], chunks: [2], dtype: '|S3', compressor: null, fillValue: null });
    await s.set(undefined, Uint8Array.from([97, 98, 99, 100, 0, 0, 0, 0, 0]));
    const strings = async (path: string) => {
      const got = await zarr.get(await zarr.open.v2(zarr.root(store).resolve(path), { kind: 'array' }));
      const data = got.data as unknown as { get(i: number): string } | string[];
      return cOrderPositions(got.shape, got.stride).map((i) => (Array.isArray(data) ? data[i] : data.get(i)));
    };
    expect([await strings('/u'), await strings('/o'), await strings('/s')]).toEqual([words, words, ['abc', 'd', '']]);
  });
});

describe('zarrita writes into Zarr v2 arrays, Floe reads', () => {
  it.each(CASES.filter((c) => c.encodable).map((c) => [c.label, c] as const))('%s', async (_l, c) => {
    const store = new StorageStore(new MemoryStorage());
    const floe = await V2Array.createAt(store, '/a', c.input);
    const arr = await zarr.open.v2(zarr.root(store).resolve('/a'), { kind: 'array' });
    const data = c.values();
    const zdata = c.input.dtype === '|b1' ? new zarr.BoolArray(bytesOf(data).buffer as ArrayBuffer) : data;
    await zarr.set(arr, null, { data: zdata as never, shape: SHAPE, stride: [7, 1] });
    expect(bytesOf((await floe.get()).data)).toEqual(bytesOf(data));
  });
});

describe('zarrita opens Floe\'s consolidated hierarchies from the consolidated document alone', () => {
  const isMetadataKey = (key: string) => /(zarr\.json|\.z(array|group|attrs|metadata))$/.test(key);

  it.each([2, 3] as const)('Zarr v%s', async (zarrFormat) => {
    const store = new StorageStore(new MemoryStorage());
    const root = await createGroup(store, '/', { zarrFormat, attributes: { title: 'root' } });
    const sub = await root.createGroup('sub', { attributes: { level: 1 } });
    const input = zarrFormat === 2
      ? { zarrFormat: 2 as const, shape: [6], chunks: [4], dtype: '<i4', fillValue: 0 }
      : { shape: [6], chunkShape: [4], dataType: 'int32', fillValue: 0 };
    const values = Int32Array.of(5, -1, 7, 0, 2, 9);
    await (await sub.createArray('a', input)).set(undefined, values);
    await consolidate(store, '/');
    const metadataReads: string[] = [];
    const get = store.get.bind(store);
    store.get = (key) => {
      if (isMetadataKey(key)) metadataReads.push(key);
      return get(key);
    };
    const consolidated = await zarr.withConsolidatedMetadata(store, { format: zarrFormat === 2 ? 'v2' : 'v3' });
    expect(consolidated.contents().map((c) => `${c.kind} ${c.path}`).sort()).toEqual(['array /sub/a', 'group /', 'group /sub']);
    const location = zarr.root(consolidated).resolve('/sub/a');
    const arr = zarrFormat === 2 ? await zarr.open.v2(location, { kind: 'array' }) : await zarr.open.v3(location, { kind: 'array' });
    expect([arr.attrs, Array.from((await zarr.get(arr)).data as Int32Array)]).toEqual([{}, Array.from(values)]);
    expect(metadataReads).toEqual([zarrFormat === 2 ? '/.zmetadata' : '/zarr.json']);
  });
});
