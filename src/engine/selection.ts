// Selections (integers, slices with any step, `null` for a whole dimension, '...' for the rest)
// normalised per dimension, and projected onto a regular chunk grid.
import { floeError } from '../errors.ts';

export interface Slice {
  readonly kind: 'slice';
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

export type SelectionItem = number | Slice | null | '...';
export type Selection = readonly SelectionItem[];

/**
 * Python-style slice: `slice(stop)`, `slice(start, stop)`, `slice(start, stop, step)`; `null`
 * leaves a bound open; negative bounds count from the end; a negative step walks backwards.
 */
export function slice(startOrStop: number | null = null, stop?: number | null, step: number | null = null): Slice {
  if (stop === undefined) return Object.freeze({ kind: 'slice', start: null, stop: startOrStop, step: null });
  return Object.freeze({ kind: 'slice', start: startOrStop, stop, step });
}

/** One dimension of a normalised selection: `count` indices start, start+step, ... */
export interface DimSelection {
  readonly start: number;
  readonly step: number;
  readonly count: number;
  /** An integer index: the dimension is dropped from the result's shape. */
  readonly drop: boolean;
}

export function normalizeSelection(selection: Selection | undefined, shape: readonly number[]): DimSelection[] {
  const items = expandEllipsis(selection ?? [], shape.length);
  return shape.map((n, d) => normalizeItem(items[d] ?? null, n, d));
}

function expandEllipsis(selection: Selection, rank: number): SelectionItem[] {
  const at = selection.indexOf('...');
  if (at !== selection.lastIndexOf('...')) {
    throw floeError('INVALID_SELECTION', 'a selection may contain at most one "..."');
  }
  const explicit = selection.length - (at >= 0 ? 1 : 0);
  if (explicit > rank) {
    throw floeError('INVALID_SELECTION', `selection has ${explicit} items but the array has ${rank} dimensions`);
  }
  if (at < 0) return [...selection];
  return [...selection.slice(0, at), ...new Array<null>(rank - explicit).fill(null), ...selection.slice(at + 1)];
}

function normalizeItem(item: SelectionItem, n: number, d: number): DimSelection {
  if (item === null) return { start: 0, step: 1, count: n, drop: false };
  if (typeof item === 'number') {
    if (!Number.isInteger(item) || item < -n || item >= n) {
      throw floeError('INVALID_SELECTION', `index ${item} is out of bounds for dimension ${d} of length ${n}`);
    }
    return { start: item < 0 ? item + n : item, step: 1, count: 1, drop: true };
  }
  if (typeof item !== 'object' || item.kind !== 'slice') {
    throw floeError('INVALID_SELECTION', `dimension ${d}: expected an integer, slice(), null or "...", got ${JSON.stringify(item)}`);
  }
  return { ...sliceIndices(item, n, d), drop: false };
}

/** Python's slice.indices(): clamps bounds and counts the selected indices. */
function sliceIndices(s: Slice, n: number, d: number): { start: number; step: number; count: number } {
  const step = s.step ?? 1;
  for (const [name, v] of [['start', s.start], ['stop', s.stop], ['step', s.step]] as const) {
    if (v !== null && !Number.isInteger(v)) throw floeError('INVALID_SELECTION', `dimension ${d}: slice ${name} must be an integer, got ${v}`);
  }
  if (step === 0) throw floeError('INVALID_SELECTION', `dimension ${d}: slice step cannot be zero`);
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

/** The part of one dimension's selection that falls in one chunk. */
export interface ChunkProjection {
  readonly chunk: number;
  /** Index within the chunk of the first selected element. */
  readonly start: number;
  readonly step: number;
  readonly count: number;
  /** Position of that element in the selection's output along this dimension. */
  readonly outStart: number;
}

export function projectDim(sel: DimSelection, chunkSize: number): ChunkProjection[] {
  const out: ChunkProjection[] = [];
  if (sel.count === 0) return out;
  const { start, step, count } = sel;
  const last = start + (count - 1) * step;
  if (Math.abs(step) >= chunkSize) {
    // At most one element per chunk: walk the elements.
    for (let i = 0; i < count; i++) {
      const idx = start + i * step;
      const chunk = Math.floor(idx / chunkSize);
      out.push({ chunk, start: idx - chunk * chunkSize, step, count: 1, outStart: i });
    }
    return out;
  }
  const first = Math.floor(start / chunkSize);
  const final = Math.floor(last / chunkSize);
  const dir = step > 0 ? 1 : -1;
  for (let c = first; dir > 0 ? c <= final : c >= final; c += dir) {
    const lo = c * chunkSize;
    const hi = lo + chunkSize - 1;
    const [a, b] = step > 0 ? [lo, hi] : [hi, lo];
    const i0 = Math.max(0, Math.ceil((a - start) / step));
    const i1 = Math.min(count - 1, Math.floor((b - start) / step));
    if (i1 < i0) continue;
    out.push({ chunk: c, start: start + i0 * step - lo, step, count: i1 - i0 + 1, outStart: i0 });
  }
  return out;
}

/** Visits the cartesian product of per-dimension projections. */
export function forEachProduct<T>(lists: readonly (readonly T[])[], visit: (items: T[]) => void): void {
  if (lists.some((l) => l.length === 0)) return;
  const idx = new Array<number>(lists.length).fill(0);
  for (;;) {
    visit(idx.map((i, d) => lists[d]![i]!));
    let d = lists.length - 1;
    for (; d >= 0; d--) {
      if (++idx[d]! < lists[d]!.length) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}
