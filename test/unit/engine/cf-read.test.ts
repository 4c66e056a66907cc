// Issue 33: `get(selection, { decode: 'cf' })` decodes inside the chunk reads (src/engine/cf-read.ts):
// the same values as decoding a stored-value read afterwards, for strided selections over many
// chunks, dropped dimensions and scalars; times become CfDates; the default stays the stored values.
// `set(..., { encode: 'cf' })` is the inverse, refusing what does not fit.
import { describe, expect, it } from 'vitest';
import { get, set } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { CfDate } from '../../../src/format/cf/cf-date.ts';
import { applyValueCoding, cfVariable } from '../../../src/format/cf/variable.ts';
import type { TypedArray } from '../../../src/format/zarr/data-types.ts';

const store = () => new StorageStore(new MemoryStorage());

describe("get with decode: 'cf'", () => {
  it('unpacks and masks inside chunk reads, equal to decoding the stored values afterwards', async () => {
    const attributes = { scale_factor: 0.01, add_offset: 273.15, _FillValue: -32767, missing_value: [-32766, -1] };
    const a = await ZarrArray.create(store(), '/t', { shape: [7, 9], chunkShape: [3, 4], dataType: 'int16', fillValue: -32767, attributes, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'gzip', configuration: { level: 1 } }] });
    const values = Int16Array.from({ length: 63 }, (_, i) => (i % 10 === 3 ? -32766 : i % 10 === 7 ? -1 : i * 997 - 30000));
    await a.set(undefined, { data: values, shape: [7, 9], stride: [9, 1] });
    const coding = cfVariable({ attributes, dataType: 'int16', zarrFill: -32767, where: 't' }).values;
    for (const selection of [undefined, [slice(1, 7, 2), slice(0, 9, 3)], [4, slice(2, 9)], [slice(6, 0, -2), 5], [3, 3]]) {
      const raw = await a.get(selection);
      const decoded = await a.get(selection, { decode: 'cf' });
      expect(decoded.shape).toEqual(raw.shape);
      expect(decoded.data).toBeInstanceOf(Float64Array);
      expect(Array.from(decoded.data as Float64Array)).toEqual(Array.from(applyValueCoding(coding, raw.data as TypedArray) as Float64Array));
    }
    const none = await a.get(undefined, { decode: 'none' });
    expect(none.data).toBeInstanceOf(Int16Array);
    await expect(a.get(undefined, { decode: 'raw' as 'none' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('views _Unsigned integers as unsigned and reads times as CfDates', async () => {
    const u = await ZarrArray.create(store(), '/u', { shape: [4], chunkShape: [3], dataType: 'int8', attributes: { _Unsigned: 'true' } });
    await u.set(undefined, { data: new Int8Array([-1, 0, 127, -128]), shape: [4], stride: [1] });
    const ud = await u.get(undefined, { decode: 'cf' });
    expect(ud.flagLabels).toBeUndefined();
    const f = await ZarrArray.create(store(), '/f', { shape: [3], chunkShape: [3], dataType: 'uint8', attributes: { flag_values: [0, 1], flag_meanings: 'ok bad' } });
    await f.set(undefined, new Uint8Array([1, 0, 7]));
    const fd = await f.get(undefined, { decode: 'cf' });
    expect(Array.from(fd.data as Uint8Array, (v) => fd.flagLabels!(v))).toEqual([['bad'], ['ok'], []]);
    expect(ud.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(ud.data as Uint8Array)).toEqual([255, 0, 127, 128]);
    const t = await ZarrArray.create(store(), '/time', { shape: [3], chunkShape: [2], dataType: 'int32', attributes: { units: 'days since 2000-02-29', calendar: '360_day' } });
    await t.set(undefined, { data: new Int32Array([0, 1, 360]), shape: [3], stride: [1] });
    const td = await t.get(undefined, { decode: 'cf' });
    expect((td.data as CfDate[]).map(String)).toEqual(['2000-02-29T00:00:00', '2000-02-30T00:00:00', '2001-02-29T00:00:00']);
    expect(td.cf.time?.calendar).toBe('360_day');
    const mars = await ZarrArray.create(store(), '/mars', { shape: [2], chunkShape: [2], dataType: 'int32', attributes: { units: 'days since 2000-01-01', calendar: 'mars' } });
    const md = await mars.get(undefined, { decode: 'cf' });
    expect([md.data instanceof Int32Array, md.cf.time, md.cf.warnings.length]).toEqual([true, undefined, 1]);
    const bad = await ZarrArray.create(store(), '/bad', { shape: [2], chunkShape: [2], dataType: 'int32', attributes: { units: 'days since someday' } });
    await expect(bad.get(undefined, { decode: 'cf' })).rejects.toMatchObject({ code: 'INVALID_METADATA' });
  });
});

describe("set with encode: 'cf'", () => {
  it('packs floats as xarray does (offset, scale, round half to even, NaN to the fill value)', async () => {
    const attributes = { scale_factor: 0.5, add_offset: 10, _FillValue: -32767 };
    const a = await ZarrArray.create(store(), '/p', { shape: [6], chunkShape: [4], dataType: 'int16', attributes });
    await a.set(undefined, [10, 10.25, 10.75, NaN, -5, 11.25], { encode: 'cf' });
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([0, 0, 2, -32767, -30, 2]);
    const back = await a.get(undefined, { decode: 'cf' });
    expect(Array.from(back.data as Float64Array)).toEqual([10, 10, 11, NaN, -5, 11]);
    await a.set([slice(0, 2)], { data: [12, 13], shape: [2], stride: [1] }, { encode: 'cf' });
    await set(a, [5], 20, { encode: 'cf' });
    expect(Array.from((await get(a, [slice(4, 6)], { decode: 'cf' })).data as Float64Array)).toEqual([-5, 20]);
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([4, 6, 2, -32767, -30, 20]);
  });

  it('refuses values that do not fit, naming the index, and writes nothing', async () => {
    const a = await ZarrArray.create(store(), '/q', { shape: [3], chunkShape: [3], dataType: 'int8', attributes: { scale_factor: 1, _FillValue: -128 } });
    await expect(a.set(undefined, [1, 200, 3], { encode: 'cf' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('index 1') });
    await expect(a.set(undefined, [1, 2, -128], { encode: 'cf' })).rejects.toMatchObject({ message: expect.stringContaining('would read back as missing') });
    const noFill = await ZarrArray.create(store(), '/r', { shape: [2], chunkShape: [2], dataType: 'int16', attributes: { scale_factor: 2 } });
    await expect(noFill.set(undefined, [1, NaN], { encode: 'cf' })).rejects.toMatchObject({ message: expect.stringContaining('index 1 is missing') });
    expect(Array.from((await a.get()).data as Int8Array)).toEqual([0, 0, 0]);
    const u = await ZarrArray.create(store(), '/u', { shape: [2], chunkShape: [2], dataType: 'int8', attributes: { _Unsigned: 'true' } });
    await u.set(undefined, [255, 128], { encode: 'cf' });
    expect(Array.from((await u.get()).data as Int8Array)).toEqual([-1, -128]);
  });

  it('stores dates on the array calendar, exactly for integer times', async () => {
    const t = await ZarrArray.create(store(), '/t', { shape: [3], chunkShape: [3], dataType: 'int64', attributes: { units: 'hours since 2000-01-01', calendar: '360_day', _FillValue: -1 } });
    const d = (day: number) => CfDate.of('360_day', { year: 2000, month: 2, day });
    await t.set(undefined, [d(30), null, d(1)], { encode: 'cf' });
    expect(Array.from((await t.get()).data as BigInt64Array)).toEqual([24n * 59n, -1n, 24n * 30n]);
    await expect(t.set(undefined, [CfDate.of('360_day', { year: 2000, month: 1, day: 1, minute: 30 }), null, null], { encode: 'cf' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(t.set(undefined, [new Date(0), null, null], { encode: 'cf' })).rejects.toMatchObject({ message: expect.stringContaining('no JS Dates') });
    await t.set([slice(1, 3)], ['2000-02-30T12:00', '2000-12-30'], { encode: 'cf' });
    expect(Array.from((await t.get()).data as BigInt64Array)).toEqual([24n * 59n, 24n * 59n + 12n, 24n * 359n]);
    await expect(t.set([0], '2000-02-31', { encode: 'cf' })).rejects.toMatchObject({ message: expect.stringContaining('360_day') });
  });
});
