// The CF calendars (CF 1.11 §4.4.1) as day arithmetic: each maps a (year, month, day) onto a
// day number and back. The real-world calendars (standard, proleptic_gregorian, julian) count
// real days since 1970-01-01 (proleptic Gregorian), so their dates compare across the three; the
// idealised ones (noleap, all_leap, 360_day) count days since their own year 0, January 1.
// Years as cftime 1.6 numbers them: standard and julian have no year 0 (1 BC is -1); the others
// have one (astronomical numbering).
import { daysFromEpoch, isLeapYear } from '../iso-date.ts';

/** A CF calendar by its canonical name (aliases: gregorian, 365_day, 366_day). */
export type CfCalendarName = 'standard' | 'proleptic_gregorian' | 'julian' | 'noleap' | 'all_leap' | '360_day';

export interface CfCalendar {
  readonly name: CfCalendarName;
  /** Whether year 0 exists (else the year before 1 is -1). */
  readonly hasYearZero: boolean;
  /** Whether its day numbers are real days since 1970-01-01 (a JS Date can hold its dates). */
  readonly realWorld: boolean;
  daysInMonth(year: number, month: number): number;
  /** The day number of a valid date (check with {@link validDate} first). */
  dayNumber(year: number, month: number, day: number): number;
  /** The date of a day number: [year, month, day]. */
  fromDayNumber(n: number): [number, number, number];
}

const ALIASES: Readonly<Record<string, CfCalendarName>> = {
  standard: 'standard', gregorian: 'standard', proleptic_gregorian: 'proleptic_gregorian',
  julian: 'julian', noleap: 'noleap', '365_day': 'noleap', all_leap: 'all_leap', '366_day': 'all_leap',
  '360_day': '360_day',
};

/** The canonical name of a `calendar` attribute (case-insensitive; absent means standard), or undefined. */
export function calendarName(attribute: unknown): CfCalendarName | undefined {
  if (attribute === undefined || attribute === null) return 'standard';
  return typeof attribute === 'string' ? ALIASES[attribute.trim().toLowerCase()] : undefined;
}

const floor = Math.floor;
const CUMULATIVE_365 = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
const CUMULATIVE_366 = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366];
const MONTH_DAYS_365 = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function gregorianDate(n: number): [number, number, number] {
  const z = n + 719468;
  const era = floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100));
  return fromMarchBased(yoe + era * 400, doy);
}

/** A March-based year and day of year as a January-based date. */
function fromMarchBased(y: number, doy: number): [number, number, number] {
  const mp = floor((5 * doy + 2) / 153);
  const day = doy - floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [month <= 2 ? y + 1 : y, month, day];
}

function marchDayOfYear(month: number, day: number): number {
  return floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
}

/** Julian calendar (astronomical year) day count, before the shift onto real days. */
function julianCount(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  return 365 * y + floor(y / 4) + marchDayOfYear(month, day);
}
/** Julian 1582-10-05 is Gregorian 1582-10-15: the shift that puts Julian counts on real days. */
const JULIAN_SHIFT = daysFromEpoch(1582, 10, 15) - julianCount(1582, 10, 5);

function julianDays(year: number, month: number, day: number): number {
  return julianCount(year, month, day) + JULIAN_SHIFT;
}

function julianDate(n: number): [number, number, number] {
  const z = n - JULIAN_SHIFT;
  const y = floor((4 * z + 3) / 1461);
  return fromMarchBased(y, z - (365 * y + floor(y / 4)));
}

function julianLeap(year: number): boolean {
  return ((year % 4) + 4) % 4 === 0;
}

/** Years without a year 0 (-1 is 1 BC) to astronomical years and back. */
const toAstronomical = (year: number): number => (year < 0 ? year + 1 : year);
const fromAstronomical = (year: number): number => (year <= 0 ? year - 1 : year);

function monthLength(leap: boolean, month: number): number {
  return month === 2 && leap ? 29 : MONTH_DAYS_365[month - 1]!;
}

