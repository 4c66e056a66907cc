// Issue 20: dates typed by people are read strictly (src/format/iso-date.ts). Valid dates and
// zoned date-times round-trip to the instant they name (computed here by Date.UTC, which the
// parser does not use, and by Date's own toISOString); impossible fields are refused, never
// rolled over as `new Date('2026-02-30')` does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIsoDate } from '../../src/format/iso-date.ts';
import { codeOf } from '../support/error-code.ts';

const RUNS = Number(process.env.FLOE_DATE_PROPERTY_RUNS ?? 500);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** Days in a month by Date.UTC's own calendar (day 0 of the next month), for years it maps right. */
const monthDays = (year: number, month: number) => new Date(Date.UTC(2000 + (year % 400), month, 0)).getUTCDate();
/** The instant by Date.UTC; setUTCFullYear keeps years 0-99 (Date.UTC maps them to 1900-1999). */
function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  const d = new Date(Date.UTC(2000, month - 1, day, h, m, s, ms));
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

const dateArb = fc.record({ year: fc.integer({ min: 0, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), dayFraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) })
  .map(({ year, month, dayFraction }) => ({ year, month, day: 1 + Math.floor(dayFraction * monthDays(year, month)) }));
const timeArb = fc.record({ h: fc.integer({ min: 0, max: 23 }), m: fc.integer({ min: 0, max: 59 }), s: fc.integer({ min: 0, max: 59 }), ms: fc.integer({ min: 0, max: 999 }) });
const offsetArb = fc.record({ sign: fc.constantFrom(1, -1), h: fc.integer({ min: 0, max: 23 }), m: fc.integer({ min: 0, max: 59 }), form: fc.constantFrom('colon', 'plain') });

describe('ISO 8601 dates (property)', () => {
  it('Date#toISOString output parses back to the same instant', () => {
    const min = utc(0, 1, 1);
    const max = utc(9999, 12, 31, 23, 59, 59, 999);
    fc.assert(fc.property(fc.integer({ min, max }), (ms) => {
      expect(parseIsoDate(new Date(ms).toISOString()).getTime()).toBe(ms);
    }), { numRuns: RUNS });
  });

  it('every real calendar date is 00:00 UTC of that day', () => {
    fc.assert(fc.property(dateArb, ({ year, month, day }) => {
      expect(parseIsoDate(`${pad(year, 4)}-${pad(month)}-${pad(day)}`).getTime()).toBe(utc(year, month, day));
    }), { numRuns: RUNS });
  });

  it('a date-time with an offset names the UTC instant the offset says', () => {
    fc.assert(fc.property(dateArb, timeArb, offsetArb, fc.constantFrom('T', 't', ' '), (d, t, o, separator) => {
      const zone = `${o.sign > 0 ? '+' : '-'}${pad(o.h)}${o.form === 'colon' ? ':' : ''}${pad(o.m)}`;
      const text = `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}${separator}${pad(t.h)}:${pad(t.m)}:${pad(t.s)}.${pad(t.ms, 3)}${zone}`;
      const expected = utc(d.year, d.month, d.day, t.h, t.m, t.s, t.ms) - o.sign * (o.h * 60 + o.m) * 60_000;
      expect(parseIsoDate(text).getTime()).toBe(expected);
    }), { numRuns: RUNS });
  });

  it('refuses a day past the end of its month (no roll-over)', () => {
    const overArb = fc.record({ year: fc.integer({ min: 0, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), extra: fc.integer({ min: 1, max: 68 }) })
      .map(({ year, month, extra }) => ({ year, month, day: Math.min(99, monthDays(year, month) + extra) }));
    fc.assert(fc.property(overArb, ({ year, month, day }) => {
      expect(codeOf(() => parseIsoDate(`${pad(year, 4)}-${pad(month)}-${pad(day)}`))).toBe('INVALID_ARGUMENT');
    }), { numRuns: RUNS });
  });

  it('refuses months, hours, minutes, seconds and offsets out of range', () => {
    const field = fc.oneof(
      fc.integer({ min: 13, max: 99 }).map((m) => `2026-${pad(m)}-01`),
      fc.constant('2026-00-10'),
      fc.constant('2026-05-00'),
      fc.integer({ min: 24, max: 99 }).map((h) => `2026-05-01T${pad(h)}:00:00Z`),
      fc.integer({ min: 60, max: 99 }).map((m) => `2026-05-01T10:${pad(m)}:00Z`),
      fc.integer({ min: 60, max: 99 }).map((s) => `2026-05-01T10:00:${pad(s)}Z`),
      fc.integer({ min: 24, max: 99 }).map((h) => `2026-05-01T10:00:00+${pad(h)}:00`),
      fc.integer({ min: 60, max: 99 }).map((m) => `2026-05-01T10:00:00-01:${pad(m)}`),
    );
    fc.assert(fc.property(field, (text) => {
      expect(codeOf(() => parseIsoDate(text))).toBe('INVALID_ARGUMENT');
    }), { numRuns: RUNS });
  });
});

describe('ISO 8601 dates (examples)', () => {
  it('refuses the roll-over dates new Date() accepts, naming the problem', () => {
    expect(new Date('2026-02-30').toISOString()).toBe('2026-03-02T00:00:00.000Z'); // what the CLI used to read
    expect(() => parseIsoDate('2026-02-30', '--older-than')).toThrow(/--older-than "2026-02-30" is not a real date: February 2026 has 28 days, not 30/);
    expect(parseIsoDate('2024-02-29').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(codeOf(() => parseIsoDate('2100-02-29'))).toBe('INVALID_ARGUMENT');
    expect(parseIsoDate('2000-02-29').toISOString()).toBe('2000-02-29T00:00:00.000Z');
  });

  it('refuses a time without a zone (the machine\'s local time would decide the instant)', () => {
    expect(() => parseIsoDate('2026-05-01T10:00:00')).toThrow(/a time needs a zone/);
    expect(parseIsoDate('2026-05-01T10:00Z').toISOString()).toBe('2026-05-01T10:00:00.000Z');
    expect(parseIsoDate('2026-05-01T10:00+02').toISOString()).toBe('2026-05-01T08:00:00.000Z');
  });

  it('refuses other shapes: words, two-digit years, week dates, trailing text, non-strings', () => {
    for (const text of ['yesterday', '26-05-01', '2026-W18', '2026-5-1', '2026-05-01Tnoon', '2026-05-01 junk', '', '2026-05-01T10:00:00.1234567890Z']) {
      expect([text, codeOf(() => parseIsoDate(text))]).toEqual([text, 'INVALID_ARGUMENT']);
    }
    expect(codeOf(() => parseIsoDate(20260501 as unknown as string))).toBe('INVALID_ARGUMENT');
  });

  it('drops fraction digits past milliseconds', () => {
    expect(parseIsoDate('2026-05-01T10:00:00.123999Z').toISOString()).toBe('2026-05-01T10:00:00.123Z');
    expect(parseIsoDate('2026-05-01T10:00:00,5Z').toISOString()).toBe('2026-05-01T10:00:00.500Z');
  });
});
