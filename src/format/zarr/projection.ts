// Projecting a per-dimension selection onto a regular chunk grid, and copying a decoded chunk's
// selected part into a destination view. Pure functions shared by the engine's reads and the
// sharding codec's inner-chunk reads.
import { cStrides, copyStrided, fillElements, product, type NdArray, type StridedView } from './ndarray.ts';
import type { ArrayData } from './data-types.ts';
import { checkedAt } from '../indexing.ts';

/** One dimension of a normalised selection: `count` indices start, start+step, ... */
export interface DimSelection {
  readonly start: number;
  readonly step: number;
  readonly count: number;
  /** An integer index: the dimension is dropped from the result's shape. */
  readonly drop: boolean;
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

/**
 * One odometer digit of forEachProduct: a list and the position in it. Digits form a list from
 * the innermost (last list, turning fastest) out, walked without an index or an iterator: this
 * runs once per chunk of a read.
 */
interface ProductDigit<T> {
  readonly list: readonly T[];
  i: number;
  readonly outer: ProductDigit<T> | undefined;
}

/** Visits the cartesian product of per-dimension projections. */
export function forEachProduct<T extends {} | null>(lists: readonly (readonly T[])[], visit: (items: T[]) => void): void {
  let innermost: ProductDigit<T> | undefined;
  for (const list of lists) {
    if (list.length === 0) return;
    innermost = { list, i: 0, outer: innermost };
  }
  const rank = lists.length;
  odometer: for (;;) {
    const items = new Array<T>(rank);
    let d = rank;
    // A digit stays below its list's length (it wraps to 0 there), so the check never fires.
    for (let digit = innermost; digit !== undefined; digit = digit.outer) items[--d] = checkedAt(digit.list, digit.i, 'INVALID_ARGUMENT', 'projection list');
    visit(items);
    for (let digit = innermost; digit !== undefined; digit = digit.outer) {
      if (++digit.i < digit.list.length) continue odometer;
      digit.i = 0;
    }
    return;
  }
}

/** Copies the part of a decoded chunk that the projections select into `dst`. */
export function copyFromChunk(chunk: NdArray, ps: readonly ChunkProjection[], dst: StridedView, lanes: number): void {
  // One indexed pass (no closure per call): this runs for every chunk of a read.
  const rank = ps.length;
  const stride = new Array<number>(rank);
  const counts = new Array<number>(rank);
  let offset = 0;
  for (let d = 0; d < rank; d++) {
    const p = checkedAt(ps, d, 'INVALID_ARGUMENT', 'chunk projections');
    const s = checkedAt(chunk.stride, d, 'INVALID_ARGUMENT', 'chunk strides');
    offset += p.start * s;
    stride[d] = s * p.step;
    counts[d] = p.count;
  }
  copyStrided({ data: chunk.data, offset, stride }, dst, counts, lanes);
}

/** Fills a `counts`-shaped region of `dst` with the one-element `value` (bit-exact). */
export function fillRegion(dst: StridedView, counts: readonly number[], value: ArrayData, lanes: number): void {
  const expected = cStrides(counts);
  if (counts.every((n, d) => n === 1 || dst.stride[d] === expected[d])) {
    fillElements(dst.data, value, dst.offset, product(counts), lanes);
    return;
  }
  copyStrided({ data: value, offset: 0, stride: counts.map(() => 0) }, dst, counts, lanes);
}

/** A selection's part inside one chunk, and where it lands in the destination. */
export function shiftView(dst: StridedView, ps: readonly ChunkProjection[]): StridedView {
  let offset = dst.offset;
  for (let d = 0; d < ps.length; d++) {
    offset += checkedAt(ps, d, 'INVALID_ARGUMENT', 'chunk projections').outStart * checkedAt(dst.stride, d, 'INVALID_ARGUMENT', 'destination strides');
  }
  return { data: dst.data, offset, stride: dst.stride };
}
