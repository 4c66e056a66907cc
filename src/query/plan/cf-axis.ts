// Date labels and calendar ticks for a CF time coordinate on any calendar (docs/cf.md), shaped as
// src/plot's AxisCalendar (structurally: this layer does not import plot). `floe plot` and the
// viewer page (src/ui) both label their axes with it, so their dates agree. Pure: no Node APIs.
import { CfDate } from '../../format/cf/cf-date.ts';
import { cfDateTicks, type CfDateTick } from '../../format/cf/date-ticks.ts';
import { decodeTime, type CfTimeCoding } from '../../format/cf/time.ts';

/** A date axis on the coordinate's own calendar: src/plot's AxisCalendar. */
export interface CfAxisCalendar {
  readonly name: string;
  ticks(lo: number, hi: number, maxTicks: number): CfDateTick[];
  labels(values: ArrayLike<number>): string[];
}

/**
 * The calendar axis of a CF time coordinate whose dates JS Dates cannot show right: the
 * idealised calendars, `julian`, and `standard` with dates before its 1582-10-15 switch.
 * Undefined for the others (Gregorian dates: the plot layer's own date axis, from `realWorld`).
 */
export function cfAxisCalendar(cf: CfTimeCoding | undefined, realWorld: boolean, values: ArrayLike<number>, where: string): CfAxisCalendar | undefined {
  if (!cf) return undefined;
  if (realWorld && (cf.calendar === 'proleptic_gregorian' || (cf.calendar === 'standard' && afterSwitch(cf, values)))) return undefined;
  return {
    name: cf.calendar,
    ticks: (lo, hi, maxTicks) => cfDateTicks(cf, lo, hi, maxTicks),
    labels: (stored) => cfDateLabels(Array.from(stored, (v) => decodeTime(cf, v, where))),
  };
}

function afterSwitch(cf: CfTimeCoding, values: ArrayLike<number>): boolean {
  let min = Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? NaN;
    if (v < min) min = v;
  }
  const first = Number.isFinite(min) ? decodeTime(cf, min) : null;
  return first === null || first.compare(CfDate.of('standard', { year: 1582, month: 10, day: 15 })) >= 0;
}

/** CfDates as ISO text cut to the coarsest precision that shows each exactly (`2001-02-30`, `...T06:00`); `NaT` where missing. */
export function cfDateLabels(dates: readonly (CfDate | null)[]): string[] {
  let keep = 0; // characters after 'T': 0 (day), 5 (minute), 8 (second), all
  for (const d of dates) {
    if (d === null) continue;
    if (d.microsecond !== 0) keep = Infinity;
    else if (d.second !== 0) keep = Math.max(keep, 8);
    else if (d.hour !== 0 || d.minute !== 0) keep = Math.max(keep, 5);
  }
  return dates.map((d) => {
    if (d === null) return 'NaT';
    const text = d.toString();
    const t = text.indexOf('T');
    return keep === 0 ? text.slice(0, t) : text.slice(0, t + 1 + keep);
  });
}
