// A dimension's 1-D coordinate array (same name, same group), read whole once and kept as plain
// numbers or strings with its order detected, so label predicates can binary-search it.
import { floeError, isFloeError } from '../../errors.ts';
import { openArray } from '../../engine/api.ts';
import type { ZarrArray } from '../../engine/array.ts';
import type { ZarrStore } from '../../engine/store.ts';
import type { ArrayData } from '../../format/zarr/data-types.ts';
import type { CfTimeCoding } from '../../format/cf/time.ts';
import type { CfTime } from './cf-time.ts';
import { limitExceeded } from './plan-limits.ts';

export type CoordinateOrder = 'ascending' | 'descending' | 'unsorted';

export interface Coordinate {
  readonly path: string;
  readonly dim: string;
  readonly dtype: string;
  /** Numbers for numeric and bool coordinates (int64 converted: exact up to 2^53), strings otherwise. */
  readonly values: Float64Array | readonly string[];
  /** Non-strict: repeated labels still sort. NaN anywhere makes a numeric coordinate unsorted. */
  readonly order: CoordinateOrder;
  /** CF time on a real-world calendar (standard, proleptic_gregorian, julian): labels as JS Dates. */
  readonly time: CfTime | undefined;
  /** CF time on any calendar: labels as CfDates or date text (`2001-02-30` on 360_day). */
  readonly cfTime?: CfTimeCoding | undefined;
}

export function coordinateBytes(c: Coordinate): number {
  return c.values instanceof Float64Array ? c.values.byteLength : c.values.reduce((n, s) => n + 2 * s.length + 16, 0);
}

export async function loadCoordinate(store: ZarrStore, path: string, dim: string, maxLabels: number): Promise<Coordinate> {
  let array: ZarrArray;
  try {
    array = await openArray(store, path, { decodePool: false });
  } catch (err) {
    if (!isFloeError(err, 'NOT_FOUND', 'NODE_TYPE_MISMATCH')) throw err;
    throw floeError('NOT_FOUND', `dimension "${dim}" has no coordinate array at ${path}, so labels cannot be resolved; use whereIndex("${dim}", start, stop) for positions`, {
      cause: err, details: { dim, path },
    });
  }
  if (array.shape.length !== 1) {
    throw floeError('INVALID_ARGUMENT', `coordinate array ${path} for dimension "${dim}" has shape [${array.shape.join(', ')}], expected one dimension`, { details: { dim, path } });
  }
  // Read whole, so its length (which also bounds its chunk count) is checked before reading.
  const [length = 0] = array.shape;
  if (length > maxLabels) throw limitExceeded('maxCoordinateLabels', length, maxLabels, path);
  const kind = array.dataType.kind;
  if (kind === 'complex' || kind === 'raw' || kind === 'binary') {
    throw floeError('UNSUPPORTED', `coordinate array ${path} has data type ${array.dtype}, which has no label order`, { details: { dim, path } });
  }
  const raw = (await array.get(undefined, { decodePool: false })).data;
  const values = toLabels(raw);
  const { units, calendar } = array.attributes;
  // CF time units ("days since ...") load their parser on first use (docs/cf.md).
  const coded = values instanceof Float64Array && typeof units === 'string' && /\ssince\s/i.test(units)
    ? (await import('./cf-time.ts')).coordinateTime(units, calendar, path) : undefined;
  return Object.freeze({ path, dim, dtype: array.dtype, values, order: detectOrder(values), time: coded?.time, cfTime: coded?.cf });
}

function toLabels(data: ArrayData): Float64Array | readonly string[] {
  if (Array.isArray(data)) return Object.freeze(data.map(String));
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Float64Array.from(data, Number);
  return data instanceof Float64Array ? data : Float64Array.from(data);
}

/** A coordinate must label every index of its dimension. */
export function checkCoordinateLength(c: Coordinate, length: number): Coordinate {
  if (c.values.length !== length) {
    throw floeError('INVALID_ARGUMENT', `coordinate array ${c.path} for dimension "${c.dim}" has ${c.values.length} labels, the dimension has length ${length}`, { details: { dim: c.dim, path: c.path } });
  }
  return c;
}

function detectOrder(values: Float64Array | readonly string[]): CoordinateOrder {
  return values instanceof Float64Array ? numberOrder(values) : stringOrder(values);
}

/**
 * An indexed loop, not for..of: it runs once per coordinate load over every label, mostly before
 * V8 optimises it, and there each for..of step allocates an iterator result.
 */
function numberOrder(values: Float64Array): CoordinateOrder {
  let asc = true;
  let desc = true;
  let prev = NaN;
  for (let i = 0; i < values.length; i++) {
    // i < length, so `v` is a number; `?? NaN` only settles the type (NaN reads as unsorted).
    const v = values[i] ?? NaN;
    // A NaN label compares false both ways: no binary search can find it.
    if (Number.isNaN(v)) return 'unsorted';
    if (i > 0) {
      if (prev > v) asc = false;
      if (prev < v) desc = false;
      if (!asc && !desc) return 'unsorted';
    }
    prev = v;
  }
  return asc ? 'ascending' : desc ? 'descending' : 'unsorted';
}

function stringOrder(values: readonly string[]): CoordinateOrder {
  let asc = true;
  let desc = true;
  let prev: string | undefined;
  for (const v of values) {
    if (prev !== undefined) {
      if (prev > v) asc = false;
      if (prev < v) desc = false;
      if (!asc && !desc) return 'unsorted';
    }
    prev = v;
  }
  return asc ? 'ascending' : desc ? 'descending' : 'unsorted';
}
