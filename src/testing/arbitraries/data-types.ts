// Every Zarr v3 data type Floe holds in fixed-size memory (plus `string`), described the way the
// model needs it: how many memory bytes an element takes, its lanes, and its typed-array class.
// Elements travel as raw memory bytes so comparisons are bit-exact (NaN payloads included).
import type { ArrayData } from '../../format/zarr/data-types.ts';
import { floeError } from '../../errors.ts';

export type DataTypeKind = 'bool' | 'int' | 'uint' | 'float' | 'complex' | 'raw' | 'string';
type Ctor = new (buffer: ArrayBuffer) => Exclude<ArrayData, string[]>;

/** A data type as the model sees it: memory bytes per element, lanes, typed-array class and byte-swap width. */
export interface TestDataType {
  readonly name: string;
  readonly kind: DataTypeKind;
  /** Bytes per element in memory (float16 lives in 4-byte float32 lanes); 0 for strings. */
  readonly memBytes: number;
  /** Bytes per lane in memory. */
  readonly laneBytes: number;
  readonly Ctor: Ctor | undefined;
  /** Bytes per stored number: decides whether the bytes codec needs `endian`. */
  readonly swapWidth: number;
}

const dt = (name: string, kind: DataTypeKind, memBytes: number, laneBytes: number, Ctor: Ctor | undefined, swapWidth: number): TestDataType =>
  Object.freeze({ name, kind, memBytes, laneBytes, Ctor, swapWidth });

/** Every data type the arbitraries draw from: the fixed-size Zarr v3 types Floe holds, and `string`. */
export const DATA_TYPES: readonly TestDataType[] = Object.freeze([
  dt('bool', 'bool', 1, 1, Uint8Array, 1),
  dt('int8', 'int', 1, 1, Int8Array, 1),
  dt('int16', 'int', 2, 2, Int16Array, 2),
  dt('int32', 'int', 4, 4, Int32Array, 4),
  dt('int64', 'int', 8, 8, BigInt64Array, 8),
  dt('uint8', 'uint', 1, 1, Uint8Array, 1),
  dt('uint16', 'uint', 2, 2, Uint16Array, 2),
  dt('uint32', 'uint', 4, 4, Uint32Array, 4),
  dt('uint64', 'uint', 8, 8, BigUint64Array, 8),
  dt('float16', 'float', 4, 4, Float32Array, 2),
  dt('float32', 'float', 4, 4, Float32Array, 4),
  dt('float64', 'float', 8, 8, Float64Array, 8),
  dt('complex64', 'complex', 8, 4, Float32Array, 4),
  dt('complex128', 'complex', 16, 8, Float64Array, 8),
  dt('r16', 'raw', 2, 1, Uint8Array, 1),
  dt('r24', 'raw', 3, 1, Uint8Array, 1),
  dt('string', 'string', 0, 0, undefined, 0),
]);

/** The {@link TestDataType} of a name; throws `RangeError` for an unknown one. */
export function dataTypeNamed(name: string): TestDataType {
  const found = DATA_TYPES.find((d) => d.name === name);
  if (!found) throw new RangeError(`no test data type ${name}; known: ${DATA_TYPES.map((d) => d.name).join(', ')}`);
  return found;
}

/** Element values: raw memory bytes for fixed-size types, strings for `string`. */
export type ElementValues = Uint8Array | string[];

export const INT_BOUNDS: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int8: [-128n, 127n], int16: [-32768n, 32767n], int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n], uint16: [0n, 65535n], uint32: [0n, 2n ** 32n - 1n], uint64: [0n, 2n ** 64n - 1n],
};

/** The [min, max] of an integer data type by name; INVALID_ARGUMENT for any other name. */
export function intBounds(name: string): readonly [bigint, bigint] {
  const bounds = INT_BOUNDS[name];
  if (!bounds) throw floeError('INVALID_ARGUMENT', `${name} is not an integer data type`);
  return bounds;
}

/** An integer's memory bytes (little-endian, as JS typed arrays hold them on every platform Node runs on). */
export function intMemory(name: string, v: bigint): Uint8Array {
  const d = dataTypeNamed(name);
  const out = new Uint8Array(d.memBytes);
  for (let b = 0; b < d.memBytes; b++) out[b] = Number((BigInt.asUintN(64, v) >> BigInt(8 * b)) & 0xffn);
  return out;
}

/** Raw memory bytes -> the engine's memory form (a typed array of the data type's class). */
export function toArrayData(d: TestDataType, values: Uint8Array | readonly string[]): ArrayData {
  if (d.kind === 'string') return [...(values as readonly string[])];
  return new d.Ctor!((values as Uint8Array).slice().buffer);
}

/** The engine's memory form -> raw bytes (strings stay strings). */
export function bytesOf(data: ArrayData): ElementValues {
  if (Array.isArray(data)) return data as string[]; // the model has no binary data types
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
