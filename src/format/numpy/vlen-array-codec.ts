// vlen-array element types parsed from the codec's `dtype` (vlen-array.ts lists the mapping), and
// one element's bytes <-> its typed array. The bytes go through the `bytes` codec itself, so
// float16, complex, bool and datetimes follow the flat arrays' memory rule. Loaded with the first
// vlen-array read or write.
import { floeError, isFloeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import { bytesCodec } from '../codecs/bytes.ts';
import type { ArrayToBytesCodec, ChunkSpec } from '../codecs/array-codecs.ts';
import type { TypedArray } from '../zarr/data-types.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import { parseNumpyDataType, V2_DIALECT, type NumpyDataType } from './dtype.ts';
import { requireVlenArrayDtype, type TypedVlenArrayElement, type VlenArrayElement } from './vlen-array.ts';

/**
 * The element type named by a vlen-array configuration's `dtype`. A missing or malformed value
 * is INVALID_METADATA; a dtype with no typed form is kept, to be refused where elements are typed.
 */
export function vlenArrayElement(value: JsonValue | undefined, where?: string): VlenArrayElement {
  const dtype = requireVlenArrayDtype(value, where);
  let parsed: NumpyDataType;
  try {
    parsed = parseNumpyDataType(dtype, where ?? 'vlen-array', V2_DIALECT);
  } catch (err) {
    if (isFloeError(err, 'UNSUPPORTED')) return untyped(dtype, err.message);
    throw err;
  }
  if (parsed.kind === 'object') return untyped(dtype, 'object elements have no typed-array form');
  if (parsed.kind === 'structured') return untyped(dtype, 'record elements have no typed-array form');
  if (parsed.kind === 'unicode') return untyped(dtype, 'U<n> elements (arrays of strings) have no typed-array form');
  const element: TypedVlenArrayElement = { dtype, dataType: parsed.dataType, unsupported: undefined, numpy: parsed };
  return Object.freeze(element);
}

function untyped(dtype: JsonValue, why: string): VlenArrayElement {
  return Object.freeze({ dtype, dataType: undefined, unsupported: why });
}

const BYTES_OPTION = 'read and write the elements\' bytes with { vlenArray: \'bytes\' }';

/** Where an element sits, for messages: its index and the chunk key holding it (worked out on failure only). */
export type ElementPlace = () => { readonly index: string; readonly where: string };

/** Each element type's `bytes` codec, built once. */
const codecs = new WeakMap<VlenArrayElement, ArrayToBytesCodec>();

function codecOf(el: TypedVlenArrayElement): ArrayToBytesCodec {
  let codec = codecs.get(el);
  if (!codec) {
    const order = el.numpy.byteOrder;
    codec = bytesCodec(order === 'none' ? undefined : { endian: order }, el.dataType);
    codecs.set(el, codec);
  }
  return codec;
}

/** The element's typed form, or UNSUPPORTED naming the bytes option. */
export function requireTypedElements(element: VlenArrayElement, where: string): TypedVlenArrayElement {
  if (element.unsupported !== undefined) {
    throw floeError('UNSUPPORTED', `vlen-array elements of dtype ${JSON.stringify(element.dtype)}: ${element.unsupported}; ${BYTES_OPTION}`, { where });
  }
  return element as TypedVlenArrayElement;
}

function specOf(el: TypedVlenArrayElement, items: number): ChunkSpec {
  return { shape: [items], dataType: el.dataType, fillValue: defaultFillValue(el.dataType) };
}

/** One stored element (its bytes, in the dtype's byte order) as a fresh typed array. */
export function decodeVlenElement(element: VlenArrayElement, bytes: Uint8Array, place: ElementPlace): TypedArray {
  const el = element.unsupported === undefined ? (element as TypedVlenArrayElement) : requireTypedElements(element, place().where);
  const size = el.numpy.itemSize;
  if (bytes.length % size !== 0) {
    const { index, where } = place();
    throw floeError('CORRUPT_OBJECT', `vlen-array element ${index} holds ${bytes.length} bytes, not a whole number of ${JSON.stringify(el.dtype)} items (${size} bytes each)`, { where });
  }
  // A copy first: the decoded value never shares memory with a chunk a cache may keep.
  return codecOf(el).decode(bytes.slice(), specOf(el, bytes.length / size)).data as TypedArray;
}

/** One element to store: `values` must be the typed array a read gives for the dtype. */
export function encodeVlenElement(element: VlenArrayElement, values: unknown, index: string, where: string): Uint8Array {
  const el = requireTypedElements(element, where);
  const want = el.dataType.allocate(0).constructor as abstract new (...args: never[]) => TypedArray;
  if (!(values instanceof want)) {
    throw floeError('INVALID_ARGUMENT', `element ${index} of a vlen-array ${JSON.stringify(el.dtype)} array must be a ${want.name}, got ${describe(values)}; ${BYTES_OPTION}`, { where });
  }
  const lanes = el.dataType.lanes;
  if (values.length % lanes !== 0) {
    throw floeError('INVALID_ARGUMENT', `element ${index} holds ${values.length} numbers, not a whole number of ${JSON.stringify(el.dtype)} items (${lanes} numbers each)`, { where });
  }
  const items = values.length / lanes;
  return codecOf(el).encode({ data: values, shape: [items], stride: [1] }, specOf(el, items));
}

/** Checks stored bytes given in the bytes form: a whole number of items of a typed dtype. */
export function checkVlenElementBytes(element: VlenArrayElement, bytes: Uint8Array, index: string, where: string): void {
  if (element.unsupported !== undefined) return; // untyped dtypes: their items are not checked
  const size = (element as TypedVlenArrayElement).numpy.itemSize;
  if (bytes.length % size !== 0) {
    throw floeError('INVALID_ARGUMENT', `element ${index} holds ${bytes.length} bytes, not a whole number of ${JSON.stringify(element.dtype)} items (${size} bytes each)`, { where });
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return typeof v;
}
