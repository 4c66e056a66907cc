// Zarr v1 `dtype`: a NumPy typestr with explicit byte order ("<f8", ">i2", "|b1", "|S12",
// "<U5", "|V4"), or a structured descr (a list of [name, typestr] pairs), mapped onto the
// engine's data types:
//   b1, i*, u*, f2/f4/f8, c8/c16 -> the v3 numeric type of that width (byte order in the codec)
//   S<n>, V<n>                   -> r<8n>: n raw bytes per element, exactly as stored
//   U<n>                         -> string: n UCS-4 code units on disk, trailing NULs dropped
//   structured                   -> r<8 * itemsize>: whole records as raw bytes; see structured.ts
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { parseDataType, type DataType } from '../zarr/data-types.ts';

export type ByteOrder = 'little' | 'big' | 'none';

export interface V1Field {
  readonly name: string;
  /** Byte offset of the field inside a record. */
  readonly offset: number;
  readonly type: V1ScalarType;
}

interface V1Common {
  /** The `dtype` value as written in `meta`. */
  readonly json: JsonValue;
  /** Bytes per element on disk. */
  readonly itemSize: number;
  /** How elements live in memory (and in the converted v3 array). */
  readonly dataType: DataType;
}

export interface V1ScalarType extends V1Common {
  readonly kind: 'numeric' | 'bytes' | 'unicode';
  readonly typestr: string;
  readonly byteOrder: ByteOrder;
}

export interface V1StructuredType extends V1Common {
  readonly kind: 'structured';
  readonly fields: readonly V1Field[];
}

export type V1DataType = V1ScalarType | V1StructuredType;

const NUMERIC: Readonly<Record<string, string>> = {
  b1: 'bool', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64', u1: 'uint8', u2: 'uint16', u4: 'uint32', u8: 'uint64',
  f2: 'float16', f4: 'float32', f8: 'float64', c8: 'complex64', c16: 'complex128',
};

export function parseV1DataType(value: JsonValue | undefined, where: string): V1DataType {
  if (typeof value === 'string') return parseTypestr(value, where);
  if (Array.isArray(value)) return parseStructured(value, where);
  throw floeError('INVALID_METADATA', `"dtype" must be a typestr such as "<f8" or a list of [name, typestr] pairs, got ${JSON.stringify(value)}`, { where });
}

function parseTypestr(typestr: string, where: string): V1ScalarType {
  // NumPy type codes incl. ones Floe refuses below (datetime M/m with a unit, object O).
  const m = /^([<>|=])([biufcSUVMmO])(\d+)(\[\w+\])?$/.exec(typestr);
  if (!m) {
    throw floeError('INVALID_METADATA', `"dtype" ${JSON.stringify(typestr)} is not a NumPy typestr with a byte order (e.g. "<f8", "|u1", "|S12")`, { where });
  }
  const [, order, code, sizeText] = m as unknown as [string, string, string, string];
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
  const name = NUMERIC[code + size] ?? unsupported(`NumPy type ${code}${size} has no Floe equivalent; supported: ${Object.keys(NUMERIC).join(', ')}, S<n>, U<n>, V<n>`);
  if (byteOrder === 'none' && size > 1) invalidOrder(typestr, where);
  return scalar(typestr, 'numeric', byteOrder, size, parseDataType(name));
}

function invalidOrder(typestr: string, where: string): never {
  throw floeError('INVALID_METADATA', `dtype ${JSON.stringify(typestr)}: a multi-byte type needs "<" or ">" byte order`, { where });
}

function scalar(typestr: string, kind: V1ScalarType['kind'], byteOrder: ByteOrder, itemSize: number, dataType: DataType): V1ScalarType {
  return Object.freeze({ json: typestr, typestr, kind, byteOrder, itemSize, dataType });
}

function parseStructured(descr: readonly JsonValue[], where: string): V1StructuredType {
  if (descr.length === 0) throw floeError('INVALID_METADATA', '"dtype" lists no fields', { where });
  const fields: V1Field[] = [];
  let offset = 0;
  for (const entry of descr) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
      throw floeError('INVALID_METADATA', `structured dtype entries must be [name, typestr], got ${JSON.stringify(entry)}`, { where });
    }
    if (entry.length !== 2) {
      throw floeError('UNSUPPORTED', `structured field ${JSON.stringify(entry[0])}: sub-array fields ([name, typestr, shape]) are not supported`, { where });
    }
    const name = entry[0];
    if (name === '' || fields.some((f) => f.name === name)) {
      throw floeError('INVALID_METADATA', `structured dtype field names must be non-empty and unique, got ${JSON.stringify(name)}`, { where });
    }
    const type = parseTypestr(entry[1], where);
    fields.push(Object.freeze({ name, offset, type }));
    offset += type.itemSize;
  }
  return Object.freeze({ json: descr as JsonValue, kind: 'structured', fields, itemSize: offset, dataType: parseDataType(`r${offset * 8}`) });
}
