// The labels of a dimension: its 1-D coordinate array (named like the dimension, beside the array,
// as the query planner finds it), read through the read seam. `plot` titles axes with it and
// `query` prints it beside the values. A dimension without a usable coordinate (none, another
// length, a calendar JS Dates cannot hold) is labelled by position instead of failing the command.
import { isFloeError } from '../errors.ts';
import { nodeMetadata, type ReadSource } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { joinPath, parentPath } from '../format/zarr/paths.ts';
import { CfDate } from '../format/cf/cf-date.ts';
import { cfDateTicks } from '../format/cf/date-ticks.ts';
import type { AxisCalendar } from '../plot/axis.ts';
import { decodeTime, type CfTimeCoding } from '../format/cf/time.ts';
import type { CfTime } from '../query/plan/cf-time.ts';
import { loadCoordinate } from '../query/plan/coordinate.ts';
import { coordinateLabels } from '../plot/label-text.ts';

/** Coordinates longer than this are not read just to label output. */
const MAX_LABELS = 10_000_000;

export interface DimCoordinate {
  readonly path: string;
  /** Every label of the dimension (numbers, or strings for string coordinates). */
  readonly values: Float64Array | readonly string[];
  readonly units: string | undefined;
  readonly time: CfTime | undefined;
  /** CF time on any calendar: labels are its dates (docs/cf.md). */
  readonly cfTime: CfTimeCoding | undefined;
  readonly float32: boolean;
}

/** The coordinate of dimension `dim` (length `length`) of the array at `arrayPath`, if one fits. */
export async function loadDimCoordinate(source: ReadSource, arrayPath: string, dim: string, length: number, request?: AbortOptions): Promise<DimCoordinate | undefined> {
  if (dim.startsWith('#')) return undefined; // an unnamed dimension (the planner's `#i`)
  const path = joinPath(parentPath(arrayPath), dim);
  const node = await source.node(path, request);
  if (!node || node.kind !== 'array') return undefined;
  const meta = nodeMetadata(node);
  if (meta.nodeType !== 'array' || meta.shape.length !== 1 || meta.shape[0] !== length || length > MAX_LABELS) return undefined;
  try {
    const c = await loadCoordinate(source.store, path, dim, MAX_LABELS);
    const units = typeof meta.attributes.units === 'string' ? meta.attributes.units : undefined;
    return { path, values: c.values, units, time: c.time, cfTime: c.cfTime, float32: c.dtype === 'float32' || c.dtype === 'float16' };
  } catch (err) {
    if (isFloeError(err, 'UNSUPPORTED', 'INVALID_ARGUMENT')) return undefined; // no label order or an unknown calendar
    throw err;
  }
}

/** The coordinate values at `indices` (positions when there is no coordinate). */
export function valuesAt(coordinate: DimCoordinate | undefined, indices: readonly number[]): Float64Array | string[] | undefined {
  if (!coordinate) return undefined;
  const all = coordinate.values;
  if (all instanceof Float64Array) return Float64Array.from(indices, (i) => all[i] ?? NaN);
  return indices.map((i) => all[i] ?? '');
}

/** Text labels at `indices`: dates for CF time (on its calendar), shortest numbers, strings, or the positions themselves. */
export function labelsAt(coordinate: DimCoordinate | undefined, indices: readonly number[]): string[] {
  const values = valuesAt(coordinate, indices);
  if (!values) return indices.map(String);
  const cf = coordinate?.cfTime;
  if (cf && values instanceof Float64Array) return cfDateLabels(Array.from(values, (v) => decodeTime(cf, v, coordinate.path)));
  return coordinateLabels(values, coordinate?.time, coordinate?.float32 ?? false);
}

/**
 * A plot axis's calendar for a CF time coordinate whose dates JS Dates cannot show right: the
 * idealised calendars, `julian`, and `standard` with dates before its 1582-10-15 switch. Other
 * time coordinates (Gregorian dates) keep the plot layer's own date axis.
 */
export function cfAxisCalendar(coordinate: DimCoordinate | undefined): AxisCalendar | undefined {
  const cf = coordinate?.cfTime;
  if (!cf || !(coordinate.values instanceof Float64Array)) return undefined;
  if (coordinate.time && (cf.calendar === 'proleptic_gregorian' || (cf.calendar === 'standard' && afterSwitch(cf, coordinate.values)))) return undefined;
  return {
    name: cf.calendar,
    ticks: (lo, hi, maxTicks) => cfDateTicks(cf, lo, hi, maxTicks),
    labels: (values) => cfDateLabels(Array.from(values, (v) => decodeTime(cf, v, coordinate.path))),
  };
}

function afterSwitch(cf: CfTimeCoding, values: Float64Array): boolean {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
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
