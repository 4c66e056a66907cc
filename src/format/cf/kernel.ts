// The per-run CF value decoding loop (src/format/cf/values.ts works the coding out from the
// attributes): what a decoding read runs for every value, in the calling thread and on the decode
// pool's workers alike, so it imports nothing a worker would not otherwise load.
import type { TypedArray } from '../zarr/data-types.ts';

/** Integer Zarr data types and their byte widths. */
export const INTEGER_BYTES: Readonly<Record<string, number>> = { int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8 };

/** How a variable's stored numbers become physical values. */
export interface CfValueCoding {
  /** The data type the stored values mean: the stored one, or its other-signed twin under `_Unsigned`. */
  readonly dataType: string;
  /** Stored values that mean "missing" (in `dataType`'s domain; NaN ones dropped): read as NaN. */
  readonly missing: readonly number[];
  readonly scale?: number;
  readonly offset?: number;
  /** The decoded type: a float type when anything above applies, else undefined (values unchanged). */
  readonly output?: 'float32' | 'float64';
}

/** Copies `count` stored values from `src[s..]` to decoded values at `dst[d..]` (`src` already viewed as `coding.dataType`). */
export type ValueKernel = (src: TypedArray, s: number, dst: TypedArray, d: number, count: number) => void;

/** The per-run decoding loop of `coding` (one specialised loop per coding, built once per read). */
export function valueKernel(coding: CfValueCoding): ValueKernel {
  const f32 = coding.output === 'float32';
  const round = f32 ? Math.fround : (x: number) => x;
  // float32 output follows NumPy's float32 arithmetic (scale and offset rounded to float32, each
  // step rounded): bit-equal to xarray. float64 output: x * scale + offset in doubles.
  const scale = coding.scale === undefined ? undefined : round(coding.scale);
  const offset = coding.offset === undefined ? undefined : round(coding.offset);
  const missing = coding.missing;
  const big = INTEGER_BYTES[coding.dataType] === 8;
  const bigMissing = big ? missing.filter(Number.isInteger).map(BigInt) : [];
  const isMissing = (raw: number | bigint): boolean => (typeof raw === 'bigint' ? bigMissing.includes(raw) : missing.includes(raw));
  if (!big && missing.length <= 1) return singleMissingKernel(missing[0] ?? NaN, scale, offset, f32);
  const unpack = (x: number): number => {
    const scaled = scale === undefined ? x : round(x * scale);
    return offset === undefined ? scaled : scaled + offset;
  };
  return (src, s, dst, d, n) => {
    for (let i = 0; i < n; i++) {
      const raw = src[s + i]!;
      dst[d + i] = missing.length > 0 && isMissing(raw) ? NaN : unpack(Number(raw));
    }
  };
}

/**
 * The common case as plain loops (no call per element): at most one missing value (NaN: none; a
 * NaN never equals), each combination of scale and offset. Float32 results round the product
 * before the offset is added (NumPy's float32 steps); the store into a Float32Array rounds the sum.
 * Long runs unpack without a branch and then mark the missing values, found by the typed array's
 * own `indexOf` (missing values are rare; the branch per element cost twice the time of the loop).
 */
function singleMissingKernel(m: number, scale: number | undefined, offset: number | undefined, f32: boolean): ValueKernel {
  const unpack = unpackLoop(scale, offset, f32);
  if (Number.isNaN(m)) return unpack;
  const checked = (src: TypedArray, s: number, dst: TypedArray, d: number, n: number) => {
    for (let i = 0; i < n; i++) {
      unpack(src, s + i, dst, d + i, 1);
      if ((src[s + i] as number) === m) dst[d + i] = NaN;
    }
  };
  return (src, s, dst, d, n) => {
    if (n < 64) return checked(src, s, dst, d, n);
    unpack(src, s, dst, d, n);
    const run = src.subarray(s, s + n) as unknown as { indexOf(value: number, from?: number): number };
    for (let k = run.indexOf(m); k >= 0; k = run.indexOf(m, k + 1)) dst[d + k] = NaN;
  };
}

/** `n` values unpacked without looking for missing ones. */
function unpackLoop(scale: number | undefined, offset: number | undefined, f32: boolean): ValueKernel {
  if (scale !== undefined && offset !== undefined) {
    return f32
      ? (src, s, dst, d, n) => { for (let i = 0; i < n; i++) dst[d + i] = Math.fround((src[s + i] as number) * scale) + offset; }
      : (src, s, dst, d, n) => { for (let i = 0; i < n; i++) dst[d + i] = (src[s + i] as number) * scale + offset; };
  }
  if (scale !== undefined) return (src, s, dst, d, n) => { for (let i = 0; i < n; i++) dst[d + i] = (src[s + i] as number) * scale; };
  if (offset !== undefined) return (src, s, dst, d, n) => { for (let i = 0; i < n; i++) dst[d + i] = (src[s + i] as number) + offset; };
  // Masking alone: the typed array's own conversion (stored numbers into the float output).
  return (src, s, dst, d, n) => { (dst as Float64Array).set(src.subarray(s, s + n) as Float64Array, d); };
}

const VIEWS: Readonly<Record<string, new (buffer: ArrayBufferLike, offset: number, length: number) => TypedArray>> = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array,
};

/** The same memory as the other-signed integer type (a no-op when `dataType` is the array's own). */
export function reinterpret(stored: TypedArray, dataType: string): TypedArray {
  const View = VIEWS[dataType];
  if (View === undefined || stored instanceof View) return stored;
  return new View(stored.buffer, stored.byteOffset, stored.length);
}
