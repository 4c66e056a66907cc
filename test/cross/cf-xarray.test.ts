// Issue 33: CF decoding checked against xarray. test/support/cf-xarray-peer.py writes Zarr v2
// stores covering every rule (Debian's python3-xarray 2023.01, python3-cftime 1.6.2, zarr 2.13)
// and prints what `xr.open_zarr(...).load()` decodes; Floe reads the same stores with
// `decode: 'cf'`, then converts them to Zarr v3 (convertV2ToV3) and reads those too. Values are
// compared one by one: NaN at the same places, floats bit-equal (same operations in the same
// order), dates field by field to the microsecond. The rules where Floe differs on purpose
// (docs/cf.md) are checked as differences, so a change on either side shows up.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import type { V2Array } from '../../src/engine/v2-array.ts';
import type { CfNdArray } from '../../src/engine/cf-read.ts';
import { convertV2ToV3 } from '../../src/engine/conversions.ts';
import type { CfDate } from '../../src/format/cf/cf-date.ts';
import { flagLabels } from '../../src/format/cf/metadata.ts';
import { decodeTime, encodeTimeExact } from '../../src/format/cf/time.ts';
import type { TypedArray } from '../../src/format/zarr/data-types.ts';
import { describeWithPythonZarr, PYTHON } from '../support/python-zarr.ts';

const PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/cf-xarray-peer.py');

type Expected =
  | { kind: 'float' | 'int'; dtype: string; hex: string }
  | { kind: 'time'; dtype: string; dates: (number[] | null)[]; calendars?: string[] }
  | { kind: 'timedelta'; dtype: string; ns: (number | null)[] }
  | { error: string; kind?: undefined; dates: (number[] | null)[]; calendars?: undefined };
interface Oracle { versions: Record<string, string>; stores: Record<string, Record<string, Expected>> }

const TYPED: Record<string, new (buffer: ArrayBuffer) => TypedArray> = {
  float32: Float32Array, float64: Float64Array, uint8: Uint8Array, int8: Int8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
};
const dtypeOf = (data: TypedArray) => data.constructor.name.replace('Array', '').toLowerCase();
const fromHex = (hex: string, dtype: string) => new TYPED[dtype]!(Uint8Array.from(Buffer.from(hex, 'hex')).buffer);

/** float32 units in the last place between a and b (both finite). */
function ulps32(a: number, b: number): number {
  const bits = (x: number) => {
    const i = new Int32Array(new Float32Array([x]).buffer)[0]!;
    return i < 0 ? -2147483648 - i : i;
  };
  return Math.abs(bits(a) - bits(b));
}

/** What the comparison saw: counts for the closing note. */
const counts = { stores: 0, variables: 0, values: 0, xarrayFailed: 0, differsOnPurpose: 0, worstUlps: 0 };

