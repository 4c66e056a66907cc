// Contracts for the array-facing codecs (array -> array, array -> bytes) and the chunk spec
// that flows through a codec chain.
import type { DataType } from '../zarr/data-types.ts';
import type { FillValue } from '../zarr/fill-value.ts';
import type { NdArray } from '../zarr/ndarray.ts';
import type { CodecMetadata } from './types.ts';

/** What a codec knows about the chunk it transforms. */
export interface ChunkSpec {
  readonly shape: readonly number[];
  readonly dataType: DataType;
  readonly fillValue: FillValue;
}

export interface ArrayToArrayCodec {
  readonly kind: 'array_to_array';
  readonly name: string;
  /** The spec of the encoded array (transpose permutes the shape). */
  resolveSpec(spec: ChunkSpec): ChunkSpec;
  /** `spec` describes the input array. The result may be a view sharing memory. */
  encode(array: NdArray, spec: ChunkSpec): NdArray;
  /** `spec` describes the decoded (output) array. The result may be a view sharing memory. */
  decode(array: NdArray, spec: ChunkSpec): NdArray;
  toJSON(): CodecMetadata;
}

export interface ArrayToBytesCodec {
  readonly kind: 'array_to_bytes';
  readonly name: string;
  /** Accepts any strides; makes a C-ordered copy if it needs one. */
  encode(array: NdArray, spec: ChunkSpec): Uint8Array;
  /** Returns a C-contiguous array of `spec.shape`. */
  decode(bytes: Uint8Array, spec: ChunkSpec): NdArray;
  /** Encoded size when fixed for the spec (the `bytes` codec); undefined otherwise. */
  computeEncodedSize?(spec: ChunkSpec): number | undefined;
  /**
   * The most bytes an encoding can take when the size is not fixed but bounded by the codec's own
   * structure (sharding). Codecs with neither (variable-length types) are bounded by
   * resourceLimits().variableChunkBytes.
   */
  encodedSizeBound?(spec: ChunkSpec): number;
  toJSON(): CodecMetadata;
}
