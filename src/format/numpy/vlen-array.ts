// numcodecs' `vlen-array` object codec: every element of the object array is a 1-d NumPy array of
// the codec's `dtype`, framed as vlen-bytes frames its values (a u32le length, then the array's
// bytes in that dtype's byte order). In memory an element is what a flat array of that dtype
// reads into (data-types.ts), in native byte order: the element's bytes go through the `bytes`
// codec itself, so float16, complex, bool and datetimes follow the flat arrays' rule.
//   b1, i*, u*, f2/f4/f8, c8/c16 -> the flat typed array (complex interleaved, float16 as flat)
//   M8[unit], m8[unit]           -> BigInt64Array of counts
//   S<n>, V<n>                   -> Uint8Array, n bytes per item, as stored (as flat S/V read)
//   U<n>, records                -> no typed form: UNSUPPORTED; the bytes form still reads them
import { floeError, isFloeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { bytesCodec } from '../codecs/bytes.ts';
import type { ArrayToBytesCodec, ChunkSpec } from '../codecs/array-codecs.ts';
import type { DataType, TypedArray } from '../zarr/data-types.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import type { Attributes } from '../zarr/metadata.ts';
import { parseNumpyDataType, V2_DIALECT, type NumpyDataType, type NumpyScalarType } from './dtype.ts';

/** The element type of a vlen-array object array: how each element's bytes become a typed array. */
export interface VlenArrayElement {
  /** The codec's `dtype` as written ("<i4", "|S3", a record descr, ...). */
  readonly dtype: JsonValue;
  /** What each element reads into; undefined when the dtype has no typed form (see `unsupported`). */
  readonly dataType: DataType | undefined;
  /** Why elements have no typed form (U<n>, records, a dtype Floe cannot read), else undefined. */
  readonly unsupported: string | undefined;
}

/** A typed element type: one whose elements Floe turns into typed arrays and back. */
interface TypedElement extends VlenArrayElement {
  readonly dataType: DataType;
  readonly numpy: NumpyScalarType;
  readonly codec: ArrayToBytesCodec;
}

/**
 * Attribute holding the element dtype of a `binary` v3 array converted from a vlen-array one
 * (convertV2ToV3, `floe import`): Floe reads such an array's elements as typed arrays again.
 */
export const VLEN_ARRAY_DTYPE_ATTRIBUTE = 'floe.vlen_array_dtype';

const BYTES_OPTION = 'read and write the elements\' bytes with { vlenArray: \'bytes\' }';

/**
 * The element type named by a vlen-array configuration's `dtype`. A missing or malformed value
 * is INVALID_METADATA; a dtype with no typed form is kept, to be refused where elements are typed.
 */
export function vlenArrayElement(dtype: JsonValue | undefined, where?: string): VlenArrayElement {
  if (typeof dtype !== 'string' && !Array.isArray(dtype)) {
    throw floeError('INVALID_METADATA', `vlen-array needs its element "dtype" (a NumPy typestr such as "<i4"), got ${JSON.stringify(dtype ?? null)}`, { where });
  }
  let parsed;
  try {
    parsed = parseNumpyDataType(dtype, where ?? 'vlen-array', V2_DIALECT);
  } catch (err) {
    if (isFloeError(err, 'UNSUPPORTED')) return untyped(dtype, err.message);
    throw err;
  }
  if (parsed.kind === 'object') return untyped(dtype, 'object elements have no typed-array form');
  if (parsed.kind === 'structured') return untyped(dtype, 'record elements have no typed-array form');
  if (parsed.kind === 'unicode') return untyped(dtype, 'U<n> elements (arrays of strings) have no typed-array form');
  const endian = parsed.byteOrder === 'none' ? undefined : { endian: parsed.byteOrder };
  const codec = bytesCodec(endian, parsed.dataType);
  const element: TypedElement = { dtype, dataType: parsed.dataType, unsupported: undefined, numpy: parsed, codec };
  return Object.freeze(element);
}

/** The element type of a v2 object array stored with vlen-array; undefined for any other dtype. */
export function objectArrayElement(dtype: NumpyDataType, where?: string): VlenArrayElement | undefined {
  if (dtype.kind !== 'object' || dtype.objectCodec !== 'vlen-array') return undefined;
  return vlenArrayElement(dtype.objectConfig.dtype, where);
}

/** The element type a converted `binary` v3 array records in {@link VLEN_ARRAY_DTYPE_ATTRIBUTE}. */
export function attributeArrayElement(dataType: DataType, attributes: Attributes, where?: string): VlenArrayElement | undefined {
  if (dataType.kind !== 'binary' || !Object.hasOwn(attributes, VLEN_ARRAY_DTYPE_ATTRIBUTE)) return undefined;
  return vlenArrayElement(attributes[VLEN_ARRAY_DTYPE_ATTRIBUTE], where);
}

function untyped(dtype: JsonValue, why: string): VlenArrayElement {
  return Object.freeze({ dtype, dataType: undefined, unsupported: why });
}

/** The element's typed form, or UNSUPPORTED naming the bytes option. */
export function requireTypedElements(element: VlenArrayElement, where: string): void {
  typed(element, where);
}

function typed(element: VlenArrayElement, where: string): TypedElement {
  if (element.unsupported !== undefined) {
    throw floeError('UNSUPPORTED', `vlen-array elements of dtype ${JSON.stringify(element.dtype)}: ${element.unsupported}; ${BYTES_OPTION}`, { where });
  }
  return element as TypedElement;
}

function specOf(element: TypedElement, items: number): ChunkSpec {
  return { shape: [items], dataType: element.dataType, fillValue: defaultFillValue(element.dataType) };
}

/** Where an element sits, for messages: its index and the chunk key holding it (worked out on failure only). */
export type ElementPlace = () => { readonly index: string; readonly where: string };

/** One stored element (its bytes, in the dtype's byte order) as a fresh typed array. */
export function decodeVlenElement(element: VlenArrayElement, bytes: Uint8Array, place: ElementPlace): TypedArray {
  const el = element.unsupported === undefined ? (element as TypedElement) : typed(element, place().where);
  const size = el.numpy.itemSize;
  if (bytes.length % size !== 0) {
    const { index, where } = place();
    throw floeError('CORRUPT_OBJECT', `vlen-array element ${index} holds ${bytes.length} bytes, not a whole number of ${JSON.stringify(el.dtype)} items (${size} bytes each)`, { where });
  }
  // A copy first: the decoded value never shares memory with a chunk a cache may keep.
  return el.codec.decode(bytes.slice(), specOf(el, bytes.length / size)).data as TypedArray;
}

/** One element to store: `values` must be the typed array a read gives for the dtype. */
export function encodeVlenElement(element: VlenArrayElement, values: unknown, index: string, where: string): Uint8Array {
  const el = typed(element, where);
  const want = el.dataType.allocate(0).constructor as abstract new (...args: never[]) => TypedArray;
  if (!(values instanceof want)) {
    throw floeError('INVALID_ARGUMENT', `element ${index} of a vlen-array ${JSON.stringify(el.dtype)} array must be a ${want.name}, got ${describe(values)}; ${BYTES_OPTION}`, { where });
  }
  const lanes = el.dataType.lanes;
  if (values.length % lanes !== 0) {
    throw floeError('INVALID_ARGUMENT', `element ${index} holds ${values.length} numbers, not a whole number of ${JSON.stringify(el.dtype)} items (${lanes} numbers each)`, { where });
  }
  const items = values.length / lanes;
  return el.codec.encode({ data: values, shape: [items], stride: [1] }, specOf(el, items));
}

/** Checks stored bytes given in the bytes form: a whole number of items of the dtype. */
export function checkVlenElementBytes(element: VlenArrayElement, bytes: Uint8Array, index: string, where: string): void {
  if (element.dataType === undefined) return; // untyped dtypes: NumPy's itemsize is not known here
  const size = (element as TypedElement).numpy.itemSize;
  if (bytes.length % size !== 0) {
    throw floeError('INVALID_ARGUMENT', `element ${index} holds ${bytes.length} bytes, not a whole number of ${JSON.stringify(element.dtype)} items (${size} bytes each)`, { where });
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return typeof v;
}
