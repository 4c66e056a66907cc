// The shape every numcodecs filter that maps elements one to one shares (fixedscaleoffset,
// quantize, bitround, astype, categorize, delta): the chunk flattened in C order (the order
// numcodecs sees it: Zarr v2 hands over the chunk's memory, F-ordered chunks already transposed
// by Floe's chain), a function over the flat elements, the same shape back. The encoded side may
// have another data type; its fill value is the array's fill value put through the same function.
import type { ArrayData, DataType } from '../../zarr/data-types.ts';
import type { FillValue } from '../../zarr/fill-value.ts';
import { cStrides } from '../../zarr/ndarray.ts';
import type { ArrayToArrayCodec, ChunkSpec } from '../array-codecs.ts';
import { toCContiguous } from '../contiguous.ts';
import type { CodecMetadata } from '../types.ts';

export interface ElementwiseFilter<D extends ArrayData = ArrayData, E extends ArrayData = ArrayData> {
  /** The v3 name ("numcodecs.quantize"). */
  readonly name: string;
  /** The metadata written back (defaults resolved). */
  readonly json: CodecMetadata;
  /** The type of the elements the filter encodes (the array's, or the previous filter's output). */
  readonly decoded: DataType;
  /** The type of the elements it writes. */
  readonly encoded: DataType;
  encode(elements: D): E;
  decode(elements: E): D;
}

export function elementwiseCodec<D extends ArrayData, E extends ArrayData>(filter: ElementwiseFilter<D, E>): ArrayToArrayCodec {
  const encodedFill = (fill: FillValue): FillValue => {
    const memory = filter.encode(fill.memory as D);
    return Object.freeze({ json: fillJson(memory), memory });
  };
  return {
    kind: 'array_to_array',
    name: filter.name,
    toJSON: () => filter.json,
    resolveSpec: (spec: ChunkSpec): ChunkSpec => ({ ...spec, dataType: filter.encoded, fillValue: encodedFill(spec.fillValue) }),
    encode(array) {
      const flat = toCContiguous(array, filter.decoded).data as D;
      return { data: filter.encode(flat), shape: [...array.shape], stride: cStrides(array.shape) };
    },
    decode(array) {
      const flat = toCContiguous(array, filter.encoded).data as E;
      return { data: filter.decode(flat), shape: [...array.shape], stride: cStrides(array.shape) };
    },
  };
}

/** One element's JSON form (fill values of encoded specs; nothing writes them to metadata). */
function fillJson(memory: ArrayData): FillValue['json'] {
  const v = memory[0];
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint' || typeof v === 'string') return v;
  return v === undefined ? null : Buffer.from(v as Uint8Array).toString('base64'); // binary fills are bytes
}
