// CF time coordinates (CF 1.11 §4.4): numbers counted in `units` "UNIT since DATE" on a
// `calendar`, decoded to CfDates and encoded back. Arithmetic is in whole days plus microseconds
// of the day, so a count of any size stays exact (a stored int64 past 2^53 goes through BigInt),
// and a fraction rounds to the microsecond as cftime does.
import { floeError } from '../../errors.ts';
import { calendarName, type CfCalendarName } from './calendar.ts';
import { CfDate, MICROS_PER_DAY } from './cf-date.ts';

/** A parsed time encoding: what one stored unit is and where counting starts. */
export interface CfTimeCoding {
  /** The `units` attribute as written. */
  readonly units: string;
  readonly calendar: CfCalendarName;
  /** The unit's canonical name: microseconds, milliseconds, seconds, minutes, hours, days, weeks, months (360_day), common_years (noleap). */
  readonly unit: string;
  /** Microseconds in one unit. */
  readonly unitMicros: number;
  /** The date `0` stands for (the units' date, moved to UTC by its zone). */
  readonly reference: CfDate;
}

/** Why a time encoding is left undecoded (a warning), when it is CF-shaped but not decodable. */
export interface CfTimeRefusal {
  readonly warning: string;
  /** What is not decodable: the unit (not a time unit, or months/years where they have no fixed length) or the calendar. */
  readonly reason: 'unit' | 'calendar';
}

const DAY = MICROS_PER_DAY;
const UNIT_NAMES: Readonly<Record<string, readonly [string, number]>> = {};
for (const [canonical, micros, ...aliases] of [
  ['microseconds', 1, 'microsecond', 'us', 'usec', 'usecs'],
  ['milliseconds', 1000, 'millisecond', 'ms', 'msec', 'msecs'],
  ['seconds', 1e6, 'second', 's', 'sec', 'secs'],
  ['minutes', 6e7, 'minute', 'min', 'mins'],
  ['hours', 3.6e9, 'hour', 'h', 'hr', 'hrs'],
  ['days', DAY, 'day', 'd'],
  ['weeks', 7 * DAY, 'week'],
  ['months', 30 * DAY, 'month'],
  ['common_years', 365 * DAY, 'common_year'],
] as const) {
  for (const name of [canonical, ...aliases]) (UNIT_NAMES as Record<string, readonly [string, number]>)[name] = [canonical, micros];
}

/** A duration's unit ("hours" with no "since"): its canonical name and microseconds, else undefined. */
export function durationUnit(units: unknown): { readonly unit: string; readonly unitMicros: number } | undefined {
  if (typeof units !== 'string') return undefined;
  const entry = UNIT_NAMES[units.trim().toLowerCase()];
  return entry && entry[0] !== 'months' && entry[0] !== 'common_years' ? { unit: entry[0], unitMicros: entry[1] } : undefined;
}

const SINCE = /^\s*([A-Za-z_]+)\s+since\s+(.*?)\s*$/i;
const REFERENCE = /^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?$/i;

/** Whether `units` has the "UNIT since DATE" shape of a time coordinate. */
export function isTimeUnits(units: unknown): units is string {
  return typeof units === 'string' && SINCE.test(units);
}

/**
 * The time encoding of `units` and `calendar`; undefined when `units` is not "UNIT since DATE".
 * A refusal (warning, values stay numbers): an unknown calendar, an unknown unit, or months/years
 * where cftime does not define them (months only on 360_day, common_years only on noleap; never
 * "years"). A malformed date after "since" is INVALID_METADATA.
 */
export function parseTimeUnits(units: unknown, calendarAttribute: unknown, where: string): CfTimeCoding | CfTimeRefusal | undefined {
  if (typeof units !== 'string') return undefined;
  const since = SINCE.exec(units);
  if (!since) return undefined;
  const [, unitText = '', referenceText = ''] = since;
  const name = calendarName(calendarAttribute);
  if (name === undefined) return { reason: 'calendar', warning: `${where}: calendar ${JSON.stringify(calendarAttribute)} is not a CF calendar; time values are left as stored numbers` };
  const lower = unitText.toLowerCase();
  if (lower === 'years' || lower === 'year' || (lower.startsWith('month') && name !== '360_day') || (lower.startsWith('common_year') && name !== 'noleap')) {
    return { reason: 'unit', warning: `${where}: "${unitText} since" has no fixed length on the ${name} calendar (cftime allows months only on 360_day, common_years only on noleap); time values are left as stored numbers` };
  }
  const entry = UNIT_NAMES[lower];
  if (entry === undefined) return { reason: 'unit', warning: `${where}: units ${JSON.stringify(units)}: "${unitText}" is not a time unit cftime knows (days, hours, minutes, seconds, milliseconds, microseconds); values are left as stored numbers` };
  const reference = parseReference(referenceText, name);
  if (typeof reference === 'string') throw floeError('INVALID_METADATA', `units ${JSON.stringify(units)}: the date after "since" ${reference}; write e.g. "days since 1850-01-01" or "hours since 2000-01-01 06:00:00"`, { where });
  return Object.freeze({ units, calendar: name, unit: entry[0], unitMicros: entry[1], reference });
}

