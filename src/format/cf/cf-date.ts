// A date of a CF calendar, to the microsecond (cftime's resolution): compares with dates of its
// own calendar (the real-world calendars also with each other), prints as ISO 8601 text and, for
// the real-world calendars, converts to the JS Date of the same instant.
import { floeError } from '../../errors.ts';
import { calendar, calendarName, invalidDate, type CfCalendar, type CfCalendarName } from './calendar.ts';

export const MICROS_PER_DAY = 86_400_000_000;

/** The fields of a {@link CfDate}: a date and time of day on some calendar (time fields default to 0). */
export interface CfDateFields {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour?: number;
  readonly minute?: number;
  readonly second?: number;
  readonly microsecond?: number;
}

/**
 * A date and time on one CF calendar (docs/cf.md): compares with dates of its calendar, prints as
 * ISO 8601 text, and converts back to the stored number exactly. Real-world calendars also give a `Date`.
 */
export class CfDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly microsecond: number;

  /** Use {@link CfDate.of} or {@link CfDate.fromDayNumber}: this constructor trusts its input. */
  private constructor(
    readonly calendar: CfCalendarName,
    /** The calendar's day number (real days since 1970-01-01 for the real-world calendars). */
    readonly dayNumber: number,
    /** Microseconds since midnight, 0 <= x < 86,400,000,000. */
    readonly microOfDay: number,
  ) {
    [this.year, this.month, this.day] = calendarOf(calendar).fromDayNumber(dayNumber);
    let us = microOfDay;
    this.microsecond = us % 1_000_000;
    us = (us - this.microsecond) / 1_000_000;
    this.second = us % 60;
    us = (us - this.second) / 60;
    this.minute = us % 60;
    this.hour = (us - this.minute) / 60;
    Object.freeze(this);
  }

  /** A checked date: impossible fields (`2001-02-29` on noleap, `1582-10-10` on standard) are INVALID_ARGUMENT. */
  static of(calendarAttribute: CfCalendarName | string, fields: CfDateFields): CfDate {
    const name = calendarName(calendarAttribute);
    if (name === undefined) throw floeError('UNSUPPORTED', `calendar ${JSON.stringify(calendarAttribute)} is not a CF calendar; use one of standard, gregorian, proleptic_gregorian, julian, noleap, 365_day, all_leap, 366_day, 360_day`);
    const cal = calendarOf(name);
    const { year, month, day, hour = 0, minute = 0, second = 0, microsecond = 0 } = fields;
    const problem = invalidDate(cal, year, month, day) ?? invalidTime(hour, minute, second, microsecond);
    if (problem) throw floeError('INVALID_ARGUMENT', `${year}-${month}-${day} ${hour}:${minute}:${second}.${microsecond} is not a date of the ${name} calendar: ${problem}`);
    return new CfDate(name, cal.dayNumber(year, month, day), ((hour * 60 + minute) * 60 + second) * 1_000_000 + microsecond);
  }

  /** The date `microOfDay` microseconds after the start of day `dayNumber` (carried into days). */
  static fromDayNumber(name: CfCalendarName, dayNumber: number, microOfDay = 0): CfDate {
    const carry = Math.floor(microOfDay / MICROS_PER_DAY);
    return new CfDate(name, dayNumber + carry, microOfDay - carry * MICROS_PER_DAY);
  }

  /** The JS Date of the same instant (real-world calendars), else undefined. Microseconds are dropped. */
  toDate(): Date | undefined {
    if (!calendarOf(this.calendar).realWorld) return undefined;
    return new Date(this.dayNumber * 86_400_000 + Math.floor(this.microOfDay / 1000));
  }

  /** Negative, zero or positive as this date is before, equal to or after `other`; dates of unrelated calendars are INVALID_ARGUMENT. */
  compare(other: CfDate): number {
    if (other.calendar !== this.calendar && !(calendarOf(this.calendar).realWorld && calendarOf(other.calendar).realWorld)) {
      throw floeError('INVALID_ARGUMENT', `a ${this.calendar} date cannot be compared with a ${other.calendar} date: their days are not the same days`);
    }
    return this.dayNumber - other.dayNumber || this.microOfDay - other.microOfDay;
  }

  /** Whether `other` is the same instant on the same calendar. */
  equals(other: CfDate): boolean {
    return other.calendar === this.calendar && this.compare(other) === 0;
  }

  /** ISO 8601 text, `2001-02-30T06:00:00` (a fraction only when there is one; years outside 0..9999 as ±YYYYYY). */
  toString(): string {
    const y = this.year >= 0 && this.year <= 9999 ? pad(this.year, 4) : (this.year < 0 ? '-' : '+') + pad(Math.abs(this.year), 6);
    const fraction = this.microsecond === 0 ? '' : '.' + pad(this.microsecond, 6).replace(/0+$/, '');
    return `${y}-${pad(this.month, 2)}-${pad(this.day, 2)}T${pad(this.hour, 2)}:${pad(this.minute, 2)}:${pad(this.second, 2)}${fraction}`;
  }

  /** The ISO text of {@link toString}, so JSON carries dates as text. */
  toJSON(): string {
    return this.toString();
  }
}

function calendarOf(name: CfCalendarName): CfCalendar {
  return calendar(name);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function invalidTime(hour: number, minute: number, second: number, microsecond: number): string | null {
  if (![hour, minute, second, microsecond].every(Number.isSafeInteger)) return 'hour, minute, second and microsecond must be integers';
  if (hour < 0 || hour > 23) return `hour ${hour} is not 0..23`;
  if (minute < 0 || minute > 59) return `minute ${minute} is not 0..59`;
  if (second < 0 || second > 59) return `second ${second} is not 0..59`;
  if (microsecond < 0 || microsecond > 999_999) return `microsecond ${microsecond} is not 0..999999`;
  return null;
}
