// N-dimensional views over flat element storage, and the one strided copy everything uses
// (chunk -> result on read, input -> chunk on write, transpose).
import { floeError } from '../../errors.ts';
import { checkedAt } from '../indexing.ts';
import type { Float16Data } from './float16-array.ts';
import type { ArrayData, TypedArray } from './data-types.ts';

/** Element storage with a shape and strides counted in elements (not lanes, not bytes). */
export interface NdArray<D extends ArrayData | Float16Data = ArrayData> {
  data: D;
  shape: number[];
  stride: number[];
}

export function cStrides(shape: readonly number[]): number[] {
  const stride = new Array<number>(shape.length);
  // Right to left: each stride is the product of the extents after it. Indexed loops here and in
  // product(): both run per chunk, mostly before V8 optimises them (no closure, no iterator).
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    stride[i] = s;
    s *= checkedAt(shape, i, 'INVALID_ARGUMENT', 'shape');
  }
  return stride;
}

export function product(shape: readonly number[]): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= checkedAt(shape, i, 'INVALID_ARGUMENT', 'shape');
  return n;
}

/** A strided view: where element [0,...,0] sits and how far each index steps (elements). */
export interface StridedView {
  data: ArrayData;
  offset: number;
  stride: readonly number[];
}

/**
 * Copies a `shape`-sized block from `src` to `dst`. `lanes` numbers make one element (complex: 2).
 * Dimensions that are contiguous in both views are merged first so the inner loop is one long
 * `TypedArray.set` where possible. A block reaching outside either array is an INVALID_ARGUMENT.
 */
export function copyStrided(srcView: StridedView, dstView: StridedView, shape: readonly number[], lanes: number): void {
  for (let i = 0; i < shape.length; i++) if (shape[i] === 0) return;
  // Copy floats as integer bit patterns: element-wise float loads may canonicalise NaN payloads.
  const src = asBits(srcView);
  const dst = asBits(dstView);
  const widen = src.data === srcView.data ? 1 : (srcView.data as TypedArray).BYTES_PER_ELEMENT / 4;
  lanes *= widen;
  const inner = mergeDims(shape, src.stride, dst.stride);
  // The one bounds check of the copy: copyRun's loops rely on it instead of checking each index.
  checkExtents(src, dst, inner, lanes);
  if (inner === undefined) {
    copyRun(src.data, src.offset * lanes, 1, dst.data, dst.offset * lanes, 1, lanes);
    return;
  }
  let so = src.offset;
  let doff = dst.offset;
  odometer: for (;;) {
    copyRun(src.data, so * lanes, inner.s, dst.data, doff * lanes, inner.d, inner.n * lanes, lanes);
    // Odometer over the outer dimensions, innermost digit first.
    for (let digit = inner.outer; digit !== undefined; digit = digit.outer) {
      so += digit.s;
      doff += digit.d;
      if (++digit.i < digit.n) continue odometer;
      so -= digit.s * digit.n;
      doff -= digit.d * digit.n;
      digit.i = 0;
    }
    return;
  }
}

/**
 * One merged dimension of a copy: extent, source and destination strides, odometer position.
 * Dimensions form a list from the innermost out (a list, not an array, so the odometer's walk
 * needs no index).
 */
interface CopyDim {
  n: number;
  s: number;
  d: number;
  i: number;
  readonly outer: CopyDim | undefined;
}

/** Throws unless every number the copy touches lies inside the source and the destination. */
function checkExtents(src: StridedView, dst: StridedView, inner: CopyDim | undefined, lanes: number): void {
  let sLo = src.offset;
  let sHi = src.offset;
  let dLo = dst.offset;
  let dHi = dst.offset;
  for (let dim = inner; dim !== undefined; dim = dim.outer) {
    const sReach = (dim.n - 1) * dim.s;
    const dReach = (dim.n - 1) * dim.d;
    if (sReach < 0) sLo += sReach;
    else sHi += sReach;
    if (dReach < 0) dLo += dReach;
    else dHi += dReach;
  }
  outOfRange(sLo, sHi, src.data.length, lanes, 'source');
  outOfRange(dLo, dHi, dst.data.length, lanes, 'destination');
}

function outOfRange(lo: number, hi: number, length: number, lanes: number, role: string): void {
  if (lo < 0 || (hi + 1) * lanes > length) {
    throw floeError('INVALID_ARGUMENT', `a strided copy reaches elements [${lo}, ${hi}] of a ${role} of ${length / lanes} elements`);
  }
}

function asBits(view: StridedView): StridedView {
  const d = view.data;
  if (d instanceof Float32Array || d instanceof Float64Array) {
    return { data: new Uint32Array(d.buffer, d.byteOffset, d.byteLength / 4), offset: view.offset, stride: view.stride };
  }
  return view;
}

