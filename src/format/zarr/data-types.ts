// Zarr v3 data types and how their elements live in memory.
//
// Memory representation (documented in the README):
//   bool                -> Uint8Array of 0/1
//   int8..int32, uint8..uint32, float32, float64 -> the matching typed array
//   int64 / uint64      -> BigInt64Array / BigUint64Array
//   float16             -> Float32Array (Node 20 has no Float16Array; values convert exactly on read,
//                          and round to nearest-even on write)
//   complex64/128       -> Float32Array/Float64Array, interleaved [re, im] (2 lanes per element)
//   r<N>                -> Uint8Array, N/8 bytes per element (N/8 lanes)
//   string (vlen)       -> string[]       (also `large_string`: the same values, int64 offsets)
//   binary (vlen)       -> Uint8Array[]   (aliases `bytes`, `variable_length_bytes`; `large_binary`)
//                          elements are treated as immutable: fills may share one instance
//   binary read through numcodecs' vlen-array -> TypedArray[]: each element the typed array of
//                          the codec's dtype (format/numpy/vlen-array.ts; the bytes on request)
import { floeError } from '../../errors.ts';

/** The typed arrays that hold numeric and boolean elements in memory. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** The element storage of a chunk or a selection result (TypedArray[]: vlen-array elements). */
export type ArrayData = TypedArray | string[] | Uint8Array[] | TypedArray[];

/** The family of a {@link DataType}. */
export type DataTypeKind = 'bool' | 'int' | 'uint' | 'float' | 'complex' | 'raw' | 'string' | 'binary';

/** A Zarr data type: how its elements are stored (item size) and held in memory (typed array, lanes). */
export interface DataType {
  /** The identifier as written in zarr.json. */
  readonly name: string;
  readonly kind: DataTypeKind;
  /** Bytes per element in the encoded (stored) form; 0 for variable-length types. */
  readonly itemSize: number;
  /** Numbers per element in memory: 2 for complex, N/8 for r<N>, 1 otherwise. */
  readonly lanes: number;
  /** Bytes of one memory lane (float16 is 4: it lives in a Float32Array). 0 for strings. */
  readonly laneBytes: number;
  /** Allocates memory for `n` elements (n * lanes numbers). */
  allocate(n: number): ArrayData;
}

type TypedArrayConstructor = { new (n: number): TypedArray; readonly BYTES_PER_ELEMENT: number };

function numeric(name: string, kind: DataTypeKind, itemSize: number, Ctor: TypedArrayConstructor, lanes = 1): DataType {
  return Object.freeze({
    name,
    kind,
    itemSize,
    lanes,
    laneBytes: Ctor.BYTES_PER_ELEMENT,
    allocate: (n: number) => new Ctor(n * lanes),
  });
}

const CORE: Readonly<Record<string, DataType>> = {
  bool: numeric('bool', 'bool', 1, Uint8Array),
  int8: numeric('int8', 'int', 1, Int8Array),
  int16: numeric('int16', 'int', 2, Int16Array),
  int32: numeric('int32', 'int', 4, Int32Array),
  int64: numeric('int64', 'int', 8, BigInt64Array),
  uint8: numeric('uint8', 'uint', 1, Uint8Array),
  uint16: numeric('uint16', 'uint', 2, Uint16Array),
  uint32: numeric('uint32', 'uint', 4, Uint32Array),
  uint64: numeric('uint64', 'uint', 8, BigUint64Array),
  float16: numeric('float16', 'float', 2, Float32Array),
  float32: numeric('float32', 'float', 4, Float32Array),
  float64: numeric('float64', 'float', 8, Float64Array),
  complex64: numeric('complex64', 'complex', 8, Float32Array, 2),
  complex128: numeric('complex128', 'complex', 16, Float64Array, 2),
  string: Object.freeze({
    name: 'string',
    kind: 'string',
    itemSize: 0,
    lanes: 1,
    laneBytes: 0,
    allocate: (n: number) => new Array<string>(n).fill(''),
  }),
  large_string: variableLength('large_string', 'string'),
  binary: variableLength('binary', 'binary'),
  large_binary: variableLength('large_binary', 'binary'),
};

/** Other names for the same types: zarr-python 3 and zarr-extensions call binary data "bytes". */
const ALIASES: Readonly<Record<string, string>> = { bytes: 'binary', variable_length_bytes: 'binary' };

const EMPTY_BYTES = new Uint8Array(0);

function variableLength(name: string, kind: 'string' | 'binary'): DataType {
  const allocate = kind === 'string' ? (n: number) => new Array<string>(n).fill('') : (n: number) => new Array<Uint8Array>(n).fill(EMPTY_BYTES);
  return Object.freeze({ name, kind, itemSize: 0, lanes: 1, laneBytes: 0, allocate });
}

/** True for the variable-length kinds, whose elements live in a JS array (string[] or Uint8Array[]). */
export function isVariableLength(dt: DataType): boolean {
  return dt.kind === 'string' || dt.kind === 'binary';
}

export const CORE_DATA_TYPE_NAMES: readonly string[] = Object.keys(CORE);

/** Resolves a `data_type` value from zarr.json (a string or `{name, configuration}`). */
export function parseDataType(value: unknown, where?: string): DataType {
  const name = typeof value === 'string' ? value : isNamed(value) ? value.name : undefined;
  if (name === undefined) {
    throw floeError('INVALID_METADATA', `data_type must be a string or {name}, got ${JSON.stringify(value)}`, { where });
  }
  const core = Object.hasOwn(CORE, name) ? CORE[name] : undefined;
  if (core) return core;
  const alias = Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
  // Keep the alias as the name so metadata written back says what it said.
  const aliased = alias === undefined ? undefined : CORE[alias];
  if (aliased) return Object.freeze({ ...aliased, name });
  const raw = /^r([1-9]\d*)$/.exec(name);
  if (raw) {
    const bits = Number(raw[1]);
    if (bits % 8 !== 0) {
      throw floeError('INVALID_METADATA', `raw data type ${name}: the number of bits must be a multiple of 8`, { where });
    }
    return numeric(name, 'raw', bits / 8, Uint8Array, bits / 8);
  }
  throw floeError('UNSUPPORTED', `data type ${JSON.stringify(name)} is not supported; Floe reads ${CORE_DATA_TYPE_NAMES.join(', ')} and r<N>`, { where });
}

function isNamed(v: unknown): v is { name: string } {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string';
}

/** True for data whose elements are JS numbers (not bigint, not strings). */
export function isNumberData(data: ArrayData): data is Exclude<TypedArray, BigInt64Array | BigUint64Array> {
  return !(data instanceof BigInt64Array || data instanceof BigUint64Array || Array.isArray(data));
}
