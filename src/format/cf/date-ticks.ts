// Calendar ticks for a CF time axis on any CF calendar (docs/cf.md): the finest of hours, days,
// months and years whose steps put at most `maxTicks` dates inside a span of stored numbers, each
// tick the stored number of a date on the variable's own calendar (1 March after 28 February on
// noleap, 30 February on 360_day) with its ISO text cut to the step (`2001-03`, `1582-10-15`).
// The plot layer, which knows no calendar, takes these through AxisCalendar. Pure arithmetic.
import { calendar, invalidDate } from './calendar.ts';
import { CfDate } from './cf-date.ts';
import { decodeTime, encodeTime, type CfTimeCoding } from './time.ts';

/** One tick: the stored number of its date and the date as text. */
export interface CfDateTick {
  readonly value: number;
  readonly label: string;
}

type Step = { readonly unit: 'hour' | 'day' | 'month'; readonly count: number };

const STEPS: readonly Step[] = [
  ...[1, 2, 3, 6, 12].map((count) => ({ unit: 'hour' as const, count })),
  ...[1, 2, 7, 14].map((count) => ({ unit: 'day' as const, count })),
  ...[1, 2, 3, 6].map((count) => ({ unit: 'month' as const, count })),
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map((count) => ({ unit: 'month' as const, count: 12 * count })),
];

const HOUR = 3_600_000_000;

/** Ticks inside [lo, hi] (stored numbers of `time`), at most `maxTicks`; none when the span holds no date. */
export function cfDateTicks(time: CfTimeCoding, lo: number, hi: number, maxTicks: number): CfDateTick[] {
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return [];
  const first = decodeTime(time, a);
  const last = decodeTime(time, b);
  if (first === null || last === null) return [];
  for (const step of STEPS) {
    const dates = stepDates(time, step, first, last, maxTicks);
    if (dates !== undefined) return dates.map((d) => ({ value: encodeTime(time, d), label: stepLabel(d, step) }));
  }
  return [];
}

/** The dates of one step from `first` to `last`, or undefined when there are more than `limit`. */
function stepDates(time: CfTimeCoding, step: Step, first: CfDate, last: CfDate, limit: number): CfDate[] | undefined {
  const out: CfDate[] = [];
  const keep = (d: CfDate): boolean => {
    if (d.compare(first) >= 0 && d.compare(last) <= 0) out.push(d);
    return out.length <= limit;
  };
  const name = time.calendar;
  if (step.unit === 'hour' || step.unit === 'day') {
    if (last.dayNumber - first.dayNumber > limit * (step.unit === 'day' ? step.count : 1) + 1) return undefined;
    const dayStep = step.unit === 'day' ? step.count : 1;
    for (let day = Math.ceil(first.dayNumber / dayStep) * dayStep; day <= last.dayNumber; day += dayStep) {
      if (step.unit === 'day') {
        if (!keep(CfDate.fromDayNumber(name, day))) return undefined;
        continue;
      }
      for (let hour = 0; hour < 24; hour += step.count) if (!keep(CfDate.fromDayNumber(name, day, hour * HOUR))) return undefined;
    }
    return out;
  }
  const cal = calendar(name);
  const months = step.count;
  const span = (last.year - first.year) * 12 + (last.month - first.month);
  if (span > (limit + 1) * months) return undefined;
  for (let index = Math.ceil((first.year * 12 + first.month - 1) / months) * months; index <= last.year * 12 + last.month - 1; index += months) {
    const year = Math.floor(index / 12);
    const month = index - year * 12 + 1;
    if (invalidDate(cal, year, month, 1) !== null) continue; // year 0 where the calendar has none
    if (!keep(CfDate.of(name, { year, month, day: 1 }))) return undefined;
  }
  return out;
}

function stepLabel(d: CfDate, step: Step): string {
  const text = d.toString();
  const date = text.slice(0, text.indexOf('T'));
  if (step.unit === 'hour') return text.slice(0, date.length + 6);
  if (step.unit === 'day') return date;
  return step.count % 12 === 0 ? date.slice(0, -6) : date.slice(0, -3);
}
