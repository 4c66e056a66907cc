// The NumPy dtypes numcodecs' filters name in their configurations ("dtype", "astype",
// "encode_dtype"): a typestr with or without byte order ("<i4", "|u1", "f8") as Zarr v2 writes
// them, or a NumPy name ("int32", "float32") as zarr-python 3's numcodecs.* wrappers write them.
// Only numeric and bool types: the filters do arithmetic on elements.
import { floeError } from '../../../errors.ts';
import { parseDataType, type DataType } from '../../zarr/data-types.ts';
import { shown } from '../bytes-codec-support.ts';

export type CodecByteOrder = 'little' | 'big' | 'none';

export interface CodecElementType {
  /** How elements live in memory (a v3 numeric type). */
  readonly dataType: DataType;
  /** The byte order the typestr states; 'none' for 1-byte types and for names without one. */
  readonly byteOrder: CodecByteOrder;
}

const CODES: Readonly<Record<string, string>> = {
  b1: 'bool', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64', u1: 'uint8', u2: 'uint16', u4: 'uint32', u8: 'uint64',
  f2: 'float16', f4: 'float32', f8: 'float64',
};
const NAMES = new Set(Object.values(CODES));

/** Reads `config[key]` as a numeric dtype; `fallback` (the array's type) when it is absent. */
export function readCodecDtype(codec: string, config: Record<string, unknown> | undefined, key: string, fallback?: DataType): CodecElementType {
  const value = config?.[key];
  if ((value === undefined || value === null) && fallback) return { dataType: fallback, byteOrder: 'none' };
  const parsed = typeof value === 'string' ? parseCodecDtype(value) : undefined;
  if (!parsed) {
    throw floeError('UNSUPPORTED', `${codec}: "${key}" ${shown(value)} is not a numeric NumPy dtype Floe reads (${Object.keys(CODES).join(', ')}, with "<", ">" or "|", or names such as "int32")`);
  }
  return parsed;
}

export function parseCodecDtype(text: string): CodecElementType | undefined {
  if (NAMES.has(text)) return { dataType: parseDataType(text), byteOrder: 'none' };
  const m = /^([<>|=]?)([biuf]\d)$/.exec(text);
  const name = m ? CODES[m[2] ?? ''] : undefined;
  if (!m || !name) return undefined;
  // "=" is the writer's native order; numcodecs and zarr only ever ran on little-endian hosts.
  const byteOrder: CodecByteOrder = m[1] === '>' ? 'big' : m[1] === '<' || m[1] === '=' ? 'little' : 'none';
  return { dataType: parseDataType(name), byteOrder };
}

/** Refuses a codec dtype that is not the type of the elements the codec receives. */
export function checkSameType(codec: string, key: string, declared: CodecElementType, actual: DataType): void {
  if (declared.dataType.name !== actual.name) {
    throw floeError('UNSUPPORTED', `${codec}: "${key}" is ${declared.dataType.name} but the elements it receives are ${actual.name}; Floe reads numcodecs filters whose ${key} is the array's own type`);
  }
}

/** True when memory holds the type's elements as bigints (BigInt64Array / BigUint64Array). */
export function isBigIntType(dataType: DataType): boolean {
  return dataType.name === 'int64' || dataType.name === 'uint64';
}
