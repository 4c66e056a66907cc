// Zarr v1 dtypes with a fill value each, and the fill's memory form worked out here (not by Floe),
// so a model can say what unwritten elements read as. Every NumPy typestr zarr 1.x wrote: b1,
// i1-i8, u1-u8, f2-f8, c8/c16 in both byte orders, S<n>/V<n> fixed bytes, U<n> unicode, and
// structured records of those; fills in their JSON forms, null ("undefined") reading as zeros.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { JsonValue } from '../../format/json.ts';
import { halfBitsToFloatBits } from '../model/float-bits.ts';
import { dataTypeNamed, intBounds, intMemory, type TestDataType } from './data-types.ts';

export interface V1Dtype {
  /** The `dtype` of `meta`: a typestr or a structured descr. */
  readonly json: string | readonly (readonly [string, string])[];
  /** The memory form: a v3 test data type (raw bytes for S/V/structured, strings for U). */
  readonly dtype: TestDataType;
  /** Bytes per element on disk. */
  readonly itemSize: number;
  /** Characters per element of a U<n> dtype (0 otherwise). */
  readonly chars: number;
  readonly fill: JsonValue;
  /** One element's memory bytes, or a one-string array (U<n>). */
  readonly fillMemory: Uint8Array | readonly string[];
}

const NUMERIC: readonly [string, string][] = [
  ['b1', 'bool'], ['i1', 'int8'], ['i2', 'int16'], ['i4', 'int32'], ['i8', 'int64'], ['u1', 'uint8'], ['u2', 'uint16'], ['u4', 'uint32'],
  ['u8', 'uint64'], ['f2', 'float16'], ['f4', 'float32'], ['f8', 'float64'], ['c8', 'complex64'], ['c16', 'complex128'],
];

/** Raw bytes, `size` per element: S<n>, V<n> and structured records in memory. */
export function rawDataType(size: number): TestDataType {
  return Object.freeze({ name: `r${size * 8}`, kind: 'raw' as const, memBytes: size, laneBytes: 1, Ctor: Uint8Array, swapWidth: 1 });
}

const order = (itemSize: number, big: boolean): string => (itemSize === 1 ? '|' : big ? '>' : '<');

/** A float lane's fill: half-exact numbers and the named values; [json, float32/64 lane bits]. */
const FLOAT_FILLS: readonly (number | string)[] = [0, 1.5, -2.25, 0.5, 'NaN', 'Infinity', '-Infinity'];

function laneMemory(value: number | string, width: 2 | 4 | 8): Uint8Array {
  const out = new Uint8Array(width === 8 ? 8 : 4);
  const view = new DataView(out.buffer);
  if (value === 'NaN') {
    // The quiet NaN every reader decodes a named NaN fill to (float16 held as float32 lanes).
    if (width === 8) view.setBigUint64(0, 0x7ff8000000000000n, true);
    else view.setUint32(0, width === 2 ? halfBitsToFloatBits(0x7e00) : 0x7fc00000, true);
  } else if (width === 8) view.setFloat64(0, Number(value), true);
  else view.setFloat32(0, Number(value), true);
  return out;
}

function numericFill(code: string, name: string): Arbitrary<[JsonValue, Uint8Array]> {
  const d = dataTypeNamed(name);
  if (name === 'bool') return fc.boolean().map((b) => [b, Uint8Array.of(b ? 1 : 0)]);
  if (d.kind === 'int' || d.kind === 'uint') {
    const [lo, hi] = intBounds(name);
    const safe = (v: bigint) => Number(v < -(2n ** 53n) + 1n ? -(2n ** 53n) + 1n : v > 2n ** 53n - 1n ? 2n ** 53n - 1n : v);
    return fc.oneof(fc.integer({ min: -100, max: 100 }).map((v) => Math.min(Math.max(v, safe(lo)), safe(hi))), fc.constantFrom(safe(lo), safe(hi)))
      .map((v) => [v, intMemory(name, BigInt(v))]);
  }
  const width = (d.kind === 'complex' ? Number(code.slice(1)) / 2 : Number(code.slice(1))) as 2 | 4 | 8;
  const lane = fc.constantFrom(...FLOAT_FILLS);
  if (d.kind === 'float') return lane.map((v) => [v, laneMemory(v, width)]);
  return fc.tuple(lane, lane).map(([re, im]) => [[re, im], new Uint8Array([...laneMemory(re, width), ...laneMemory(im, width)])]);
}

