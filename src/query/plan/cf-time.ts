// CF-convention time coordinates as the query layer compares them with JS Dates: numbers counted
// in `units` like "days since 2000-01-01" on a real-world calendar (standard, gregorian,
// proleptic_gregorian, julian), parsed by src/format/cf/time.ts. A Date is an instant, so every
// real-world calendar maps onto one linearly; `standard` dates before 1582-10-15 are Julian, as
// CF and cftime read them. The idealised calendars (noleap, 360_day, ...) have no Dates and are
// refused here (a query on them needs CF date labels: docs/cf.md, "Next").
import { floeError } from '../../errors.ts';
import { calendar } from '../../format/cf/calendar.ts';
import { isRefusal, parseTimeUnits, type CfTimeCoding } from '../../format/cf/time.ts';

export interface CfTime {
  readonly units: string;
  /** Milliseconds in one coordinate unit. */
  readonly unitMs: number;
  /** The reference instant, ms since 1970 UTC. */
  readonly epochMs: number;
}

/**
 * A time coordinate's encoding on any CF calendar, with its Date mapping for the real-world
 * ones; undefined when the attributes do not describe time (or name a unit cftime does not know).
 * An unknown calendar is UNSUPPORTED.
 */
export function coordinateTime(units: unknown, calendarAttribute: unknown, where: string): { readonly cf: CfTimeCoding; readonly time: CfTime | undefined } | undefined {
  const cf = parseTimeUnits(units, calendarAttribute, where);
  if (cf === undefined || (isRefusal(cf) && cf.reason === 'unit')) return undefined;
  if (isRefusal(cf)) throw floeError('UNSUPPORTED', cf.warning, { where });
  return { cf, time: calendar(cf.calendar).realWorld ? parseCfTime(units, calendarAttribute, where) : undefined };
}

/** Parses CF `units` (+ `calendar`) for JS Dates; undefined when the attributes do not describe time. */
export function parseCfTime(units: unknown, calendarAttribute: unknown, where: string): CfTime | undefined {
  const time = parseTimeUnits(units, calendarAttribute, where);
  if (time === undefined || (isRefusal(time) && time.reason === 'unit')) return undefined;
  if (isRefusal(time) || !calendar(time.calendar).realWorld) {
    throw floeError('UNSUPPORTED', `calendar ${JSON.stringify(calendarAttribute)} with units ${JSON.stringify(units)} cannot be compared with JS Dates (only standard, gregorian, proleptic_gregorian and julian)`, { where });
  }
  const reference = time.reference;
  return Object.freeze({ units: time.units, unitMs: time.unitMicros / 1000, epochMs: reference.dayNumber * 86_400_000 + reference.microOfDay / 1000 });
}

export function dateToCf(time: CfTime, date: Date): number {
  return (date.getTime() - time.epochMs) / time.unitMs;
}

export function cfToDate(time: CfTime, value: number): Date {
  return new Date(time.epochMs + value * time.unitMs);
}
