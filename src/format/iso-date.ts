// ISO 8601 dates as Floe reads them from people (`floe expire --older-than`, `REF@{DATE}`), and
// strictly: `new Date(text)` rolls `2026-02-30` over to March 2, reads a time without a zone as
// the machine's local time, and accepts forms that differ between engines, so a typo would
// silently name another day. Accepted here:
//  - a calendar date, `2026-11-01`: the start of that day in UTC;
//  - a date and a time with a zone: `2026-11-01T12:30Z`, `2026-11-01T12:30:15.25+02:00`
//    (`T`, `t` or one space between; seconds and a fraction optional; the zone `Z`, `+HH:MM`,
//    `+HHMM` or `+HH`).
// Every field is checked against its range: month 13, February 30, hour 24, minute 60 and leap
// seconds are refused. Digits of a fraction past milliseconds are dropped (a Date holds ms).
import { floeError } from '../errors.ts';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;
const EXAMPLES = 'write 2026-11-01 (00:00 UTC) or 2026-11-01T12:30:00Z (a time needs its zone: Z or +02:00)';
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1-12) of `year` in the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to year-month-day (proleptic Gregorian, astronomical years: 0 is 1 BC), by arithmetic (Date.UTC maps years 0-99 to 1900-1999). */
export function daysFromEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Why `text` is not a date this module accepts, or null when it is one. */
function problemOf(fields: RegExpExecArray): string | null {
  const [, y, mo, d, h, mi, s, , zone] = fields;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has ${days} days, not ${day}`;
  if (h === undefined) return null;
  if (zone === undefined) return 'a time needs a zone (Z for UTC, or an offset such as +02:00)';
  if (Number(h) > 23) return `hour ${h} is past 23`;
  if (Number(mi) > 59) return `minute ${mi} is past 59`;
  if (s !== undefined && Number(s) > 59) return `second ${s} is past 59 (leap seconds are not accepted)`;
  const offset = /^[+-](\d{2}):?(\d{2})?$/.exec(zone);
  if (offset && (Number(offset[1]) > 23 || Number(offset[2] ?? 0) > 59)) return `the offset ${zone} is not a time zone offset`;
  return null;
}

function offsetMinutes(zone: string | undefined): number {
  const offset = zone === undefined ? null : /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!offset) return 0;
  const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
  return offset[1] === '-' ? -minutes : minutes;
}

/**
 * The instant an ISO 8601 date or zoned date-time names, strictly (see above). `what` names the
 * input in the message of the INVALID_ARGUMENT it throws otherwise, e.g. `--older-than`.
 */
export function parseIsoDate(text: string, what = 'the date'): Date {
  const fields = typeof text === 'string' ? SHAPE.exec(text.trim()) : null;
  if (!fields) throw floeError('INVALID_ARGUMENT', `${what} ${JSON.stringify(text)} is not an ISO 8601 date; ${EXAMPLES}`);
  const problem = problemOf(fields);
  if (problem) throw floeError('INVALID_ARGUMENT', `${what} ${JSON.stringify(text)} is not a real date: ${problem}; ${EXAMPLES}`);
  const [, y, mo, d, h, mi, s, fraction, zone] = fields;
  const days = daysFromEpoch(Number(y), Number(mo), Number(d));
  const minutes = days * 1440 + Number(h ?? 0) * 60 + Number(mi ?? 0) - offsetMinutes(zone);
  const ms = Number(((fraction ?? '') + '000').slice(0, 3));
  return new Date(minutes * 60_000 + Number(s ?? 0) * 1000 + ms);
}