const LATIN1 = ['', 'a', 'zq', 'é~', '\u00ff\u0001x'];

function bytesFill(size: number): Arbitrary<[JsonValue, Uint8Array]> {
  return fc.constantFrom(...LATIN1.filter((s) => s.length <= size), 0).map((s) => {
    const out = new Uint8Array(size);
    if (typeof s === 'string') for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return [s, out];
  });
}

/** Code points U<n> values are drawn from; NUL only inside a string (NumPy drops trailing NULs). */
export const UNICODE_POOL: readonly string[] = ['a', 'z', 'é', '日', '🧊', '\u0000'];
export const fitsUnicode = (s: string, chars: number): boolean => [...s].length <= chars && !s.endsWith('\u0000');

const withNull = <T>(arb: Arbitrary<[JsonValue, T]>, zero: T): Arbitrary<[JsonValue, T]> =>
  fc.option(arb, { freq: 3 }).map((x) => x ?? [null, zero]);

const scalar = (big: boolean, unicode: boolean): Arbitrary<V1Dtype> => {
  const numeric = fc.constantFrom(...NUMERIC).chain(([code, name]) => {
    const d = dataTypeNamed(name);
    const itemSize = Number(code.slice(1));
    return withNull(numericFill(code, name), new Uint8Array(d.memBytes))
      .map(([fill, mem]): V1Dtype => ({ json: order(itemSize, big) + code, dtype: d, itemSize, chars: 0, fill, fillMemory: mem }));
  });
  const bytes = fc.tuple(fc.constantFrom('S', 'V'), fc.integer({ min: 1, max: 5 })).chain(([code, size]) =>
    withNull(code === 'S' ? bytesFill(size) : fc.constant<[JsonValue, Uint8Array]>([0, new Uint8Array(size)]), new Uint8Array(size))
      .map(([fill, mem]): V1Dtype => ({ json: `|${code}${size}`, dtype: rawDataType(size), itemSize: size, chars: 0, fill, fillMemory: mem })));
  const text = fc.integer({ min: 1, max: 4 }).chain((chars) =>
    withNull(fc.constantFrom('', 'ab', 'é', '🧊日', 'a\u0000b').filter((s) => fitsUnicode(s, chars)).map((s): [JsonValue, string[]] => [s, [s]]), [''])
      .map(([fill, mem]): V1Dtype => ({ json: `${order(4, big)}U${chars}`, dtype: dataTypeNamed('string'), itemSize: 4 * chars, chars, fill, fillMemory: mem })));
  return unicode ? fc.oneof({ arbitrary: numeric, weight: 4 }, bytes, text) : fc.oneof({ arbitrary: numeric, weight: 4 }, bytes);
};

/** A record of 1-3 fields (any scalar typestr, U<n> included); the fill is always null. */
const structured = (big: boolean): Arbitrary<V1Dtype> =>
  fc.array(scalar(big, true), { minLength: 1, maxLength: 3 }).map((fields): V1Dtype => {
    const size = fields.reduce((n, f) => n + f.itemSize, 0);
    const descr = fields.map((f, i) => [String.fromCharCode(0x61 + i), f.json as string] as const);
    return { json: descr, dtype: rawDataType(size), itemSize: size, chars: 0, fill: null, fillMemory: new Uint8Array(size) };
  });

/** Any v1 dtype; `unicode` adds U<n> scalars (their values must fit n characters: see v1-metadata.ts). */
export function v1DtypeArb(unicode: boolean): Arbitrary<V1Dtype> {
  return fc.boolean().chain((big) => fc.oneof({ arbitrary: scalar(big, unicode), weight: 5 }, structured(big)));
}
