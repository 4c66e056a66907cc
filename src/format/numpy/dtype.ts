// NumPy dtypes as Zarr v1 and v2 write them: a typestr with explicit byte order ("<f8", ">i2",
// "|b1", "|S12", "<U5", "<M8[ns]"), or a structured descr (a list of [name, typestr] or
// [name, typestr, shape] entries), mapped onto the engine's data types:
//   b1, i*, u*, f2/f4/f8, c8/c16 -> the v3 numeric type of that width (byte order in the codec)
//   M8[unit], m8[unit]           -> int64 (NumPy's own storage; NaT is the minimum), v2 only
//   S<n>, V<n>                   -> r<8n>: n raw bytes per element, exactly as stored
//   U<n>                         -> string: n UCS-4 code units on disk, trailing NULs dropped
//   structured                   -> r<8 * itemsize>: whole records as raw bytes; see records.ts
// What a format accepts beyond v1's set (datetimes, sub-array fields) is its `NumpyDialect`.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { parseDataType, type DataType } from '../zarr/data-types.ts';

export type ByteOrder = 'little' | 'big' | 'none';

export interface NumpyField {
  readonly name: string;
  /** Byte offset of the field inside a record. */
  readonly offset: number;
  readonly type: NumpyScalarType;
  /** A sub-array field's shape ([] for a plain field); `count` elements of `type` each. */
  readonly shape: readonly number[];
  readonly count: number;
}

interface NumpyCommon {
  /** The dtype value as written in the metadata. */
  readonly json: JsonValue;
  /** Bytes per element on disk. */
  readonly itemSize: number;
  /** How elements live in memory (and in a converted v3 array). */
  readonly dataType: DataType;
}

export interface NumpyScalarType extends NumpyCommon {
  readonly kind: 'numeric' | 'bytes' | 'unicode' | 'datetime';
  readonly typestr: string;
  readonly byteOrder: ByteOrder;
  /** datetime64 / timedelta64: the unit in brackets ("ns", "10s"); undefined otherwise. */
  readonly unit?: string;
}

export interface NumpyStructuredType extends NumpyCommon {
  readonly kind: 'structured';
  readonly fields: readonly NumpyField[];
}

/**
 * An object array ("|O"): Python objects, stored through an object codec (Zarr v2's first
 * filter). vlen-utf8, json2 and msgpack2 hold strings, and categorize strings as integers (a
 * filter, not an object codec: no element codec then); vlen-bytes holds binary values, and
 * vlen-array 1-d NumPy arrays of its "dtype" (vlen-array's framing is vlen-bytes'). In the chunk
 * chain string[] or Uint8Array[]; vlen-array's elements become typed arrays above it
 * (vlen-array.ts).
 */
export interface NumpyObjectType extends NumpyCommon {
  readonly kind: 'object';
  readonly objectCodec: ObjectCodecId;
  /** The object codec's configuration less "id" (json2's layout, vlen-array's dtype). */
  readonly objectConfig: Readonly<Record<string, JsonValue>>;
}

export type ObjectCodecId = 'vlen-utf8' | 'vlen-bytes' | 'vlen-array' | 'json2' | 'msgpack2' | 'categorize';

const BINARY_OBJECT_CODECS: readonly ObjectCodecId[] = ['vlen-bytes', 'vlen-array'];

export type NumpyDataType = NumpyScalarType | NumpyStructuredType | NumpyObjectType;

/** The object dtype read through `codec`; its chunks are that codec's bytes (item size 1). */
export function objectDataType(codec: ObjectCodecId, objectConfig: Readonly<Record<string, JsonValue>> = {}): NumpyObjectType {
  const dataType = parseDataType(BINARY_OBJECT_CODECS.includes(codec) ? 'binary' : 'string');
  return Object.freeze({ json: '|O', kind: 'object', itemSize: 1, dataType, objectCodec: codec, objectConfig });
}

/** What a format allows beyond the types every NumPy-based Zarr format shares. */
export interface NumpyDialect {
  /** datetime64 ("M8[ns]") and timedelta64 ("m8[s]") with a unit. */
  readonly datetimes: boolean;
  /** Structured fields with a shape: [name, typestr, [2, 3]]. */
  readonly subarrays: boolean;
}

export const V1_DIALECT: NumpyDialect = Object.freeze({ datetimes: false, subarrays: false });
export const V2_DIALECT: NumpyDialect = Object.freeze({ datetimes: true, subarrays: true });

const NUMERIC: Readonly<Record<string, string>> = {
  b1: 'bool', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64', u1: 'uint8', u2: 'uint16', u4: 'uint32', u8: 'uint64',
  f2: 'float16', f4: 'float32', f8: 'float64', c8: 'complex64', c16: 'complex128',
};

/** NumPy's datetime units, longest first so "ms" is not read as "m" + "s". */
const DATETIME_UNITS = ['as', 'fs', 'ps', 'ns', 'us', 'ms', 'Y', 'M', 'W', 'D', 'h', 'm', 's'];

export function parseNumpyDataType(value: JsonValue | undefined, where: string, dialect: NumpyDialect): NumpyDataType {
  if (typeof value === 'string') return parseTypestr(value, where, dialect);
  if (Array.isArray(value)) return parseStructured(value, where, dialect);
  throw floeError('INVALID_METADATA', `"dtype" must be a typestr such as "<f8" or a list of [name, typestr] pairs, got ${JSON.stringify(value)}`, { where });
}

