// Issue 33: CF time round trips (src/format/cf). Every decoded date converts back to the stored
// number it came from, on every calendar, for whole counts of any size (BigInt past 2^53) and for
// fractions that are whole microseconds; dates made from fields encode and decode to themselves.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calendar, type CfCalendarName } from '../../src/format/cf/calendar.ts';
import { CfDate } from '../../src/format/cf/cf-date.ts';
import { decodeTime, encodeTime, encodeTimeExact, parseTimeUnits, type CfTimeCoding } from '../../src/format/cf/time.ts';

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
