// vlen-array object arrays at the edges: the element dtype checked when .zarray is read, hostile
// chunks (truncated frames, lengths past the end, element lengths that are no whole number of
// items) refused with CORRUPT_OBJECT, wrongly typed writes refused before anything is written,
// the bytes written laid out as numcodecs lays them (built here by hand, from the format), and the
// JSON and text forms of query results and `floe cat`. Cross-checks with zarr-python live in
// test/cross/zarr-python-vlen-array.test.ts.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { slice } from '../../../src/engine/selection.ts';
import { V2Array } from '../../../src/engine/v2-array.ts';
import { elementList } from '../../../src/cli/format-array.ts';
import { encodeJson } from '../../../src/query/result-encoding.ts';
import { parseDataType, type TypedArray } from '../../../src/format/zarr/data-types.ts';
import { refusal } from '../../support/error-code.ts';

/** numcodecs' framing, from its definition: u32le count, then per element u32le length + bytes. */
function frames(...elements: (readonly number[])[]): Uint8Array {
  const out: number[] = [...u32(elements.length)];
  for (const e of elements) out.push(...u32(e.length), ...e);
  return Uint8Array.from(out);
}
const u32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];

async function vlenArray(dtype: unknown, shape = [2], chunks = [2]): Promise<{ store: StorageStore; array: V2Array }> {
  const store = new StorageStore(new MemoryStorage());
  const doc = { zarr_format: 2, shape, chunks, dtype: '|O', compressor: null, fill_value: null, order: 'C', filters: [{ id: 'vlen-array', ...(dtype === undefined ? {} : { dtype }) }] };
  await store.set('a/.zarray', new TextEncoder().encode(JSON.stringify(doc)));
  return { store, array: (await V2Array.openAt(store, '/a')) };
}

describe('the element dtype', () => {
  it.each([
    ['missing', undefined],
    ['not a typestr', 5],
  ])('%s is INVALID_METADATA naming .zarray', async (_, dtype) => {
    const err = await refusal(() => vlenArray(dtype));
    expect([err.code, err.where, err.message]).toEqual(['INVALID_METADATA', 'a/.zarray', expect.stringContaining('vlen-array needs its element "dtype"')]);
  });

  it.each([
    ['<U2', /U<n> elements/],
    [[['x', '<i4'], ['y', '<f8']], /record elements/],
    ['<i3', /NumPy type i3 has no Floe equivalent/],
  ])('%j opens, refuses typed reads and writes with UNSUPPORTED, and reads and writes bytes', async (dtype, why) => {
    const { store, array } = await vlenArray(dtype);
    await store.set('a/0', frames([1, 2, 3, 4], []));
    for (const op of [() => array.get(), () => array.set(undefined, [new Uint8Array(4), new Uint8Array(0)])]) {
      const err = await refusal(op);
      expect([err.code, err.message]).toEqual(['UNSUPPORTED', expect.stringMatching(why)]);
      expect(err.message).toContain("{ vlenArray: 'bytes' }");
    }
    expect((await array.get(undefined, { vlenArray: 'bytes' })).data).toEqual([Uint8Array.of(1, 2, 3, 4), new Uint8Array(0)]);
    await array.set([1], [Uint8Array.of(9, 9, 9, 9)], { vlenArray: 'bytes' });
    expect(await store.get('a/0')).toEqual(frames([1, 2, 3, 4], [9, 9, 9, 9]));
  });
});

describe('hostile chunks are CORRUPT_OBJECT naming the chunk', () => {
  it.each([
    ['shorter than its count', Uint8Array.of(2, 0), /shorter than its 4-byte count/],
    ['a count other than the chunk\'s', frames([1, 0, 0, 0]), /holds 1 elements, expected 2/],
    ['truncated inside a length', Uint8Array.of(...u32(2), ...u32(4), 1, 0, 0, 0, 7, 0), /truncated at element 1/],
    ['an element running past the end', Uint8Array.of(...u32(2), ...u32(4), 1, 0, 0, 0, ...u32(8), 1, 2, 3, 4), /element 1 \(8 bytes\) runs past the end/],
    ['an oversized length (2^32 - 1)', Uint8Array.of(...u32(2), ...u32(0xffffffff), 1, 2, 3, 4), /element 0 \(4294967295 bytes\) runs past the end/],
    ['trailing bytes', Uint8Array.of(...frames([], []), 0), /1 trailing bytes/],
    ['an element of 5 bytes for "<i4"', frames([1, 0, 0, 0, 2], []), /element \[0\] holds 5 bytes, not a whole number of "<i4" items \(4 bytes each\)/],
  ])('%s', async (_, chunk, why) => {
    const { store, array } = await vlenArray('<i4');
    await store.set('a/0', chunk);
    const err = await refusal(() => array.get());
    expect([err.code, err.message]).toEqual(['CORRUPT_OBJECT', expect.stringMatching(why)]);
    expect(err.where).toBe('a/0');
  });

  it('a damaged element is named by its array coordinates and its chunk, wherever the selection starts', async () => {
    const { store, array } = await vlenArray('<f8', [3, 4], [2, 2]);
    await store.set('a/1.1', frames([], [1, 2, 3], [], [])); // (2, 2), (2, 3), and the edge chunk's (3, 2), (3, 3)
    const err = await refusal(() => array.get([slice(1, 3), 3]));
    expect([err.code, err.where, err.message]).toEqual(['CORRUPT_OBJECT', 'a/1.1', expect.stringContaining('vlen-array element [2, 3] holds 3 bytes')]);
  });
});

