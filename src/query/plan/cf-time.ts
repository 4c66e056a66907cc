// CF-convention time coordinates: numbers counted in `units` like "days since 2000-01-01" (or
// "hours since 1979-01-01 00:00:00"), so a JS Date converts to the coordinate's own number.
// Only the standard (proleptic) Gregorian calendar maps onto JS Dates; others are refused.
import { floeError } from '../../errors.ts';

export interface CfTime {
  readonly units: string;
  /** Milliseconds in one coordinate unit. */
  readonly unitMs: number;
  /** The reference instant, ms since 1970 UTC. */
  readonly epochMs: number;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  millisecond: 1, milliseconds: 1, ms: 1,
  second: 1000, seconds: 1000, sec: 1000, secs: 1000, s: 1000,
  minute: 60_000, minutes: 60_000, min: 60_000, mins: 60_000,
  hour: 3_600_000, hours: 3_600_000, hr: 3_600_000, hrs: 3_600_000, h: 3_600_000,
  day: 86_400_000, days: 86_400_000, d: 86_400_000,
  week: 604_800_000, weeks: 604_800_000,
};

const GREGORIAN = new Set(['standard', 'gregorian', 'proleptic_gregorian']);

/** Parses CF `units` (+ `calendar`); undefined when the attributes do not describe time. */
export function parseCfTime(units: unknown, calendar: unknown, where: string): CfTime | undefined {
  if (typeof units !== 'string') return undefined;
  const m = /^\s*([A-Za-z]+)\s+since\s+(.+?)\s*$/.exec(units);
  const [, unit, reference] = m ?? [];
  if (unit === undefined || reference === undefined) return undefined;
  const unitMs = UNIT_MS[unit.toLowerCase()];
  if (unitMs === undefined) return undefined;
  if (calendar !== undefined && !(typeof calendar === 'string' && GREGORIAN.has(calendar.toLowerCase()))) {
    throw floeError('UNSUPPORTED', `calendar ${JSON.stringify(calendar)} cannot be compared with JS Dates (only standard/gregorian)`, { where });
  }
  const epochMs = parseReference(reference);
  if (epochMs === undefined) return undefined;
  return Object.freeze({ units, unitMs, epochMs });
}

/** "2000-01-01", "2000-1-1 00:00:00", "2000-01-01T06:00:00Z", "1979-01-01 00:00:00.0 +1:00". UTC unless offset. */
function parseReference(text: string): number | undefined {
  const m = /^(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?$/i.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, hh = '0', mi = '0', ss = '0', zone] = m;
  const seconds = Number(ss);
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi), Math.floor(seconds), Math.round((seconds % 1) * 1000));
  // Date.UTC maps years 0..99 to 1900..1999; CF means the literal year.
  const date = new Date(base);
  if (Number(y) >= 0 && Number(y) < 100) date.setUTCFullYear(Number(y));
  return date.getTime() - zoneOffsetMs(zone);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || /^(z|utc)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

export function dateToCf(time: CfTime, date: Date): number {
  return (date.getTime() - time.epochMs) / time.unitMs;
}

export function cfToDate(time: CfTime, value: number): Date {
  return new Date(time.epochMs + value * time.unitMs);
}
