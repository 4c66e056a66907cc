// The contracts of a built codec chain and of its sharding step. They refer to each other (a
// chain may be sharding alone; a sharding codec holds the chain of its inner chunks), so they
// live together here, apart from the code that builds them: pipeline.ts builds chains and
// sharding.ts builds the sharding codec, and each needs only this module's types, not the other.
import type { NdArray, StridedView } from '../zarr/ndarray.ts';
import type { ChunkProjection } from '../zarr/projection.ts';
import type { ArrayToArrayCodec, ArrayToBytesCodec, ChunkSpec } from './array-codecs.ts';
import type { BytesToBytesCodec, CodecMetadata } from './types.ts';

export interface CodecChain {
  /** The spec of the chunk the chain encodes (the decoded side). */
  readonly spec: ChunkSpec;
  readonly arrayCodecs: readonly ArrayToArrayCodec[];
  readonly arrayToBytes: ArrayToBytesCodec;
  readonly bytesCodecs: readonly BytesToBytesCodec[];
  /** Set when the chain is sharding alone, so inner chunks can be read by byte range. */
  readonly sharding: ShardingCodec | undefined;
  /**
   * The decoded chunk; may be a strided view and may share memory with `bytes` (and with
   * `scratch`, whose contents are then valid only until its next use): treat as read-only.
   */
  decode(bytes: Uint8Array, scratch?: ScratchBuffer): NdArray;
  /**
   * Set when a bytes codec of the chain decodes asynchronously (BytesToBytesCodec.decodeAsync):
   * `decode` runs every bytes codec's decoding (each one's decodeAsync where it has one, under the
   * same limits as `decode`), and `rest` (the chain without its bytes codecs) decodes what it yields.
   */
  readonly asyncBytes?: { decode(bytes: Uint8Array): Promise<Uint8Array>; readonly rest: CodecChain } | undefined;
  /**
   * Decodes and copies the projected part of the chunk straight into `dst`. A sharded chunk is
   * decoded inner chunk by inner chunk, never as one whole-shard array.
   */
  decodeRegion(bytes: Uint8Array, projections: readonly ChunkProjection[], dst: StridedView, scratch?: ScratchBuffer): void;
  encode(array: NdArray): Uint8Array;
  /** Encoded size when every codec has a fixed size (needed for shard indexes). */
  encodedSize(): number | undefined;
  /**
   * The most bytes one encoded chunk can take: exact for fixed sizes, else a generous bound (each
   * compressor may expand by n/8 + 64 KiB; a variable-length chunk is bounded by
   * resourceLimits().variableChunkBytes). Decoders are held to these bounds.
   */
  encodedSizeBound(): number;
  toJSON(): CodecMetadata[];
}

/** Offsets and lengths of every inner chunk, C order over chunks-per-shard. */
export interface ShardIndex {
  readonly offsets: Float64Array;
  readonly lengths: Float64Array;
}

export interface ShardingCodec extends ArrayToBytesCodec {
  readonly name: 'sharding_indexed';
  readonly innerChunkShape: readonly number[];
  readonly chunksPerShard: readonly number[];
  readonly indexLocation: 'start' | 'end';
  readonly indexByteLength: number;
  readonly innerChain: CodecChain;
  /** Parses an encoded index; `shardSize` (when known) bounds every range. */
  decodeIndex(bytes: Uint8Array, shardSize?: number): ShardIndex;
  /** The index entry number of inner chunk `coords` (C order). */
  innerIndex(coords: readonly number[]): number;
  /** Decodes only the inner chunks the (shard-local) projections touch, each straight into `dst`. */
  decodeRegion(bytes: Uint8Array, projections: readonly ChunkProjection[], dst: StridedView, scratch?: ScratchBuffer): void;
}

/** A reused, already-touched buffer for decompressed bytes (one per thread of work). */
export class ScratchBuffer {
  private buffer = new Uint8Array(0);

  take(n: number): Uint8Array {
    if (this.buffer.length < n) this.buffer = new Uint8Array(n);
    return this.buffer.subarray(0, n);
  }
}
