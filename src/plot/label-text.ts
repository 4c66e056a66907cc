// Coordinate values as text: numbers in their shortest exact form (float32 judged as float32, so
// 0.1f prints as 0.1, not 0.10000000149), CF times as ISO dates at the precision the values need.
// Shared by plot axes and `floe query`'s labelled output. Pure: no Node APIs.
import { instantOf, type TimeScale } from './time-scale.ts';

/** The shortest decimal that reads back as `v` (as float32 when `float32`). */
export function numberLabel(v: number, float32 = false): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(v, -0)) return '0';
  if (!float32) return String(v);
  for (let digits = 1; digits <= 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(v);
}

export type DatePrecision = 'day' | 'minute' | 'second' | 'millisecond';

/** The coarsest precision that shows every date exactly. */
export function datePrecision(dates: Iterable<Date>): DatePrecision {
  let precision: DatePrecision = 'day';
  for (const d of dates) {
    const ms = d.getTime();
    if (!Number.isFinite(ms)) continue;
    if (ms % 1000 !== 0) return 'millisecond';
    if (ms % 60_000 !== 0) precision = 'second';
    else if (ms % 86_400_000 !== 0 && precision === 'day') precision = 'minute';
  }
  return precision;
}

/** ISO 8601 (UTC) cut to `precision`: `2024-07-01`, `2024-07-01T06:00`, ... */
export function dateLabel(date: Date, precision: DatePrecision): string {
  if (!Number.isFinite(date.getTime())) return 'NaT';
  const iso = date.toISOString();
  const t = iso.indexOf('T');
  switch (precision) {
    case 'day':
      return iso.slice(0, t);
    case 'minute':
      return iso.slice(0, t + 6);
    case 'second':
      return iso.slice(0, t + 9);
    case 'millisecond':
      return iso.slice(0, -1);
  }
}

/** Labels for coordinate values: dates for CF time, shortest numbers, strings as they are. */
export function coordinateLabels(values: ArrayLike<number> | readonly string[], time: TimeScale | undefined, float32 = false): string[] {
  const all = Array.from(values as ArrayLike<number | string>);
  if (time) {
    const dates = all.map((v) => instantOf(time, Number(v)));
    const precision = datePrecision(dates);
    return dates.map((d) => dateLabel(d, precision));
  }
  return all.map((v) => (typeof v === 'number' ? numberLabel(v, float32) : v));
}
