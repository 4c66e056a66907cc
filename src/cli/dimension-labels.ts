// The labels of a dimension: its 1-D coordinate array (named like the dimension, beside the array,
// as the query planner finds it), read through the read seam. `plot` titles axes with it and
// `query` prints it beside the values. A dimension without a usable coordinate (none, another
// length, a calendar JS Dates cannot hold) is labelled by position instead of failing the command.
import { isFloeError } from '../errors.ts';
import { nodeMetadata, type ReadSource } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { joinPath, parentPath } from '../format/zarr/paths.ts';
import type { AxisCalendar } from '../plot/axis.ts';
import { decodeTime, type CfTimeCoding } from '../format/cf/time.ts';
import { cfAxisCalendar as sharedAxisCalendar, cfDateLabels } from '../query/plan/cf-axis.ts';
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

/** A plot axis's calendar for a CF time coordinate whose dates JS Dates cannot show right (src/query/plan/cf-axis.ts). */
export function cfAxisCalendar(coordinate: DimCoordinate | undefined): AxisCalendar | undefined {
  if (!coordinate || !(coordinate.values instanceof Float64Array)) return undefined;
  return sharedAxisCalendar(coordinate.cfTime, coordinate.time !== undefined, coordinate.values, coordinate.path);
}