/** Compares one variable; returns the number of values compared. */
function compare(name: string, expected: Expected, got: CfNdArray, stored: TypedArray): number {
  if ('error' in expected || expected.kind === 'time') {
    // 'error': xarray 2023.01 cannot decode missing times on cftime calendars; the peer then
    // decodes the present values with cftime.num2date, which xarray would have called.
    const dates = got.data as (CfDate | null)[];
    expect(Array.isArray(dates), name).toBe(true);
    const fieldsOf = (list: (CfDate | null)[]) => list.map((d) => (d === null ? null : [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, 0]));
    const time = got.cf.time!;
    if (stored instanceof BigInt64Array) {
      // xarray (and cftime) turn int64 counts into float64 first, so counts past 2^53 move to
      // the nearest double; Floe decodes them exactly. xarray's dates are Floe's dates of those
      // doubles, and Floe's dates convert back to the stored counts.
      expect(fieldsOf(Array.from(stored, (v) => decodeTime(time, Number(v)))), name).toEqual(expected.dates);
      expect(dates.map((d) => encodeTimeExact(time, d!)), name).toEqual(Array.from(stored));
      if (Array.from(stored).some((v) => BigInt(Number(v)) !== v)) counts.differsOnPurpose++;
      return dates.length;
    }
    expect(fieldsOf(dates), name).toEqual(expected.dates);
    if (expected.calendars?.length) expect(got.cf.time?.calendar, name).toBe(expected.calendars[0]);
    return dates.length;
  }
  if (expected.kind === 'timedelta') {
    // xarray makes durations timedelta64; Floe keeps the numbers with their unit (docs/cf.md).
    const values = got.data as Float64Array;
    const micros = got.cf.duration!.unitMicros;
    expect(Array.from(values, (v) => v * micros * 1000), name).toEqual(expected.ns);
    counts.differsOnPurpose++;
    return values.length;
  }
  const data = got.data as TypedArray;
  const want = fromHex(expected.hex, expected.dtype);
  if (name === 'packed/zarr_fill_zero') {
    // Zarr's default fill 0 on an unpacked integer array is data to Floe; xarray masks the zeros.
    expect(dtypeOf(data)).toBe('int16');
    Array.from(data as Int16Array).forEach((v, i) => expect(v === 0 ? Number.isNaN(want[i]) : want[i] === v, `${name}[${i}]`).toBe(true));
    counts.differsOnPurpose++;
    return data.length;
  }
  if (name === 'packed/i16_scale_offset_fill' || name === 'xarray/temp') {
    // xarray masks first, which turns int16 into float32, then unpacks in float32; Floe picks the
    // type from the attributes (float64 when add_offset is present) and unpacks in float64. Bound:
    // xarray rounds scale_factor, the product, add_offset and the sum to float32, each within half
    // an ulp (2^-24 relative) of its own magnitude: |xarray - Floe| <= (2|x*s| + |o| + |v|) * 2^-24,
    // x*s = v - o. (Cancellation makes this several ulps of the result: up to 3 here.)
    expect([dtypeOf(data), expected.dtype]).toEqual(['float64', 'float32']);
    const offset = got.cf.values.offset ?? 0;
    let worst = 0;
    Array.from(data as Float64Array).forEach((v, i) => {
      const w = want[i] as number;
      expect(Number.isNaN(v), `${name}[${i}] NaN`).toBe(Number.isNaN(w));
      if (Number.isNaN(v)) return;
      expect(Math.abs(w - v), `${name}[${i}]: ${v} vs ${w}`).toBeLessThanOrEqual((2 * Math.abs(v - offset) + Math.abs(offset) + Math.abs(v)) * 2 ** -24);
      worst = Math.max(worst, ulps32(Math.fround(v), w));
    });
    counts.worstUlps = Math.max(counts.worstUlps, worst);
    counts.differsOnPurpose++;
    return data.length;
  }
  expect(dtypeOf(data), name).toBe(expected.dtype);
  expect(data.length, name).toBe(want.length);
  for (let i = 0; i < data.length; i++) {
    if (!Object.is(data[i], want[i])) expect(`${name}[${i}] = ${data[i]}`).toBe(`${name}[${i}] = ${want[i]}`);
  }
  return data.length;
}