describe('reads and writes', () => {
  it('decodes big-endian items into native typed arrays; a missing chunk reads as empty elements', async () => {
    const { store, array } = await vlenArray('>i2', [4], [2]);
    await store.set('a/0', frames([0x01, 0x02, 0xff, 0xfe], []));
    const data = (await array.get()).data as TypedArray[];
    expect(data).toEqual([Int16Array.of(0x0102, -2), new Int16Array(0), new Int16Array(0), new Int16Array(0)]);
    expect(data.every((e) => e instanceof Int16Array)).toBe(true);
  });

  it('writes typed arrays as numcodecs frames in the dtype\'s byte order', async () => {
    const { store, array } = await vlenArray('>i4');
    await array.set(undefined, [Int32Array.of(1, -2), new Int32Array(0)]);
    expect(await store.get('a/0')).toEqual(frames([0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], []));
    const c = await vlenArray('<c8', [1], [1]);
    await c.array.set(undefined, [Float32Array.of(1.5, -2)]);
    expect(await c.store.get('a/0')).toEqual(frames([0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0]));
  });

  it('a returned element is its own memory: changing it changes neither the store nor a later read', async () => {
    const { store, array } = await vlenArray('<i4');
    await store.set('a/0', frames([5, 0, 0, 0], []));
    const first = (await array.get()).data as Int32Array[];
    first[0]![0] = 99;
    expect(((await array.get()).data as Int32Array[])[0]).toEqual(Int32Array.of(5));
  });

  it.each([
    ['the wrong typed array', [Int16Array.of(1), new Int32Array(0)], /element 0 of a vlen-array "<i4" array must be a Int32Array, got Int16Array/],
    ['plain numbers', [[1, 2], new Int32Array(0)], /must be a Int32Array, got Array/],
    ['raw bytes without the bytes option', [Uint8Array.of(1, 0, 0, 0), new Int32Array(0)], /must be a Int32Array, got Uint8Array/],
  ])('refuses %s before writing anything', async (_, value, why) => {
    const { store, array } = await vlenArray('<i4');
    const err = await refusal(() => array.set(undefined, value as unknown as TypedArray[]));
    expect([err.code, err.message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(why)]);
    expect(await store.get('a/0')).toBeUndefined();
  });

  it('refuses half a complex item, and bytes that are no whole number of items', async () => {
    const c = await vlenArray('<c16', [1], [1]);
    expect((await refusal(() => c.array.set(undefined, [Float64Array.of(1, 2, 3)]))).message).toMatch(/holds 3 numbers, not a whole number of "<c16" items \(2 numbers each\)/);
    const i = await vlenArray('<i4', [1], [1]);
    const err = await refusal(() => i.array.set(undefined, [Uint8Array.of(1, 2, 3)], { vlenArray: 'bytes' }));
    expect([err.code, err.message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(/3 bytes, not a whole number of "<i4" items/)]);
    expect(await i.store.get('a/0')).toBeUndefined();
  });

  it('a v3 binary array reads typed elements only with the floe.vlen_array_dtype attribute', async () => {
    const store = new StorageStore(new MemoryStorage());
    const input = { shape: [1], chunkShape: [1], dataType: 'binary', fillValue: '', codecs: [{ name: 'vlen-bytes' }] };
    const plain = await ZarrArray.create(store, '/p', input);
    const typed = await ZarrArray.create(store, '/t', { ...input, attributes: { 'floe.vlen_array_dtype': '<u2' } });
    await plain.set(undefined, [Uint8Array.of(1, 2)]);
    await typed.set(undefined, [Uint16Array.of(0x0201)]);
    expect([(await plain.get()).data, (await typed.get()).data]).toEqual([[Uint8Array.of(1, 2)], [Uint16Array.of(0x0201)]]);
    expect(await store.get('t/c/0')).toEqual(await store.get('p/c/0'));
  });
});

describe('printed forms', () => {
  const report = { fetched: {}, total: { requests: 0, bytes: 0 }, cacheHits: {}, elapsedMs: 0 } as never;

  it('query JSON: vlen-array elements as lists of numbers (bigints as strings, NaN by name); binary as base64', () => {
    const typed = { path: '/v', dtype: 'binary', elementDtype: 'float64', dims: ['x'], shape: [2], data: [Float64Array.of(1.5, NaN), new Float64Array(0)] };
    const big = { path: '/b', dtype: 'binary', elementDtype: 'uint64', dims: ['x'], shape: [1], data: [BigUint64Array.of(2n ** 64n - 1n)] };
    const bytes = { path: '/y', dtype: 'binary', dims: ['x'], shape: [1], data: [Uint8Array.of(1, 2)] };
    const u1 = { ...bytes, path: '/u', elementDtype: 'uint8' };
    const json = JSON.parse(encodeJson([typed, big, bytes, u1], report)) as { arrays: { elementDtype?: string; data: unknown[] }[] };
    expect(json.arrays.map((a) => [a.elementDtype, a.data])).toEqual([
      ['float64', [[1.5, 'NaN'], []]],
      ['uint64', [['18446744073709551615']]],
      [undefined, ['AQI=']],
      ['uint8', [[1, 2]]],
    ]);
  });

  it('text: each element as the list of its values, as a flat array of its type prints them', () => {
    expect(elementList(Float32Array.of(1, 2.5, NaN), parseDataType('float32'))).toBe('[1.0, 2.5, nan]');
    expect(elementList(Float64Array.of(1, -2, 0.5, 0), parseDataType('complex128'))).toBe('[1.0-2.0j, 0.5+0.0j]');
    expect(elementList(BigInt64Array.of(-3n), parseDataType('int64'))).toBe('[-3]');
    expect(elementList(Uint8Array.of(1, 0), parseDataType('bool'))).toBe('[True, False]');
    expect(elementList(new Int8Array(0), parseDataType('int8'))).toBe('[]');
  });
});
