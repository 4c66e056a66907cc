// Zoom and pan of the slice viewer: a new selection around the one shown, re-queried rather than
// scaled, so the picture always shows the stored values at their own resolution. The plotted
// dimensions are the ones the selection keeps (integers drop theirs); the last kept one runs
// along x, the one before it down y. Pure: tested in Node.
import { normalizeSelection, slice, type DimSelection, type Selection, type SelectionItem } from '../engine/selection.ts';

export type WindowMove = 'zoom-in' | 'zoom-out' | 'left' | 'right' | 'up' | 'down';

/** The selection after one move; the same selection when the move changes nothing. */
export function moveWindow(selection: Selection | undefined, shape: readonly number[], move: WindowMove): Selection {
  const dims = normalizeSelection(selection, shape);
  const kept = dims.flatMap((d, i) => (d.drop ? [] : [i]));
  const x = kept[kept.length - 1];
  const y = kept.length >= 2 ? kept[kept.length - 2] : undefined;
  const items: SelectionItem[] = dims.map(asItem);
  const change = (axis: number | undefined, f: (d: DimSelection, n: number) => DimSelection): void => {
    const d = axis === undefined ? undefined : dims[axis];
    const n = axis === undefined ? undefined : shape[axis];
    if (axis === undefined || d === undefined || n === undefined || d.step <= 0) return;
    items[axis] = asItem(f(d, n));
  };
  if (move === 'zoom-in' || move === 'zoom-out') {
    for (const axis of [x, y]) change(axis, (d, n) => zoom(d, n, move === 'zoom-in' ? 0.5 : 2));
  } else {
    const along = move === 'left' || move === 'right' ? x : y;
    const sign = move === 'right' || move === 'down' ? 1 : -1;
    change(along, (d, n) => pan(d, n, sign));
  }
  return items;
}

function span(d: DimSelection): number {
  return d.count * d.step;
}

function zoom(d: DimSelection, n: number, factor: number): DimSelection {
  const centre = d.start + span(d) / 2;
  const width = Math.min(n, Math.max(Math.min(2 * d.step, n), Math.round(span(d) * factor)));
  const start = Math.max(0, Math.min(n - width, Math.round(centre - width / 2)));
  return { ...d, start, count: Math.max(1, Math.ceil(width / d.step)) };
}

function pan(d: DimSelection, n: number, sign: number): DimSelection {
  const by = Math.max(d.step, Math.round(span(d) / 4));
  const start = Math.max(0, Math.min(n - span(d), d.start + sign * by));
  return { ...d, start: Math.max(0, start) };
}

function asItem(d: DimSelection): SelectionItem {
  if (d.drop) return d.start;
  const stop = d.start + d.count * d.step;
  return slice(d.start, stop, d.step === 1 ? null : d.step);
}

/** Values drawn per plotted dimension at most by the first view of an array (a stride keeps larger ones whole). */
export const DEFAULT_EXTENT = 512;

/**
 * The selection an array opens with: a plane (the first index of every leading dimension, the
 * last two whole) or a whole 1-D array, strided to at most DEFAULT_EXTENT values per dimension.
 */
export function defaultSelection(shape: readonly number[]): Selection {
  const plotted = Math.min(2, shape.length);
  return shape.map((n, d): SelectionItem => {
    if (d < shape.length - plotted) return 0;
    const step = Math.ceil(n / DEFAULT_EXTENT);
    return step > 1 ? slice(null, null, step) : null;
  });
}
