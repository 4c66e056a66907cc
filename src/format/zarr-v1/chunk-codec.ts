// A v1 chunk is the array's raw bytes (C or F order, the dtype's byte order) through one
// compressor. Floe reads it through a standard v3 codec chain: `v3ArrayCodecs` names the v3
// codecs (transpose for F order, bytes with the byte order, or vlen-utf8 for U<n>) that decode
// the bytes `decode` returns. Only U<n> needs transcoding (UCS-4 <-> vlen-utf8 frames).
import { floeError, isFloeError } from '../../errors.ts';
import type { BytesToBytesCodec, CodecMetadata, DecodeLimits } from '../codecs/types.ts';
import { decodeFrames, encodeFrames } from '../codecs/vlen-bytes.ts';
import { product } from '../zarr/ndarray.ts';
import type { V1ScalarType } from './dtype.ts';
import { v1Compressor, type V1Metadata } from './meta.ts';
import { decodeUcs4, encodeUcs4 } from './ucs4.ts';

export interface V1ChunkCodec {
  readonly compressor: BytesToBytesCodec | undefined;
  /** The v3 array->array and array->bytes codecs that read what `decode` returns. */
  readonly v3ArrayCodecs: readonly CodecMetadata[];
  /** False when `decode` returns the decompressed bytes unchanged (every dtype but U<n>). */
  readonly transcodes: boolean;
  /** Stored chunk -> bytes for `v3ArrayCodecs`. */
  decode(stored: Uint8Array): Uint8Array;
  /** Bytes from `v3ArrayCodecs` -> the chunk to store. */
  encode(bytes: Uint8Array): Uint8Array;
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function v1ChunkCodec(meta: V1Metadata): V1ChunkCodec {
  const compressor = v1Compressor(meta);
  // A stored chunk decompresses to exactly the chunk's bytes; the compressor is held to that.
  const limits: DecodeLimits = Object.freeze({ maxBytes: product(meta.chunks) * meta.dtype.itemSize });
  const decompress = (b: Uint8Array): Uint8Array => (compressor ? compressor.decode(b, limits) : b);
  const compress = (b: Uint8Array): Uint8Array => (compressor ? compressor.encode(b) : b);
  const rank = meta.shape.length;
  const transpose: CodecMetadata[] = meta.order === 'F' && rank > 1 ? [{ name: 'transpose', configuration: { order: [...Array(rank).keys()].reverse() } }] : [];
  const { dtype } = meta;
  if (dtype.kind !== 'unicode') {
    return { compressor, v3ArrayCodecs: [...transpose, bytesCodecFor(dtype)], transcodes: false, decode: decompress, encode: compress };
  }
  const n = product(meta.chunks);
  const chars = dtype.itemSize / 4;
  const little = dtype.byteOrder === 'little';
  return {
    compressor,
    v3ArrayCodecs: [...transpose, { name: 'vlen-utf8' }],
    transcodes: true,
    decode: (stored) => encodeFrames(decodeUcs4(decompress(stored), n, chars, little).map((s) => utf8.encode(s))),
    encode: (bytes) => compress(encodeUcs4(decodeFrames(bytes, n, 'vlen-utf8').map((b) => decodeUtf8(b)), chars, little)),
  };
}

export function bytesCodecFor(dtype: V1Metadata['dtype']): CodecMetadata {
  if (dtype.kind === 'numeric' && (dtype as V1ScalarType).byteOrder !== 'none') {
    return { name: 'bytes', configuration: { endian: (dtype as V1ScalarType).byteOrder } };
  }
  return { name: 'bytes' };
}

function decodeUtf8(b: Uint8Array): string {
  try {
    return utf8Strict.decode(b);
  } catch (cause) {
    throw floeError('INVALID_ARGUMENT', 'string element is not valid UTF-8', { cause });
  }
}

/** Runs a chunk transform, naming the key in any error (a truncated zlib stream, a short chunk). */
export function atKey<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isFloeError(err)) throw err.where ? err : floeError(err.code, err.message, { where: key, cause: err, details: err.details });
    throw floeError('CORRUPT_OBJECT', `chunk could not be decoded: ${(err as Error).message}`, { where: key, cause: err });
  }
}
