// Issue 33: the pure CF module (src/format/cf). Facts below were printed by cftime 1.6.2
// (Debian's python3-cftime) for the same inputs; test/cross/cf-xarray.test.ts compares whole
// stores with xarray.
import { describe, expect, it } from 'vitest';
import { calendarName } from '../../../src/format/cf/calendar.ts';
import { CfDate } from '../../../src/format/cf/cf-date.ts';
import { cfMetadata, flagLabels } from '../../../src/format/cf/metadata.ts';
import { decodeTime, encodeTime, encodeTimeExact, parseTimeUnits, type CfTimeCoding } from '../../../src/format/cf/time.ts';
import { valueCoding } from '../../../src/format/cf/values.ts';
import { applyValueCoding, cfVariable, decodeValues } from '../../../src/format/cf/variable.ts';
import { codeOf } from '../../support/error-code.ts';

function time(units: string, calendar?: string): CfTimeCoding {
  const t = parseTimeUnits(units, calendar, 'test');
  if (!t || 'warning' in t) throw new Error(`not decodable: ${units}`);
  return t;
}
const iso = (t: CfTimeCoding, v: number | bigint) => decodeTime(t, v)?.toString();

describe('CF calendars and dates', () => {
  it('decodes across year 1, the 1582 switch and idealised calendars as cftime does', () => {
    const since1 = (cal: string) => time('days since 0001-01-01', cal);
    expect([0, -1, 1.5].map((v) => iso(since1('standard'), v))).toEqual(['0001-01-01T00:00:00', '-000001-12-31T00:00:00', '0001-01-02T12:00:00']);
    expect(iso(since1('proleptic_gregorian'), -1)).toBe('0000-12-31T00:00:00');
    expect(iso(since1('julian'), -1)).toBe('-000001-12-31T00:00:00');
    expect(iso(since1('noleap'), -1)).toBe('0000-12-31T00:00:00');
    expect(iso(since1('360_day'), -1)).toBe('0000-12-30T00:00:00');
    expect([0, 1].map((v) => iso(time('days since 1582-10-04', 'standard'), v))).toEqual(['1582-10-04T00:00:00', '1582-10-15T00:00:00']);
    expect(iso(time('days since 2000-01-01', 'standard'), 1 / 3)).toBe('2000-01-01T08:00:00');
    expect([1, 13].map((v) => iso(time('months since 2000-01-01', '360_day'), v))).toEqual(['2000-02-01T00:00:00', '2001-02-01T00:00:00']);
    expect(iso(time('days since 2001-02-28', '360_day'), 2)).toBe('2001-02-30T00:00:00');
    expect(iso(time('days since 2001-02-28', 'noleap'), 1)).toBe('2001-03-01T00:00:00');
    expect(iso(time('days since 2001-02-28', 'all_leap'), 1)).toBe('2001-02-29T00:00:00');
    expect(iso(time('days since 1500-02-28', 'standard'), 1)).toBe('1500-02-29T00:00:00'); // Julian leap year
    expect(iso(time('days since 1500-02-28', 'proleptic_gregorian'), 1)).toBe('1500-03-01T00:00:00');
    expect(iso(time('hours since 1970-01-01 06:00:00 +06:00'), 0)).toBe('1970-01-01T00:00:00');
  });

  it('keeps int64 counts exact through BigInt and converts dates back to stored numbers', () => {
    const t = time('microseconds since 1970-01-01');
    const big = 2n ** 60n + 7n;
    const date = decodeTime(t, big)!;
    expect(encodeTimeExact(t, date)).toBe(big);
    expect(date.microsecond).toBe(Number(big % 1_000_000n));
    const days = time('days since 1850-01-01', 'noleap');
    for (const v of [0, -1, 0.5, 36524.25, -730000.125]) expect(encodeTime(days, decodeTime(days, v)!)).toBe(v);
  });

  it('compares, formats and converts to JS Dates', () => {
    const a = CfDate.of('gregorian', { year: 2000, month: 1, day: 1, hour: 6 });
    expect(a.toDate()?.toISOString()).toBe('2000-01-01T06:00:00.000Z');
    expect(CfDate.of('360_day', { year: 2000, month: 2, day: 30 }).toDate()).toBeUndefined();
    expect(a.compare(CfDate.of('proleptic_gregorian', { year: 2000, month: 1, day: 1 }))).toBeGreaterThan(0);
    expect(codeOf(() => a.compare(CfDate.of('noleap', { year: 2000, month: 1, day: 1 })))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => CfDate.of('noleap', { year: 2000, month: 2, day: 29 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => CfDate.of('standard', { year: 1582, month: 10, day: 10 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => CfDate.of('standard', { year: 0, month: 1, day: 1 }))).toBe('INVALID_ARGUMENT');
    expect(CfDate.of('standard', { year: 2000, month: 1, day: 1, microsecond: 250_000 }).toString()).toBe('2000-01-01T00:00:00.25');
    expect(calendarName(undefined)).toBe('standard');
    expect(calendarName('365_DAY')).toBe('noleap');
  });

  it('refuses or leaves undecoded what it cannot decode, never a wrong date', () => {
    expect(parseTimeUnits('K', undefined, 'x')).toBeUndefined();
    expect(parseTimeUnits('days since 2000-01-01', 'mars', 'x')).toMatchObject({ warning: expect.stringContaining('not a CF calendar') });
    expect(parseTimeUnits('months since 2000-01-01', 'standard', 'x')).toMatchObject({ warning: expect.stringContaining('360_day') });
    expect(parseTimeUnits('years since 2000-01-01', '360_day', 'x')).toMatchObject({ warning: expect.any(String) });
    expect(codeOf(() => parseTimeUnits('days since yesterday', undefined, 'x'))).toBe('INVALID_METADATA');
    expect(parseTimeUnits('fortnights since 2000-01-01', undefined, 'x')).toMatchObject({ reason: 'unit' });
    expect(codeOf(() => parseTimeUnits('days since 1582-10-10', 'standard', 'x'))).toBe('INVALID_METADATA');
    expect(codeOf(() => decodeTime(time('days since 2000-01-01'), 1e300))).toBe('UNSUPPORTED');
    expect(decodeTime(time('days since 2000-01-01'), NaN)).toBeNull();
  });
});

describe('CF packed and missing values', () => {
  it('picks the decoded type, masks fill and missing_value lists, applies _Unsigned', () => {
    const int16 = (attrs: Record<string, number | string | number[]>, fill?: number) => valueCoding(attrs, 'int16', fill, 'v').coding.output;
    expect(int16({ scale_factor: 0.1 })).toBe('float32');
    expect(int16({ scale_factor: 0.1, add_offset: 273.15 })).toBe('float64');
    expect(int16({ scale_factor: 0.1, add_offset: 273.15, _FillValue: -32767 })).toBe('float64');
    expect(int16({ _FillValue: -1 })).toBe('float32');
    expect(int16({})).toBeUndefined();
    expect(int16({}, 0)).toBeUndefined(); // zarr's default fill 0 is not a missing value
    expect(int16({}, -9)).toBe('float32');
    expect(valueCoding({}, 'int32', -9, 'v').coding.output).toBe('float64');
    const { coding } = valueCoding({ _Unsigned: 'true', _FillValue: -1, missing_value: [254, -3], scale_factor: 2 }, 'int8', undefined, 'v');
    expect(coding.dataType).toBe('uint8');
    expect(Array.from(applyValueCoding(coding, new Int8Array([-1, -2, -3, 1, 127, -128])) as Float32Array)).toEqual([NaN, NaN, NaN, 2, 254, 256]);
    const f32 = applyValueCoding(valueCoding({ scale_factor: 0.01 }, 'int16', undefined, 'v').coding, new Int16Array([12345]));
    expect(f32[0]).toBe(Math.fround(12345 * Math.fround(0.01)));
    const f64 = applyValueCoding(valueCoding({ scale_factor: 0.01, add_offset: 1 }, 'int16', undefined, 'v').coding, new Int16Array([12345]));
    expect(f64[0]).toBe(12345 * 0.01 + 1);
  });

  it('refuses a scale_factor of the wrong type', () => {
    expect(codeOf(() => valueCoding({ scale_factor: 'big' }, 'int16', undefined, 'v'))).toBe('INVALID_METADATA');
    expect(codeOf(() => valueCoding({ _FillValue: [true] as never }, 'int16', undefined, 'v'))).toBe('INVALID_METADATA');
    expect(valueCoding({ scale_factor: [0.5] }, 'int16', undefined, 'v').coding.scale).toBe(0.5);
  });

  it('decodes masked times to null and int64 times exactly', () => {
    const v = cfVariable({ attributes: { units: 'hours since 2000-01-01', calendar: 'noleap', _FillValue: -1 }, dataType: 'int64', where: 'time' });
    const out = decodeValues(v, new BigInt64Array([0n, -1n, 24n * 59n])) as (CfDate | null)[];
    expect(out.map((d) => d?.toString() ?? null)).toEqual(['2000-01-01T00:00:00', null, '2000-03-01T00:00:00']);
    const plain = cfVariable({ attributes: { units: 'seconds since 1970-01-01' }, dataType: 'int64', where: 'time' });
    const far = (decodeValues(plain, new BigInt64Array([2n ** 40n + 1n])) as CfDate[])[0]!;
    expect([far.year, encodeTimeExact(plain.time!, far)]).toEqual([36812, 2n ** 40n + 1n]);
    expect(codeOf(() => decodeValues(plain, new BigInt64Array([2n ** 62n])))).toBe('UNSUPPORTED');
    const hours = cfVariable({ attributes: { units: 'hours' }, dataType: 'float64', where: 'dt' });
    expect(hours.duration).toEqual({ unit: 'hours', unitMicros: 3.6e9 });
    const bounds = cfVariable({ attributes: {}, dataType: 'float64', inherit: { units: 'days since 2000-01-01', calendar: '360_day' }, where: 'time_bnds' });
    expect(bounds.time?.calendar).toBe('360_day');
  });
});

describe('CF metadata', () => {
  it('parses flags, coordinates, bounds, grid_mapping and cell_methods', () => {
    const { metadata, warnings } = cfMetadata({
      flag_values: [0, 1, 2], flag_meanings: 'good  suspect bad', coordinates: 'lat lon', bounds: 'time_bnds',
      grid_mapping: 'crsOSGB: x y crsWGS84: lat lon', cell_methods: 'time: mean (interval: 1 hr) area: sum where land', valid_range: [0, 100],
    }, 'v');
    expect(warnings).toEqual([]);
    expect(flagLabels(metadata.flags!, 2)).toEqual(['bad']);
    expect(metadata.coordinates).toEqual(['lat', 'lon']);
    expect(metadata.bounds).toBe('time_bnds');
    expect(metadata.gridMapping).toEqual([{ name: 'crsOSGB', coordinates: ['x', 'y'] }, { name: 'crsWGS84', coordinates: ['lat', 'lon'] }]);
    expect(metadata.cellMethods).toEqual([{ names: ['time'], method: 'mean', comment: 'interval: 1 hr' }, { names: ['area'], method: 'sum', where: 'land' }]);
    expect(metadata.validRange).toEqual({ min: 0, max: 100 });
    const masks = cfMetadata({ flag_masks: [1, 2, 12, 12], flag_values: [1, 2, 4, 8], flag_meanings: 'a b c d' }, 'q').metadata.flags!;
    expect(flagLabels(masks, 1 | 8)).toEqual(['a', 'd']);
    expect(cfMetadata({ flag_values: [1], flag_meanings: 'a b' }, 'q').warnings).toHaveLength(1);
  });
});
