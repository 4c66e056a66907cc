// Zarr v2 `dtype`: a NumPy dtype (format/numpy/dtype.ts, with datetimes and sub-array fields), or
// "|O" for object arrays, whose element codec is the first of `filters` (numcodecs' object codec).
// Floe reads vlen-utf8, json2 and msgpack2 (strings), vlen-bytes (binary) and vlen-array (typed
// arrays of the codec's dtype, numpy/vlen-array.ts) object arrays, and object arrays whose first
// filter is categorize (strings; zarr-python 2 needs no object codec then), which keeps
// categorize among the filters.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { objectDataType, parseNumpyDataType, V2_DIALECT, type NumpyDataType, type NumpyObjectType, type ObjectCodecId } from '../numpy/dtype.ts';
import { requireVlenArrayDtype } from '../numpy/vlen-array.ts';
import { OBJECT_CODECS, readNumcodecsConfig, type NumcodecsConfig } from '../numpy/numcodecs.ts';

/** NumPy typestrs of object arrays: NumPy writes "|O"; the byte order is meaningless for pointers. */
const OBJECT_TYPESTRS = ['|O', '<O', '>O'];

export interface V2DtypeAndFilters {
  readonly dtype: NumpyDataType;
  /** The filters after the object codec (all of them for non-object arrays). */
  readonly filters: readonly NumcodecsConfig[];
}

export function parseV2DataType(dtype: JsonValue | undefined, filters: JsonValue | undefined, where: string): V2DtypeAndFilters {
  const configs = readFilters(filters, where);
  if (typeof dtype === 'string' && OBJECT_TYPESTRS.includes(dtype)) {
    const [codec, ...rest] = configs;
    const type = objectType(codec, where);
    return { dtype: type, filters: type.objectCodec === 'categorize' ? configs : rest };
  }
  return { dtype: parseNumpyDataType(dtype, where, V2_DIALECT), filters: configs };
}

function objectType(codec: NumcodecsConfig | undefined, where: string): NumpyObjectType {
  if (codec === undefined) {
    throw floeError('INVALID_METADATA', `an object ("|O") array names its object codec as the first of "filters"; none is given (Floe reads ${OBJECT_CODECS.join(', ')})`, { where });
  }
  if (!OBJECT_CODECS.includes(codec.id)) {
    throw floeError('UNSUPPORTED', `object codec "${codec.id}" is not supported; Floe reads object arrays stored with ${OBJECT_CODECS.join(', ')}`, { where });
  }
  const { id, ...config } = codec;
  const type = objectDataType(id as ObjectCodecId, config);
  if (type.objectCodec === 'vlen-array') requireVlenArrayDtype(config.dtype, where); // fails naming .zarray
  return type;
}

function readFilters(filters: JsonValue | undefined, where: string): NumcodecsConfig[] {
  if (filters === undefined || filters === null) return [];
  if (!Array.isArray(filters)) throw floeError('INVALID_METADATA', `"filters" must be null or a list of codec configurations, got ${JSON.stringify(filters)}`, { where });
  return filters.map((f, i) => readNumcodecsConfig(f, `"filters"[${i}]`, where));
}
