// Issue 33: CF time round trips (src/format/cf). Every decoded date converts back to the stored
// number it came from, on every calendar, and encoding (set with encode: 'cf') inverts decoding, for whole counts of any size (BigInt past 2^53) and for
// fractions that are whole microseconds; dates made from fields encode and decode to themselves.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calendar, type CfCalendarName } from '../../src/format/cf/calendar.ts';
import { CfDate } from '../../src/format/cf/cf-date.ts';
import { encodeValues } from '../../src/format/cf/encode.ts';
import { decodeTime, encodeTime, encodeTimeExact, parseTimeUnits, type CfTimeCoding } from '../../src/format/cf/time.ts';
import { applyValueCoding, cfVariable, decodeValues, reinterpret } from '../../src/format/cf/variable.ts';
import type { TypedArray } from '../../src/format/zarr/data-types.ts';

const RUNS = Number(process.env.FLOE_CF_PROPERTY_RUNS ?? 300);
const CALENDARS: CfCalendarName[] = ['standard', 'proleptic_gregorian', 'julian', 'noleap', 'all_leap', '360_day'];
const UNITS = ['days', 'hours', 'minutes', 'seconds', 'milliseconds', 'microseconds'];
const REFERENCES = ['1850-01-01', '0001-01-01', '1582-10-15 12:00:00', '1970-01-01T00:00:00Z', '2000-02-28 06:30'];

const coding = fc.record({ cal: fc.constantFrom(...CALENDARS), unit: fc.constantFrom(...UNITS), ref: fc.constantFrom(...REFERENCES) })
  .map(({ cal, unit, ref }) => parseTimeUnits(`${unit} since ${ref}`, cal, 'p'))
  .filter((t): t is CfTimeCoding => t !== undefined && !('warning' in t));

describe('CF time (property)', () => {
  it('whole counts round-trip exactly (numbers below 2^53, bigints up to 2^62)', () => {
    fc.assert(fc.property(coding, fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), (t, n) => {
      const limit = 300_000 * 365 * (86_400e6 / t.unitMicros);
      fc.pre(Math.abs(n) < limit);
      expect(encodeTime(t, decodeTime(t, n)!)).toBe(n);
    }), { numRuns: RUNS });
    const micros = parseTimeUnits('microseconds since 1970-01-01', 'noleap', 'p') as CfTimeCoding;
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), (n) => {
      expect(encodeTimeExact(micros, decodeTime(micros, n)!)).toBe(n);
    }), { numRuns: RUNS });
  });

  it('fractions in whole microseconds round-trip exactly', () => {
    fc.assert(fc.property(coding, fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 0, max: 15 }), (t, whole, sixteenths) => {
      fc.pre(t.unitMicros >= 1e6); // a sixteenth of a second or more is whole microseconds
      const v = whole + sixteenths / 16;
      expect(encodeTime(t, decodeTime(t, v)!)).toBe(v);
    }), { numRuns: RUNS });
  });

  it('dates made from fields survive encode -> decode, and order follows the stored numbers', () => {
    const dateArb = fc.record({ cal: fc.constantFrom(...CALENDARS), year: fc.integer({ min: -3000, max: 3000 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }), us: fc.integer({ min: 0, max: 86_399_999_999 }) })
      .filter(({ cal, year, month, day }) => (year !== 0 || calendar(cal).hasYearZero) && day <= calendar(cal).daysInMonth(year, month) && !(cal === 'standard' && year === 1582 && month === 10 && day > 4 && day < 15));
    fc.assert(fc.property(dateArb, dateArb, ({ cal, year, month, day, us }, other) => {
      const date = CfDate.fromDayNumber(cal, CfDate.of(cal, { year, month, day }).dayNumber, us);
      expect([date.year, date.month, date.day]).toEqual([year, month, day]);
      const t = parseTimeUnits('microseconds since 1850-01-01', cal, 'p') as CfTimeCoding;
      const stored = encodeTimeExact(t, date);
      expect(decodeTime(t, stored)!.equals(date)).toBe(true);
      const b = CfDate.of(cal, { year: other.year === 0 && !calendar(cal).hasYearZero ? 1 : other.year, month: other.month, day: Math.min(other.day, 28) });
      expect(Math.sign(date.compare(b))).toBe(Math.sign(Number(stored - encodeTimeExact(t, b))));
    }), { numRuns: RUNS });
  });
});

describe('CF encoding (property)', () => {
  it('packed values decode and encode back to the stored integers, on every packed type', () => {
    const typeArb = fc.constantFrom(['int8', Int8Array, false], ['int8', Int8Array, true], ['uint8', Uint8Array, false], ['int16', Int16Array, false], ['uint16', Uint16Array, false], ['int32', Int32Array, false]) as fc.Arbitrary<[string, new (xs: number[]) => TypedArray, boolean]>;
    const attrsArb = fc.record({
      scale: fc.option(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), { nil: undefined }),
      offset: fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: undefined }),
      fill: fc.option(fc.integer({ min: -100, max: 100 }), { nil: undefined }),
    });
    fc.assert(fc.property(typeArb, attrsArb, fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 20 }), ([type, Typed, unsigned], attrs, raw) => {
      const attributes = { ...(attrs.scale !== undefined ? { scale_factor: attrs.scale } : {}), ...(attrs.offset !== undefined ? { add_offset: attrs.offset } : {}), ...(attrs.fill !== undefined ? { _FillValue: attrs.fill } : {}), ...(unsigned ? { _Unsigned: 'true' } : {}) };
      const variable = cfVariable({ attributes, dataType: type, where: 'p' });
      const stored = new Typed(raw);
      const decoded = applyValueCoding(variable.values, stored);
      const meaning = reinterpret(stored, variable.values.dataType);
      expect(Array.from(reinterpret(encodeValues(variable, Array.from(decoded as Float64Array), 'p'), type) as Int32Array)).toEqual(
        Array.from(meaning as Int32Array, (x, i) => (variable.values.missing.includes(Number(x)) ? Number(reinterpret(new Typed([variable.values.missing[0]!]), type)[0]) : Number(stored[i]))),
      );
    }), { numRuns: RUNS });
  });

  it('dates decode and encode back to their stored counts on every calendar', () => {
    fc.assert(fc.property(coding, fc.array(fc.integer({ min: -1e8, max: 1e8 }), { minLength: 1, maxLength: 10 }), (t, counts) => {
      const variable = cfVariable({ attributes: { units: t.units, calendar: t.calendar }, dataType: 'int32', where: 'p' });
      const dates = decodeValues(variable, Int32Array.from(counts)) as CfDate[];
      expect(Array.from(encodeValues(variable, dates, 'p') as Int32Array)).toEqual(counts);
    }), { numRuns: RUNS });
  });
});