describeWithPythonZarr('CF decoding against xarray (open_zarr(...).load())', () => {
  let dir: string;
  let oracle: Oracle;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-cf-xarray-'));
    oracle = JSON.parse(execFileSync(PYTHON, [PEER, dir], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] })) as Oracle;
    for (const name of Object.keys(oracle.stores)) {
      const v3 = openStore(path.join(dir, `${name}-v3.zarr`));
      await convertV2ToV3(openStore(path.join(dir, `${name}.zarr`), { readOnly: true }), v3);
    }
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`cf-xarray (python3-xarray ${oracle?.versions['python3-xarray']}, cftime ${oracle?.versions.cftime}): ${JSON.stringify(counts)}`);
  });

  it.each([['Zarr v2', ''], ['Zarr v3 converted by Floe', '-v3']])('%s stores decode to xarray\'s values', async (_label, suffix) => {
    expect(Object.keys(oracle.stores).sort()).toEqual(['packed', 'times', 'xarray']);
    for (const [storeName, variables] of Object.entries(oracle.stores)) {
      const store = openStore(path.join(dir, `${storeName}${suffix}.zarr`), { readOnly: true });
      counts.stores++;
      const arrays = new Map(await Promise.all(Object.keys(variables).map(async (v) => [v, await openArray(store, `/${v}`)] as const)));
      const parents = new Map([...arrays.values()].filter((a) => typeof a.attributes.bounds === 'string').map((a) => [a.attributes.bounds as string, a]));
      for (const [variable, expected] of Object.entries(variables)) {
        const array = arrays.get(variable)!;
        const boundsOf = parents.get(variable);
        counts.variables++;
        if ('error' in expected) counts.xarrayFailed++;
        const decoded = await array.get(undefined, boundsOf ? { decode: 'cf', boundsOf } : { decode: 'cf' });
        counts.values += compare(`${storeName}/${variable}`, expected, decoded, (await array.get()).data as TypedArray);
      }
    }
  });

  it("encodes as xarray's to_zarr did (encode: 'cf'), refusing what xarray silently turns into a fill value", async () => {
    const store = openStore(path.join(dir, 'xarray.zarr'), { readOnly: true });
    const target = openStore(path.join(dir, 'encoded.zarr'));
    const copy = async (name: string) => {
      const src = await openArray(store, `/${name}`) as V2Array;
      // xarray keeps _FillValue in .zarray's fill_value; a v3 array needs it as an attribute.
      const fill = src.v2Metadata.fill.isNull ? {} : { _FillValue: src.v2Metadata.fill.value.memory[0] as number };
      return ZarrArray.create(target, `/${name}`, { shape: src.shape, chunkShape: src.chunkShape, dataType: src.dtype, attributes: { ...src.attributes, ...fill } });
    };
    const temp = await copy('temp');
    await temp.set(undefined, [271.5, NaN, 300.25, 250.0, 260.125, NaN], { encode: 'cf' });
    const stored = (await (await openArray(store, '/temp')).get()).data as Int16Array;
    expect(Array.from((await temp.get()).data as Int16Array)).toEqual(Array.from(stored));
    expect(temp.attributes._FillValue).toBe(-32767);
    const noleap = await copy('noleap_time');
    const dates = (await (await openArray(store, '/noleap_time')).get(undefined, { decode: 'cf' })).data as CfDate[];
    await noleap.set(undefined, dates, { encode: 'cf' });
    expect(Array.from((await noleap.get()).data as Int32Array)).toEqual(Array.from((await (await openArray(store, '/noleap_time')).get()).data as Int32Array));
    // xarray wrote 25.5 / 0.1 = 254.99999999999997 -> 255, its fill value: it reads back as NaN.
    const u8 = await ZarrArray.create(target, '/u8', { shape: [4], chunkShape: [4], dataType: 'uint8', attributes: { scale_factor: 0.1, _FillValue: 255 } });
    await expect(u8.set(undefined, [0, 1, NaN, 25.5], { encode: 'cf' })).rejects.toMatchObject({ message: expect.stringContaining('index 3') });
    expect(Array.from((await (await openArray(store, '/u8')).get()).data as Uint8Array)).toEqual([0, 10, 255, 255]);
  });

  it('labels flags and keeps valid ranges as metadata, as xarray keeps them as attributes', async () => {
    const store = openStore(path.join(dir, 'packed.zarr'), { readOnly: true });
    const flags = await (await openArray(store, '/flags')).get(undefined, { decode: 'cf' });
    expect(Array.from(flags.data as Uint8Array, (v) => flagLabels(flags.cf.metadata.flags!, v).join(' '))).toEqual(['good', 'suspect', 'bad', 'missing_data', '', 'suspect']);
    const masks = await (await openArray(store, '/flag_masks')).get(undefined, { decode: 'cf' });
    expect(Array.from(masks.data as Uint8Array, (v) => flagLabels(masks.cf.metadata.flags!, v).join(' '))).toEqual(['', 'a', 'b', 'a b', 'c', 'a d']);
    const ranged = await (await openArray(store, '/i16_valid_range')).get(undefined, { decode: 'cf' });
    expect(ranged.cf.metadata.validRange).toEqual({ min: -1000, max: 1000 });
  });
});
