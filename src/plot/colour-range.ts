// The value range a colour map (or a line plot's y axis) spans: the finite data's minimum and
// maximum unless vmin/vmax are given, centred on zero for a diverging map when the data cross
// it. An empty or inverted range is refused, never drawn. Pure: no Node APIs.
import { floeError } from '../errors.ts';

export interface RequestedRange {
  readonly min?: number | undefined;
  readonly max?: number | undefined;
}

export interface ValueRange {
  readonly min: number;
  readonly max: number;
}

/** vmin and vmax both given must be finite with vmin < vmax. */
export function checkRequestedRange(range: RequestedRange): void {
  for (const [name, v] of [['vmin', range.min], ['vmax', range.max]] as const) {
    if (v !== undefined && !Number.isFinite(v)) throw floeError('INVALID_ARGUMENT', `${name} must be a finite number, got ${v}`);
  }
  if (range.min !== undefined && range.max !== undefined && !(range.min < range.max)) {
    throw floeError('INVALID_ARGUMENT', `vmin (${range.min}) must be less than vmax (${range.max}); swap them, or leave one out to take it from the data`);
  }
}

/** The finite minimum and maximum, or undefined when no value is finite. */
export function finiteExtent(values: ArrayLike<number>): ValueRange | undefined {
  let [min, max] = [Infinity, -Infinity];
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? NaN;
    if (Number.isFinite(v)) [min, max] = [Math.min(min, v), Math.max(max, v)];
  }
  return min <= max ? { min, max } : undefined;
}

/**
 * The range to draw, or undefined when there is no data to draw. A constant field without a
 * requested range spans its value +- 0.5; a single requested bound on the wrong side of the data
 * is an error that says which other bound to give.
 */
export function resolveRange(values: ArrayLike<number>, requested: RequestedRange, kind: 'sequential' | 'diverging'): ValueRange | undefined {
  checkRequestedRange(requested);
  const data = finiteExtent(values);
  if (!data) return undefined;
  let { min, max } = data;
  if (kind === 'diverging' && min < 0 && max > 0) {
    const reach = Math.max(-min, max);
    [min, max] = [-reach, reach];
  }
  if (requested.min !== undefined && requested.max !== undefined) return { min: requested.min, max: requested.max };
  if (requested.min !== undefined) {
    if (!(requested.min < max)) throw floeError('INVALID_ARGUMENT', `vmin (${requested.min}) is not below the data's maximum (${max}), which vmax defaults to; give vmax as well`);
    return { min: requested.min, max };
  }
  if (requested.max !== undefined) {
    if (!(min < requested.max)) throw floeError('INVALID_ARGUMENT', `vmax (${requested.max}) is not above the data's minimum (${min}), which vmin defaults to; give vmin as well`);
    return { min, max: requested.max };
  }
  return min < max ? { min, max } : { min: min - 0.5, max: max + 0.5 };
}
