// V1Array: chunk layout on disk (order, byte order, U<n>, edge chunks), null fills, records,
// conversion of the less common dtypes, and damaged chunks.
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { convertV1ToV3 } from '../../../src/engine/convert.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { V1Array } from '../../../src/engine/v1-array.ts';
import { isFloeError } from '../../../src/errors.ts';

const mem = () => new StorageStore(new MemoryStorage());
const raw = async (s: StorageStore, key: string) => Buffer.from((await s.get(key))!);

describe('V1Array chunks on disk', () => {
  it('order F stores chunks column-major; ">" stores big-endian; edge chunks are full-size', async () => {
    const s = mem();
    const a = await V1Array.create(s, { shape: [3, 3], chunks: [2, 2], dtype: '>i2', compression: 'none', fillValue: 0, order: 'F' });
    await a.set(undefined, Int16Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    // chunk 0.0 holds [[1,2],[4,5]]; F order walks columns: 1,4,2,5.
    expect(Array.from((await raw(s, '0.0')).values())).toEqual([0, 1, 0, 4, 0, 2, 0, 5]);
    // chunk 1.1 holds [[9, pad],[pad, pad]]: 4 elements although only one is inside the array.
    expect(Array.from((await raw(s, '1.1')).values())).toEqual([0, 9, 0, 0, 0, 0, 0, 0]);
    expect(Array.from((await a.get([slice(null), 1])).data as Int16Array)).toEqual([2, 5, 8]);
  });

  it('order F, uncompressed: a small window of a big chunk reads the right elements', async () => {
    const a = await V1Array.create(mem(), { shape: [8, 8], chunks: [8, 8], dtype: '<u2', compression: 'none', fillValue: 0, order: 'F' });
    await a.set(undefined, Uint16Array.from({ length: 64 }, (_, i) => i));
    expect(Array.from((await a.get([slice(0, 1), slice(0, 3)])).data as Uint16Array)).toEqual([0, 1, 2]);
    expect(Array.from((await a.get([slice(2, 4), 5])).data as Uint16Array)).toEqual([21, 29]);
  });

  it('U<n> is stored as UCS-4 and read back as strings, refusing strings that do not fit', async () => {
    const s = mem();
    const a = await V1Array.create(s, { shape: [2], chunks: [2], dtype: '<U3', compression: 'zlib', compressionOpts: 1, fillValue: '' });
    await a.set(undefined, ['a☃', '𝄞']);
    const bytes = inflateSync(await raw(s, '0'));
    expect(Array.from(new Uint32Array(bytes.buffer, bytes.byteOffset, 6))).toEqual([0x61, 0x2603, 0, 0x1d11e, 0, 0]);
    expect((await (await V1Array.open(s)).get()).data).toEqual(['a☃', '𝄞']);
    await expect(a.set([0], 'abcd')).rejects.toThrow(/holds at most 3/);
  });

  it('|S<n> elements are raw bytes, n lanes each', async () => {
    const a = await V1Array.create(mem(), { shape: [2], chunks: [1], dtype: '|S2', compression: 'bz2', compressionOpts: 1, fillValue: 'zz' });
    await a.set([1], new Uint8Array([104, 105]));
    expect(Array.from((await a.get()).data as Uint8Array)).toEqual([122, 122, 104, 105]);
  });

  it('with a null fill, missing chunks read as zeros and zero chunks are written, never deleted', async () => {
    const s = mem();
    const a = await V1Array.create(s, { shape: [4], chunks: [2], dtype: '<f4', compression: 'none' });
    expect(a.metadata.fill.isNull).toBe(true);
    expect(Array.from((await a.get()).data as Float32Array)).toEqual([0, 0, 0, 0]);
    await a.set([slice(0, 2)], 0);
    expect((await raw(s, '0')).length).toBe(8);
    const b = await V1Array.create(mem(), { shape: [4], chunks: [2], dtype: '<f4', compression: 'none', fillValue: 0 });
    await b.set([slice(0, 2)], 0);
    expect(await b.store.get('0')).toBeUndefined();
  });

  it('structured arrays: raw records, or one typed array per field with byte order resolved', async () => {
    const a = await V1Array.create(mem(), { shape: [3], chunks: [2], dtype: [['x', '<f8'], ['n', '>u2'], ['tag', '|S2']], compression: 'blosc' });
    await a.setFields(undefined, { x: Float64Array.from([0.5, -1, 2]), n: Uint16Array.from([1, 258, 65535]), tag: Uint8Array.from([97, 98, 99, 100, 101, 102]) });
    const { shape, fields } = await a.getFields([slice(1, 3)]);
    expect(shape).toEqual([2]);
    expect(Array.from(fields.x as Float64Array)).toEqual([-1, 2]);
    expect(Array.from(fields.n as Uint16Array)).toEqual([258, 65535]);
    const records = (await a.get([1])).data as Uint8Array;
    expect(Array.from(records.subarray(8, 10))).toEqual([1, 2]); // 258 big-endian inside the record
    await expect(a.setFields(undefined, { x: new Float64Array(3), n: new Uint16Array(3) })).rejects.toThrow(/"tag" is missing/);
    await expect(a.setFields(undefined, { x: new Float32Array(3), n: new Uint16Array(3), tag: new Uint8Array(6) })).rejects.toThrow(/takes a Float64Array/);
  });

  it('refuses to create over an existing array unless asked', async () => {
    const s = mem();
    await V1Array.create(s, { shape: [1], chunks: [1], dtype: '|u1' });
    await expect(V1Array.create(s, { shape: [1], chunks: [1], dtype: '|u1' })).rejects.toThrow(/already holds/);
    await V1Array.create(s, { shape: [2], chunks: [1], dtype: '|u1', overwrite: true });
    expect((await V1Array.open(s)).shape).toEqual([2]);
  });
});

describe('damaged v1 stores fail with typed errors naming the key', () => {
  it.each([
    ['zlib', 1, (b: Buffer) => b.subarray(0, b.length - 3), 'CORRUPT_OBJECT'],
    ['none', null, (b: Buffer) => b.subarray(0, 5), 'CORRUPT_OBJECT'],
    ['blosc', null, (b: Buffer) => b.subarray(0, 10), 'CORRUPT_OBJECT'],
    ['bz2', 1, (b: Buffer) => Buffer.concat([b.subarray(0, 12), Buffer.alloc(4)]), 'CORRUPT_OBJECT'],
  ] as const)('truncated %s chunk', async (compression, opts, damage, code) => {
    const s = mem();
    const a = await V1Array.create(s, { shape: [8, 2], chunks: [4, 2], dtype: '<f8', compression, compressionOpts: opts, fillValue: 0 });
    await a.set(undefined, Float64Array.from({ length: 16 }, (_, i) => i * 1.5));
    await s.set('1.0', damage(await raw(s, '1.0')));
    const err = await a.get().catch((e: unknown) => e);
    expect(isFloeError(err, code)).toBe(true);
    expect((err as { where?: string }).where).toBe('1.0');
    expect(Array.from((await a.get([slice(0, 4)])).data as Float64Array)[3]).toBe(4.5); // other chunks still read
  });

  it('a store without meta is NOT_FOUND; a missing attrs reads as no attributes', async () => {
    await expect(V1Array.open(mem())).rejects.toThrow(/"meta" key is missing/);
    const s = mem();
    await V1Array.create(s, { shape: [1], chunks: [1], dtype: '|u1', attributes: { a: 1 } });
    await s.erase('attrs');
    expect((await V1Array.open(s)).attributes).toEqual({});
  });
});

describe('conversion of the less common layouts', () => {
  it('F order, big-endian, U<n> and records keep their values in v3', async () => {
    const cases = [
      { dtype: '>i4', order: 'F' as const, compression: 'lzma', compressionOpts: null, values: Int32Array.from({ length: 12 }, (_, i) => i * 1000 - 3) },
      { dtype: '<U4', order: 'C' as const, compression: 'gzip', compressionOpts: 9, values: Array.from({ length: 12 }, (_, i) => 'é'.repeat(i % 5)) },
      { dtype: [['a', '|u1'], ['b', '<i2']], order: 'C' as const, compression: 'none', compressionOpts: null, values: Uint8Array.from({ length: 36 }, (_, i) => i) },
    ];
    for (const c of cases) {
      const src = mem();
      const v1 = await V1Array.create(src, { shape: [3, 4], chunks: [2, 3], dtype: c.dtype as never, order: c.order, compression: c.compression, compressionOpts: c.compressionOpts, fillValue: null });
      await v1.set(undefined, c.values);
      const dst = mem();
      await convertV1ToV3(src, dst, 'g/a');
      const v3 = await ZarrArray.open(dst, 'g/a');
      expect((await v3.get()).data, JSON.stringify(c.dtype)).toEqual(c.values);
      expect((await v3.get([slice(1, 3), slice(null, null, -2)])).data).toEqual((await v1.get([slice(1, 3), slice(null, null, -2)])).data);
    }
  });
});