function parseTypestr(typestr: string, where: string, dialect: NumpyDialect): NumpyScalarType {
  // NumPy type codes incl. ones a dialect may refuse below (datetime M/m with a unit, object O).
  const m = /^([<>|=])([biufcSUVMmO])(\d+)(?:\[(\w+)\])?$/.exec(typestr);
  if (!m) {
    throw floeError('INVALID_METADATA', `"dtype" ${JSON.stringify(typestr)} is not a NumPy typestr with a byte order (e.g. "<f8", "|u1", "|S12")`, { where });
  }
  const [, order, code, sizeText, unit] = m as unknown as [string, string, string, string, string | undefined];
  const size = Number(sizeText);
  const unsupported = (why: string): never => {
    throw floeError('UNSUPPORTED', `dtype ${JSON.stringify(typestr)}: ${why}`, { where });
  };
  // '=' (native order) never appears in files zarr wrote, which resolves it first; reading it
  // as little-endian would guess.
  if (order === '=') unsupported('native byte order "=" is ambiguous in a file; write "<" or ">"');
  const byteOrder: ByteOrder = order === '<' ? 'little' : order === '>' ? 'big' : 'none';
  if (code === 'S' || code === 'V' || code === 'U') {
    if (size === 0) unsupported('zero-length elements are not supported');
    if (code === 'U') {
      if (byteOrder === 'none') invalidOrder(typestr, where);
      return scalar(typestr, 'unicode', byteOrder, size * 4, parseDataType('string'));
    }
    return scalar(typestr, 'bytes', byteOrder, size, parseDataType(`r${size * 8}`));
  }
  if ((code === 'M' || code === 'm') && dialect.datetimes) return datetime(typestr, byteOrder, size, unit, where);
  const name = NUMERIC[code + size] ?? unsupported(`NumPy type ${code}${size} has no Floe equivalent; supported: ${Object.keys(NUMERIC).join(', ')}, S<n>, U<n>, V<n>${dialect.datetimes ? ', M8[unit], m8[unit]' : ''}`);
  if (byteOrder === 'none' && size > 1) invalidOrder(typestr, where);
  return scalar(typestr, 'numeric', byteOrder, size, parseDataType(name));
}

function datetime(typestr: string, byteOrder: ByteOrder, size: number, unit: string | undefined, where: string): NumpyScalarType {
  if (size !== 8) throw floeError('INVALID_METADATA', `dtype ${JSON.stringify(typestr)}: datetime64 and timedelta64 are 8 bytes`, { where });
  if (byteOrder === 'none') invalidOrder(typestr, where);
  const parsed = unit === undefined ? undefined : /^(\d*)([a-zA-Z]+)$/.exec(unit);
  if (unit === undefined || !parsed || !DATETIME_UNITS.includes(parsed[2] ?? '') || (parsed[1] !== '' && Number(parsed[1]) === 0)) {
    throw floeError('UNSUPPORTED', `dtype ${JSON.stringify(typestr)}: datetime64/timedelta64 need a unit such as [ns] or [10s] (one of ${DATETIME_UNITS.join(', ')}); generic units are not stored by zarr`, { where });
  }
  return Object.freeze({ json: typestr, typestr, kind: 'datetime', byteOrder, itemSize: 8, dataType: parseDataType('int64'), unit });
}

function invalidOrder(typestr: string, where: string): never {
  throw floeError('INVALID_METADATA', `dtype ${JSON.stringify(typestr)}: a multi-byte type needs "<" or ">" byte order`, { where });
}

function scalar(typestr: string, kind: NumpyScalarType['kind'], byteOrder: ByteOrder, itemSize: number, dataType: DataType): NumpyScalarType {
  return Object.freeze({ json: typestr, typestr, kind, byteOrder, itemSize, dataType });
}

function parseStructured(descr: readonly JsonValue[], where: string, dialect: NumpyDialect): NumpyStructuredType {
  if (descr.length === 0) throw floeError('INVALID_METADATA', '"dtype" lists no fields', { where });
  const fields: NumpyField[] = [];
  let offset = 0;
  for (const entry of descr) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || (entry.length !== 2 && entry.length !== 3)) {
      throw floeError('INVALID_METADATA', `structured dtype entries must be [name, typestr] or [name, typestr, shape], got ${JSON.stringify(entry)}`, { where });
    }
    const [name, typestr, shapeJson] = entry;
    if (typeof typestr !== 'string') {
      throw floeError('UNSUPPORTED', `structured field ${JSON.stringify(name)}: nested records are not supported; fields must be scalar typestrs`, { where });
    }
    if (name === '' || fields.some((f) => f.name === name)) {
      throw floeError('INVALID_METADATA', `structured dtype field names must be non-empty and unique, got ${JSON.stringify(name)}`, { where });
    }
    const shape = fieldShape(name, shapeJson, where, dialect);
    const type = parseTypestr(typestr, where, dialect);
    const count = shape.reduce((a, b) => a * b, 1);
    fields.push(Object.freeze({ name, offset, type, shape, count }));
    offset += type.itemSize * count;
  }
  return Object.freeze({ json: descr as JsonValue, kind: 'structured', fields, itemSize: offset, dataType: parseDataType(`r${offset * 8}`) });
}

function fieldShape(name: string, shape: JsonValue | undefined, where: string, dialect: NumpyDialect): number[] {
  if (shape === undefined) return [];
  if (!dialect.subarrays) {
    throw floeError('UNSUPPORTED', `structured field ${JSON.stringify(name)}: sub-array fields ([name, typestr, shape]) are not supported`, { where });
  }
  if (!Array.isArray(shape) || !shape.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1)) {
    throw floeError('INVALID_METADATA', `structured field ${JSON.stringify(name)}: the shape must be a list of positive integers, got ${JSON.stringify(shape)}`, { where });
  }
  return shape as number[];
}