/** The last Julian day (1582-10-04) and the first Gregorian day (1582-10-15) of `standard`. */
const SWITCH_DAY = daysFromEpoch(1582, 10, 15);

function beforeSwitch(year: number, month: number, day: number): boolean {
  return year < 1582 || (year === 1582 && (month < 10 || (month === 10 && day < 15)));
}

const PROLEPTIC: CfCalendar = {
  name: 'proleptic_gregorian', hasYearZero: true, realWorld: true,
  daysInMonth: (y, m) => monthLength(isLeapYear(y), m),
  dayNumber: (y, m, d) => daysFromEpoch(y, m, d),
  fromDayNumber: gregorianDate,
};

const JULIAN: CfCalendar = {
  name: 'julian', hasYearZero: false, realWorld: true,
  daysInMonth: (y, m) => monthLength(julianLeap(toAstronomical(y)), m),
  dayNumber: (y, m, d) => julianDays(toAstronomical(y), m, d),
  fromDayNumber: (n) => {
    const [y, m, d] = julianDate(n);
    return [fromAstronomical(y), m, d];
  },
};

const STANDARD: CfCalendar = {
  name: 'standard', hasYearZero: false, realWorld: true,
  daysInMonth: (y, m) => (y === 1582 && m === 10 ? 31 : beforeSwitch(y, m, 1) ? JULIAN.daysInMonth(y, m) : PROLEPTIC.daysInMonth(y, m)),
  dayNumber: (y, m, d) => (beforeSwitch(y, m, d) ? JULIAN.dayNumber(y, m, d) : daysFromEpoch(y, m, d)),
  fromDayNumber: (n) => (n < SWITCH_DAY ? JULIAN.fromDayNumber(n) : gregorianDate(n)),
};

function fixedYear(name: 'noleap' | 'all_leap', cumulative: readonly number[]): CfCalendar {
  const length = cumulative[12]!;
  return {
    name, hasYearZero: true, realWorld: false,
    daysInMonth: (_y, m) => cumulative[m]! - cumulative[m - 1]!,
    dayNumber: (y, m, d) => y * length + cumulative[m - 1]! + d - 1,
    fromDayNumber: (n) => {
      const year = floor(n / length);
      const doy = n - year * length;
      let month = 1;
      while (cumulative[month]! <= doy) month++;
      return [year, month, doy - cumulative[month - 1]! + 1];
    },
  };
}

const DAY_360: CfCalendar = {
  name: '360_day', hasYearZero: true, realWorld: false,
  daysInMonth: () => 30,
  dayNumber: (y, m, d) => y * 360 + (m - 1) * 30 + d - 1,
  fromDayNumber: (n) => {
    const year = floor(n / 360);
    const doy = n - year * 360;
    return [year, floor(doy / 30) + 1, (doy % 30) + 1];
  },
};

const CALENDARS: Readonly<Record<CfCalendarName, CfCalendar>> = {
  standard: STANDARD, proleptic_gregorian: PROLEPTIC, julian: JULIAN,
  noleap: fixedYear('noleap', CUMULATIVE_365), all_leap: fixedYear('all_leap', CUMULATIVE_366), '360_day': DAY_360,
};

export function calendar(name: CfCalendarName): CfCalendar {
  return CALENDARS[name];
}

/** Why (year, month, day) is not a date of `cal`, or null when it is one. */
export function invalidDate(cal: CfCalendar, year: number, month: number, day: number): string | null {
  if (![year, month, day].every(Number.isSafeInteger)) return 'year, month and day must be integers';
  if (year === 0 && !cal.hasYearZero) return `the ${cal.name} calendar has no year 0 (the year before 1 is -1)`;
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const days = cal.daysInMonth(year, month);
  if (day < 1 || day > days) return `month ${month} of ${year} has ${days} days in the ${cal.name} calendar, not ${day}`;
  if (cal.name === 'standard' && year === 1582 && month === 10 && day > 4 && day < 15) {
    return '1582-10-05 to 1582-10-14 do not exist in the standard calendar (Julian until 10-04, Gregorian from 10-15)';
  }
  return null;
}
