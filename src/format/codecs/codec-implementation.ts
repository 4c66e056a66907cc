// The contract of one codec registry entry: a codec implementation, what it declares it can do,
// and how each format that uses it builds it (Zarr v3 `codecs`, Zarr v1 `compression`, the
// Icechunk file-header compression byte). It lives apart from registry.ts, which lists the
// entries, so that every codec file declares its own entry without importing the registry.
import type { ArrayToArrayCodec, ArrayToBytesCodec, ChunkSpec } from './array-codecs.ts';
import type { CodecChain } from './codec-chain.ts';
import type { BytesCodecContext, BytesCodecFactory, BytesToBytesCodec, CodecMetadata } from './types.ts';

/** A compressor's levels. v3 configurations and v1 compression_opts both name the level `key`. */
export interface LevelRange {
  /** The configuration key: "level", or blosc's "clevel". */
  readonly key: string;
  readonly min: number;
  readonly max: number;
  /** The level used when the configuration gives none; undefined when the level is required. */
  readonly default: number | undefined;
  /**
   * What a level outside [min, max] does: 'reject' fails with INVALID_METADATA; 'clamp' uses the
   * nearest bound (zstd, because numcodecs writes levels such as 100 meaning "the maximum").
   */
  readonly outside: 'reject' | 'clamp';
}

/**
 * What an implementation can do, declared once so callers decide without probing the built codec.
 * test/unit/codecs/registry.test.ts holds every entry to its declaration.
 */
export interface CodecCapabilities {
  /** Compression levels; absent for codecs without one. */
  readonly levels?: LevelRange;
  /** The built codec has `decodeInto`: it decodes straight into a caller's buffer of known size. */
  readonly decodeInto: boolean;
  /**
   * `decode(data, { maxBytes })` refuses output past maxBytes (CORRUPT_OBJECT) before producing
   * it: the guard against decompression bombs. Codecs without it ignore the limit.
   */
  readonly boundedDecode: boolean;
  /** Part of an encoded value decodes without the rest (sharding: inner chunks by byte range). */
  readonly partialDecode: boolean;
  /** The built codec has `computeEncodedSize` (bytes, crc32c): shard indexes need a fixed size. */
  readonly fixedEncodedSize: boolean;
}

/** What an array -> array or array -> bytes codec may need to know when it is built. */
export interface ArrayCodecContext {
  /** The chunk the codec sees (after the array -> array codecs before it). */
  readonly spec: ChunkSpec;
  /** Builds a nested chain (sharding's inner and index codecs); its errors name their place. */
  readonly buildChain: (codecs: readonly CodecMetadata[], spec: ChunkSpec) => CodecChain;
}

export type ArrayCodecFactory = (
  configuration: Record<string, unknown> | undefined,
  context: ArrayCodecContext,
) => ArrayToArrayCodec | ArrayToBytesCodec;

/** Builds a v1 compressor from `compression_opts` as it appears in `meta`; `name` is the alias used. */
export type V1CompressorFactory = (compressionOpts: unknown, context: BytesCodecContext, name: string) => BytesToBytesCodec;

export interface FileDecompressOptions {
  /** Names the object in errors. */
  readonly where?: string;
  /** Refuse output past this many bytes (each compression has its own default). */
  readonly maxBytes?: number;
  readonly dictionary?: Uint8Array;
}

/** A whole-file compression of Icechunk metadata, selected by the header's compression byte. */
export interface FileCompression {
  readonly byte: number;
  /** `level` undefined means the compression's own default. */
  compress(payload: Uint8Array, level?: number): Uint8Array;
  /** Throws CORRUPT_OBJECT (naming `where`) on damaged input or output past maxBytes. */
  decompress(body: Uint8Array, options?: FileDecompressOptions): Uint8Array;
}

interface EntryBase {
  /** Unique in the registry; the Zarr v3 codec name when the entry has `zarrV3`. */
  readonly name: string;
  readonly capabilities: CodecCapabilities;
}

export interface BytesCodecImplementation extends EntryBase {
  readonly kind: 'bytes_to_bytes';
  readonly zarrV3?: BytesCodecFactory;
  /** The v1 `compression` names it implements (zlib's alias "gzip" included). */
  readonly zarrV1?: { readonly names: readonly string[]; readonly create: V1CompressorFactory };
  readonly icechunk?: FileCompression;
}

export interface ArrayCodecImplementation extends EntryBase {
  readonly kind: 'array_to_array' | 'array_to_bytes';
  readonly zarrV3: ArrayCodecFactory;
}

export type CodecImplementation = BytesCodecImplementation | ArrayCodecImplementation;

/** Capabilities of a codec that declares none of the optional abilities. */
export const PLAIN_CAPABILITIES: CodecCapabilities = Object.freeze({
  decodeInto: false,
  boundedDecode: false,
  partialDecode: false,
  fixedEncodedSize: false,
});
