// The values of vlen-array arrays (format/numpy/vlen-array.ts) as `get` returns and `set` takes
// them. The codec chain keeps each element's stored bytes (the vlen-bytes frames); these turn a
// read's elements into typed arrays of the element dtype and a write's typed arrays back into
// bytes, unless the caller asks for the bytes themselves ({ vlenArray: 'bytes' }). Loaded by
// ZarrArray with the first read or write of a vlen-array array.
import type { ArrayData, TypedArray } from '../format/zarr/data-types.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import type { JsonValue } from '../format/json.ts';
import type { VlenArrayElement, VlenArrayForm } from '../format/numpy/vlen-array.ts';
import { checkVlenElementBytes, decodeVlenElement, encodeVlenElement, requireTypedElements, vlenArrayElement } from '../format/numpy/vlen-array-codec.ts';
import type { DimSelection } from './selection.ts';
import type { WriteValue } from './write-value.ts';

/** Element types by their dtype as written: parsed once per process. */
const elementTypes = new Map<string, VlenArrayElement>();

/** The element type of the dtype `dtype` (INVALID_METADATA naming `where` when it is none). */
export function elementType(dtype: JsonValue, where: string): VlenArrayElement {
  const key = JSON.stringify(dtype);
  let element = elementTypes.get(key);
  if (!element) {
    element = vlenArrayElement(dtype, where);
    if (elementTypes.size < 256) elementTypes.set(key, element); // a bound: dtypes come from metadata
  }
  return element;
}

/**
 * Replaces each element's bytes in `data` (the result of reading `dims`) by its typed array, in
 * place. A damaged element is named by its array coordinates and the key of its chunk.
 */
export function typedElements(data: ArrayData, dtype: JsonValue, dims: readonly DimSelection[], chunkKey: (coords: number[]) => string, where: string): void {
  const element = requireTypedElements(elementType(dtype, where), where);
  const items = data as (Uint8Array | TypedArray)[];
  for (let i = 0; i < items.length; i++) {
    items[i] = decodeVlenElement(element, items[i] as Uint8Array, () => placeOf(i, dims, chunkKey));
  }
}

/** The array coordinates of result element `i` (C order over `dims`) and its chunk's key. */
function placeOf(i: number, dims: readonly DimSelection[], chunkKey: (coords: number[]) => string): { index: string; where: string } {
  const coords = new Array<number>(dims.length);
  let rest = i;
  for (let d = dims.length - 1; d >= 0; d--) {
    const dim = dims[d]!;
    const count = dim.drop ? 1 : dim.count;
    coords[d] = dim.start + (rest % count) * dim.step;
    rest = Math.floor(rest / count);
  }
  return { index: `[${coords.join(', ')}]`, where: chunkKey(coords) };
}

/**
 * The value `set` writes with each element's bytes in place of its typed array ('typed'), or the
 * value itself with each element checked as whole items of the dtype ('bytes'). Elements that are
 * neither are left for the write's own checks (which name their index in the selection).
 */
export function storedElements(value: WriteValue, dtype: JsonValue, form: VlenArrayForm, where: string): WriteValue {
  const element = elementType(dtype, where);
  const nd = isNdArray(value) ? value : undefined;
  const data = nd ? nd.data : value;
  if (!Array.isArray(data)) return value; // a scalar or typed array: the write refuses it for a binary array
  const items = data as readonly unknown[];
  if (form === 'bytes') {
    items.forEach((item, i) => item instanceof Uint8Array && checkVlenElementBytes(element, item, String(i), where));
    return value;
  }
  const bytes = items.map((item, i) => encodeVlenElement(element, item, String(i), where));
  return nd ? { ...nd, data: bytes } : bytes;
}

function isNdArray(v: WriteValue): v is NdArray {
  return typeof v === 'object' && v !== null && !ArrayBuffer.isView(v) && !Array.isArray(v) && 'shape' in v && 'data' in v;
}
