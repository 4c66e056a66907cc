// Codec contracts. A codec is one of three kinds (Zarr v3 core spec, "Codecs"):
//   array -> array   (transpose)            see ./array-codecs
//   array -> bytes   (bytes, sharding)      exactly one per chain
//   bytes -> bytes   (gzip, zstd, blosc, crc32c, and the v1 compressors)
// Codecs are synchronous and pure: CPU work on bytes in memory. Where a key is known the
// pipeline rethrows errors with `where` set to it.

/** A codec entry as written in zarr.json. */
export interface CodecMetadata {
  name: string;
  configuration?: Record<string, unknown>;
  must_understand?: boolean;
}

/** What a bytes->bytes codec may need to know about the array (blosc's default typesize). */
export interface BytesCodecContext {
  /** Bytes per element of the array's data type (1 for bool/uint8, 8 for float64, ...). */
  itemSize: number;
}

/** Bounds on what one decode may produce (see CodecCapabilities.boundedDecode). */
export interface DecodeLimits {
  readonly maxBytes: number;
}

export interface BytesToBytesCodec {
  readonly kind: 'bytes_to_bytes';
  readonly name: string;
  /** May return a view of a reused buffer only if documented; callers may keep the result. */
  encode(data: Uint8Array): Uint8Array;
  /**
   * Throws FloeError CORRUPT_OBJECT on malformed input, CHECKSUM_MISMATCH on a bad checksum. A
   * codec whose registry entry declares `boundedDecode` also refuses (CORRUPT_OBJECT) to produce
   * more than `limits.maxBytes`; the others ignore `limits`.
   */
  decode(data: Uint8Array, limits?: DecodeLimits): Uint8Array;
  /**
   * Optional: `decode` asynchronously, on native code of the runtime (gzip and zlib through a
   * browser's DecompressionStream). Same bytes, same errors, same limit; a chain whose codec has it
   * decodes through CodecChain.asyncBytes where the caller can wait (the chunk read path).
   */
  decodeAsync?(data: Uint8Array, limits?: DecodeLimits): Promise<Uint8Array>;
  /**
   * Optional fast path: decode straight into `out` (a reused, already-touched buffer) and return
   * the byte count, or -1 when the output would not fit or its size is unknown up front (then the
   * caller uses `decode`). Saves an allocation and its page faults per chunk.
   */
  decodeInto?(data: Uint8Array, out: Uint8Array): number;
  /**
   * Optional fast path: decode straight into the result's rows (`runs`), skipping the parts of
   * the chunk no run takes. Returns false, having written nothing, when the buffer's decoded size
   * is not `runs.chunkBytes` or its layout does not suit (the caller then decodes the usual way);
   * throws CORRUPT_OBJECT on malformed input, having written only inside the runs.
   */
  decodeIntoRuns?(data: Uint8Array, runs: DecodedRuns): boolean;
  /**
   * Optional: encode into `out` and return the byte count, or -1 when this codec cannot promise
   * the result fits (then the caller uses `encode`). The bytes equal `encode`'s. Lets the caller
   * choose where the encoding lives: a write that encodes on a worker passes memory of the
   * thread that keeps it (allocated and freed there, so its allocator reuses it chunk after chunk).
   */
  encodeInto?(data: Uint8Array, out: Uint8Array): number;
  /** Encoded size for `n` input bytes when it is fixed (crc32c: n + 4); absent otherwise. */
  computeEncodedSize?(n: number): number;
  /** The fully resolved metadata to write back (defaults filled in). */
  toJSON(): CodecMetadata;
}

/**
 * Where a chunk's decoded bytes go: the stretch [fileOffset, fileOffset + views.length * rowBytes)
 * of the chunk's `chunkBytes`, cut into rows of `rowBytes`, row k into `views[k]` (each rowBytes long).
 */
export interface DecodedRuns {
  readonly chunkBytes: number;
  readonly fileOffset: number;
  readonly rowBytes: number;
  readonly views: readonly Uint8Array[];
}

export type BytesCodecFactory = (
  configuration: Record<string, unknown> | undefined,
  context: BytesCodecContext,
) => BytesToBytesCodec;