export function isRefusal(time: CfTimeCoding | CfTimeRefusal | undefined): time is CfTimeRefusal {
  return time !== undefined && 'warning' in time;
}

/**
 * A date written as text (`2001-02-30`, `1850-01-01 12:00`, `2000-01-01T06:00:00+06:00`) on a
 * calendar: the CfDate, or why it is not one (a date that does not exist in the calendar too).
 */
export function parseDateText(text: string, name: CfCalendarName): CfDate | string {
  return parseReference(text.trim(), name);
}

function parseReference(text: string, name: CfCalendarName): CfDate | string {
  const m = REFERENCE.exec(text);
  if (!m) return `${JSON.stringify(text)} is not a date`;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = m;
  let date: CfDate;
  try {
    const microsecond = Math.round(Number(`0.${fraction || '0'}`) * 1e6);
    date = CfDate.of(name, { year: Number(y), month: Number(mo), day: Number(d), hour: Number(h), minute: Number(mi), second: Number(s), microsecond: Math.min(microsecond, 999_999) });
  } catch (err) {
    return `is not a date of the ${name} calendar (${(err as Error).message})`;
  }
  const offset = zoneMicros(zone);
  return offset === 0 ? date : CfDate.fromDayNumber(name, date.dayNumber, date.microOfDay - offset);
}

function zoneMicros(zone: string | undefined): number {
  const m = zone === undefined ? null : /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -minutes : minutes) * 60_000_000;
}

/** Dates Floe holds: years within about ±1,000,000 (cftime's own limit is near there too). */
const MAX_DAYS = 365_250_000;

/** The date a stored number stands for; null for NaN or an infinity (missing). UNSUPPORTED past ±1,000,000 years. */
export function decodeTime(time: CfTimeCoding, value: number | bigint, where = ''): CfDate | null {
  let days: number;
  let micros: number;
  const U = time.unitMicros;
  if (typeof value === 'bigint' || Math.abs(value) >= 2 ** 53) {
    if (typeof value === 'number' && !Number.isFinite(value)) return null;
    const whole = BigInt(value);
    if (U >= DAY) {
      const d = whole * BigInt(U / DAY);
      checkDays(d, value, where);
      [days, micros] = [Number(d), 0];
    } else {
      const perDay = BigInt(DAY / U);
      let d = whole / perDay;
      let r = whole - d * perDay;
      if (r < 0n) [d, r] = [d - 1n, r + perDay];
      checkDays(d, value, where);
      [days, micros] = [Number(d), Number(r) * U];
    }
  } else {
    if (!Number.isFinite(value)) return null;
    const whole = Math.floor(value);
    const fraction = value - whole;
    if (U >= DAY) {
      days = whole * (U / DAY);
      micros = Math.round(fraction * U);
    } else {
      const perDay = DAY / U;
      days = Math.floor(whole / perDay);
      micros = (whole - days * perDay) * U + Math.round(fraction * U);
    }
    checkDays(days, value, where);
  }
  return CfDate.fromDayNumber(time.calendar, time.reference.dayNumber + days, time.reference.microOfDay + micros);
}

function checkDays(days: number | bigint, value: number | bigint, where: string): void {
  if (days > MAX_DAYS || days < -MAX_DAYS) {
    throw floeError('UNSUPPORTED', `time value ${value} is more than 1,000,000 years from its reference date; Floe's dates do not reach that far: read it with decode: 'none'`, { where });
  }
}

/**
 * The stored number of `date` (a float64 count of units; exact when the date is a whole number
 * of units from the reference, or a fraction of one whose microseconds divide exactly).
 */
export function encodeTime(time: CfTimeCoding, date: CfDate): number {
  checkCalendar(time, date);
  const days = date.dayNumber - time.reference.dayNumber;
  const micros = date.microOfDay - time.reference.microOfDay;
  const U = time.unitMicros;
  return U >= DAY ? (days + micros / DAY) / (U / DAY) : days * (DAY / U) + micros / U;
}

/** The stored int64 of `date`: exact at any size; INVALID_ARGUMENT when it is not a whole number of units. */
export function encodeTimeExact(time: CfTimeCoding, date: CfDate): bigint {
  checkCalendar(time, date);
  const total = BigInt(date.dayNumber - time.reference.dayNumber) * BigInt(DAY) + BigInt(date.microOfDay - time.reference.microOfDay);
  const U = BigInt(time.unitMicros);
  if (total % U !== 0n) throw floeError('INVALID_ARGUMENT', `${date.toString()} is not a whole number of ${time.unit} since ${time.reference.toString()}: an integer time cannot hold it`);
  return total / U;
}

function checkCalendar(time: CfTimeCoding, date: CfDate): void {
  if (date.calendar !== time.calendar) {
    throw floeError('INVALID_ARGUMENT', `a ${date.calendar} date cannot be stored on a ${time.calendar} time axis; make the date with CfDate.of('${time.calendar}', ...)`);
  }
}
