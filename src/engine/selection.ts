// Selections (integers, slices with any step, `null` for a whole dimension, '...' for the rest)
// normalised per dimension, and projected onto a regular chunk grid.
import { shownValue } from '../format/arguments.ts';
import { floeError } from '../errors.ts';
import type { DimSelection } from '../format/zarr/projection.ts';

/** A Python-style slice of one dimension, made by {@link slice}; `null` bounds are open. */
export interface Slice {
  readonly kind: 'slice';
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

/**
 * One dimension of a {@link Selection}: an integer index (drops the dimension; negative counts from
 * the end), a {@link Slice}, `null` (the whole dimension) or `'...'` (as many whole dimensions as needed).
 */
export type SelectionItem = number | Slice | null | '...';
/** A NumPy-style basic selection, one item per dimension; missing trailing items select everything. */
export type Selection = readonly SelectionItem[];

/**
 * Python-style slice: `slice(stop)`, `slice(start, stop)`, `slice(start, stop, step)`; `null`
 * leaves a bound open; negative bounds count from the end; a negative step walks backwards.
 */
export function slice(startOrStop: number | null = null, stop?: number | null, step: number | null = null): Slice {
  if (stop === undefined) return Object.freeze({ kind: 'slice', start: null, stop: startOrStop, step: null });
  return Object.freeze({ kind: 'slice', start: startOrStop, stop, step });
}

// Projection onto chunk grids is pure and shared with the codecs (sharding reads inner chunks).
export { forEachProduct, projectDim, type ChunkProjection, type DimSelection } from '../format/zarr/projection.ts';

// exactOptionalPropertyTypes: `where` is left out, not set to undefined, when unknown.
function whereOption(where: string | undefined): { where?: string } {
  return where === undefined ? {} : { where };
}

/** `where` (the array's path) goes into every error, so a message says which array refused. */
export function normalizeSelection(selection: Selection | undefined, shape: readonly number[], where?: string): DimSelection[] {
  if (selection !== undefined && selection !== null && !Array.isArray(selection)) {
    throw floeError('INVALID_SELECTION', `a selection must be an array of items (or undefined for all), got ${shownValue(selection)}`, whereOption(where));
  }
  const items = expandEllipsis(selection ?? [], shape.length, where);
  return shape.map((n, d) => normalizeItem(items[d] ?? null, n, d, where));
}

function expandEllipsis(selection: Selection, rank: number, where: string | undefined): SelectionItem[] {
  const at = selection.indexOf('...');
  if (at !== selection.lastIndexOf('...')) {
    throw floeError('INVALID_SELECTION', 'a selection may contain at most one "..."', whereOption(where));
  }
  const explicit = selection.length - (at >= 0 ? 1 : 0);
  if (explicit > rank) {
    throw floeError('INVALID_SELECTION', `selection has ${explicit} items but the array has ${rank} dimensions`, whereOption(where));
  }
  if (at < 0) return [...selection];
  return [...selection.slice(0, at), ...new Array<null>(rank - explicit).fill(null), ...selection.slice(at + 1)];
}

function normalizeItem(item: SelectionItem, n: number, d: number, where: string | undefined): DimSelection {
  if (item === null) return { start: 0, step: 1, count: n, drop: false };
  if (typeof item === 'number') {
    if (!Number.isInteger(item) || item < -n || item >= n) {
      const valid = n === 0 ? 'it is empty, so no index is valid' : `valid indices are ${-n}..${n - 1}`;
      throw floeError('INVALID_SELECTION', `index ${item} is out of bounds for dimension ${d} of length ${n}; ${valid}`, whereOption(where));
    }
    return { start: item < 0 ? item + n : item, step: 1, count: 1, drop: true };
  }
  if (typeof item !== 'object' || item.kind !== 'slice') {
    throw floeError('INVALID_SELECTION', `dimension ${d}: expected an integer, slice(), null or "...", got ${shownValue(item)}`, whereOption(where));
  }
  return { ...sliceIndices(item, n, d, where), drop: false };
}

/** Python's slice.indices(): clamps bounds and counts the selected indices. */
function sliceIndices(s: Slice, n: number, d: number, where: string | undefined): { start: number; step: number; count: number } {
  const step = s.step ?? 1;
  for (const [name, v] of [['start', s.start], ['stop', s.stop], ['step', s.step]] as const) {
    if (v !== null && !Number.isInteger(v)) throw floeError('INVALID_SELECTION', `dimension ${d}: slice ${name} must be an integer, got ${shownValue(v)}`, whereOption(where));
  }
  if (step === 0) throw floeError('INVALID_SELECTION', `dimension ${d}: slice step cannot be zero`, whereOption(where));
  const clamp = (v: number | null, dflt: number, lo: number, hi: number): number => {
    if (v === null) return dflt;
    const x = v < 0 ? v + n : v;
    return Math.min(Math.max(x, lo), hi);
  };
  const start = step > 0 ? clamp(s.start, 0, 0, n) : clamp(s.start, n - 1, -1, n - 1);
  const stop = step > 0 ? clamp(s.stop, n, 0, n) : clamp(s.stop, -1, -1, n - 1);
  const count = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  return { start, step, count };
}

/** The shape of a selection's result (integer dimensions dropped). */
export function resultShape(dims: readonly DimSelection[]): number[] {
  return dims.filter((d) => !d.drop).map((d) => d.count);
}