/**
 * Copies `count` numbers; strides are per element, so lanes of one element stay together.
 * The caller (copyStrided) has checked that every index reached is inside both arrays.
 */
function copyRun(
  src: ArrayData, s: number, sStride: number,
  dst: ArrayData, d: number, dStride: number,
  count: number, lanes = 1,
): void {
  if (Array.isArray(src) || Array.isArray(dst)) {
    // Variable-length elements (lanes 1): plain arrays, read as `unknown` so no index is asserted.
    const a = src as unknown[];
    const b = dst as unknown[];
    for (let i = 0; i < count; i++) b[d + i * dStride] = a[s + i * sStride];
    return;
  }
  const a = src as unknown as Float64Array;
  const b = dst as unknown as Float64Array;
  const contiguous = sStride === 1 && dStride === 1;
  if (contiguous && count > 16) {
    b.set(a.subarray(s, s + count), d);
    return;
  }
  // A short contiguous run is copied number by number, as if each number were one element.
  const perElement = contiguous ? 1 : lanes;
  const ss = sStride * perElement;
  const ds = dStride * perElement;
  const n = count / perElement;
  if (perElement === 1) {
    // In range: copyStrided's checkExtents bounded every index of the block in both arrays.
    for (let i = 0; i < n; i++) b[d + i * ds] = a[s + i * ss]!;
    return;
  }
  for (let i = 0; i < n; i++) {
    // In range: copyStrided's checkExtents bounded every index of the block in both arrays.
    for (let l = 0; l < perElement; l++) b[d + i * ds + l] = a[s + i * ss + l]!;
  }
}

/**
 * Drops size-1 dimensions and merges neighbours that are contiguous in both views; returns the
 * innermost dimension (undefined when none is left).
 */
function mergeDims(shape: readonly number[], a: readonly number[], b: readonly number[]): CopyDim | undefined {
  if (a.length !== shape.length || b.length !== shape.length) {
    throw floeError('INVALID_ARGUMENT', `a strided copy of rank ${shape.length} got strides of rank ${a.length} and ${b.length}`);
  }
  let last: CopyDim | undefined;
  for (let k = 0; k < shape.length; k++) {
    const n = checkedAt(shape, k, 'INVALID_ARGUMENT', 'copy shape');
    if (n === 1) continue;
    // k < shape.length, which both stride lists match (checked above).
    const s = checkedAt(a, k, 'INVALID_ARGUMENT', 'source strides');
    const d = checkedAt(b, k, 'INVALID_ARGUMENT', 'destination strides');
    if (last !== undefined && last.s === s * n && last.d === d * n) {
      last.n *= n;
      last.s = s;
      last.d = d;
    } else {
      last = { n, s, d, i: 0, outer: last };
    }
  }
  return last;
}

/** Fills `n` elements starting at element `start` with the one-element `value` (bit-exact). */
export function fillElements(data: ArrayData, value: ArrayData, start: number, n: number, lanes: number): void {
  if (n <= 0) return;
  if (Array.isArray(data)) {
    // Variable-length elements are immutable values, so one instance may fill many slots.
    (data as unknown[]).fill((value as unknown[])[0], start, start + n);
    return;
  }
  const t = data as TypedArray;
  const v = value as TypedArray;
  const s = start * lanes;
  // Seed one element from the fill's own storage (keeps NaN payloads), then double it.
  t.set(v as never, s);
  let filled = lanes;
  const total = n * lanes;
  while (filled < total) {
    const m = Math.min(filled, total - filled);
    t.copyWithin(s + filled, s, s + m);
    filled += m;
  }
}

/** True when every element equals the one-element `value`, comparing bits for floats. */
export function allEqual(data: ArrayData, value: ArrayData): boolean {
  if (Array.isArray(data)) {
    const v = (value as unknown[])[0];
    if (v instanceof Uint8Array) return (data as unknown[]).every((x) => x instanceof Uint8Array && sameBytes(x, v));
    return (data as unknown[]).every((x) => x === v);
  }
  const v = value as TypedArray;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const one = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  const w = one.length;
  if (w === 1) {
    // One byte (w === 1), so `b` is a number; typed as possibly undefined, it only meets `!==`.
    const b = one[0];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] !== b) return false;
    return true;
  }
  if (w === 4 && bytes.byteOffset % 4 === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    // One word (w === 4), so `x` is a number; typed as possibly undefined, it only meets `!==`.
    const x = new Uint32Array(one.slice().buffer)[0];
    for (let i = 0; i < words.length; i++) if (words[i] !== x) return false;
    return true;
  }
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== one[i % w]) return false;
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
