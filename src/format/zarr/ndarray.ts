// N-dimensional views over flat element storage, and the one strided copy everything uses
// (chunk -> result on read, input -> chunk on write, transpose).
import type { ArrayData, TypedArray } from './data-types.ts';

/** Element storage with a shape and strides counted in elements (not lanes, not bytes). */
export interface NdArray<D extends ArrayData = ArrayData> {
  data: D;
  shape: number[];
  stride: number[];
}

export function cStrides(shape: readonly number[]): number[] {
  const stride = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    stride[i] = s;
    s *= shape[i]!;
  }
  return stride;
}

export function product(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
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
 * `TypedArray.set` where possible.
 */
export function copyStrided(srcView: StridedView, dstView: StridedView, shape: readonly number[], lanes: number): void {
  if (shape.some((d) => d === 0)) return;
  // Copy floats as integer bit patterns: element-wise float loads may canonicalise NaN payloads.
  const src = asBits(srcView);
  const dst = asBits(dstView);
  const widen = src.data === srcView.data ? 1 : (srcView.data as TypedArray).BYTES_PER_ELEMENT / 4;
  lanes *= widen;
  const [dims, sStride, dStride] = mergeDims(shape, src.stride, dst.stride);
  const rank = dims.length;
  if (rank === 0) {
    copyRun(src.data, src.offset * lanes, 1, dst.data, dst.offset * lanes, 1, lanes);
    return;
  }
  const inner = dims[rank - 1]!;
  const si = sStride[rank - 1]!;
  const di = dStride[rank - 1]!;
  const idx = new Array<number>(rank - 1).fill(0);
  let so = src.offset;
  let doff = dst.offset;
  for (;;) {
    copyRun(src.data, so * lanes, si, dst.data, doff * lanes, di, inner * lanes, lanes);
    // Odometer over the outer dimensions.
    let d = rank - 2;
    for (; d >= 0; d--) {
      so += sStride[d]!;
      doff += dStride[d]!;
      if (++idx[d]! < dims[d]!) break;
      so -= sStride[d]! * dims[d]!;
      doff -= dStride[d]! * dims[d]!;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

function asBits(view: StridedView): StridedView {
  const d = view.data;
  if (d instanceof Float32Array || d instanceof Float64Array) {
    return { data: new Uint32Array(d.buffer, d.byteOffset, d.byteLength / 4), offset: view.offset, stride: view.stride };
  }
  return view;
}

/** Copies `count` numbers; strides are per element, so lanes of one element stay together. */
function copyRun(
  src: ArrayData, s: number, sStride: number,
  dst: ArrayData, d: number, dStride: number,
  count: number, lanes = 1,
): void {
  if (sStride === 1 && dStride === 1) {
    if (Array.isArray(src) || Array.isArray(dst)) {
      for (let i = 0; i < count; i++) (dst as unknown[])[d + i] = (src as unknown[])[s + i];
    } else if (count > 16) {
      (dst as TypedArray).set((src as TypedArray).subarray(s, s + count) as never, d);
    } else {
      const a = src as Float64Array;
      const b = dst as Float64Array;
      for (let i = 0; i < count; i++) b[d + i] = a[s + i]!;
    }
    return;
  }
  const a = src as unknown as Float64Array;
  const b = dst as unknown as Float64Array;
  const ss = sStride * lanes;
  const ds = dStride * lanes;
  const n = count / lanes;
  if (lanes === 1) {
    for (let i = 0; i < n; i++) b[d + i * ds] = a[s + i * ss]!;
    return;
  }
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < lanes; l++) b[d + i * ds + l] = a[s + i * ss + l]!;
  }
}

/** Drops size-1 dimensions and merges neighbours that are contiguous in both views. */
function mergeDims(shape: readonly number[], a: readonly number[], b: readonly number[]): [number[], number[], number[]] {
  const dims: number[] = [];
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === 1) continue;
    const n = dims.length - 1;
    if (n >= 0 && sa[n] === a[i]! * shape[i]! && sb[n] === b[i]! * shape[i]!) {
      dims[n] *= shape[i]!;
      sa[n] = a[i]!;
      sb[n] = b[i]!;
    } else {
      dims.push(shape[i]!);
      sa.push(a[i]!);
      sb.push(b[i]!);
    }
  }
  return [dims, sa, sb];
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
    const b = one[0]!;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] !== b) return false;
    return true;
  }
  if (w === 4 && bytes.byteOffset % 4 === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    const x = new Uint32Array(one.slice().buffer)[0]!;
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
