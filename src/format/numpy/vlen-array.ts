// numcodecs' `vlen-array` object codec: every element of the object array is a 1-d NumPy array of
// the codec's `dtype`, framed as vlen-bytes frames its values (a u32le length, then the array's
// bytes in that dtype's byte order). In memory an element is what a flat array of that dtype
// reads into (data-types.ts), in native byte order:
//   b1, i*, u*, f2/f4/f8, c8/c16 -> the flat typed array (complex interleaved, float16 as flat)
//   M8[unit], m8[unit]           -> BigInt64Array of counts
//   S<n>, V<n>                   -> Uint8Array, n bytes per item, as stored (as flat S/V read)
//   U<n>, records                -> no typed form: UNSUPPORTED; the bytes form still reads them
// This module finds the element dtype (loaded with every array); parsing it and turning bytes into
// typed arrays and back is vlen-array-codec.ts, loaded with the first vlen-array read or write.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import type { DataType } from '../zarr/data-types.ts';
import type { Attributes } from '../zarr/metadata.ts';
import type { NumpyDataType, NumpyScalarType } from './dtype.ts';

/** How `get` returns and `set` takes the elements of a vlen-array array. Default 'typed'. */
export type VlenArrayForm = 'typed' | 'bytes';

/** The element type of a vlen-array object array. */
export interface VlenArrayElement {
  /** The codec's `dtype` as written ("<i4", "|S3", a record descr, ...). */
  readonly dtype: JsonValue;
  /** What each element reads into; undefined when the dtype has no typed form (see `unsupported`). */
  readonly dataType: DataType | undefined;
  /** Why elements have no typed form (U<n>, records, a dtype Floe cannot read), else undefined. */
  readonly unsupported: string | undefined;
}

/** A typed element type: its NumPy dtype says the item size and byte order. */
export interface TypedVlenArrayElement extends VlenArrayElement {
  readonly dataType: DataType;
  readonly unsupported: undefined;
  readonly numpy: NumpyScalarType;
}

/**
 * Attribute holding the element dtype of a `binary` v3 array converted from a vlen-array one
 * (convertV2ToV3, `floe import`): Floe reads such an array's elements as typed arrays again.
 */
export const VLEN_ARRAY_DTYPE_ATTRIBUTE = 'floe.vlen_array_dtype';

/** A vlen-array configuration's `dtype` must be there: a typestr or a record descr (INVALID_METADATA). */
export function requireVlenArrayDtype(dtype: JsonValue | undefined, where?: string): JsonValue {
  if (typeof dtype === 'string' || Array.isArray(dtype)) return dtype;
  throw floeError('INVALID_METADATA', `vlen-array needs its element "dtype" (a NumPy typestr such as "<i4"), got ${JSON.stringify(dtype ?? null)}`, { where });
}

/** The element dtype (as written) of a v2 object array stored with vlen-array; undefined for any other dtype. */
export function objectArrayDtype(dtype: NumpyDataType): JsonValue | undefined {
  return dtype.kind === 'object' && dtype.objectCodec === 'vlen-array' ? (dtype.objectConfig.dtype ?? null) : undefined;
}

/** The element dtype a converted `binary` v3 array records in {@link VLEN_ARRAY_DTYPE_ATTRIBUTE}; else undefined. */
export function attributeArrayDtype(dataType: DataType, attributes: Attributes): JsonValue | undefined {
  return dataType.kind === 'binary' && Object.hasOwn(attributes, VLEN_ARRAY_DTYPE_ATTRIBUTE) ? attributes[VLEN_ARRAY_DTYPE_ATTRIBUTE] : undefined;
}
