// Zarr v3 `zstd` codec, configuration {level, checksum}, on whichever zstd backend loaded
// (zstd-backend.ts: native zstd-napi, else WASM). Decoding streams when a frame header carries
// no content size, and insists every frame is complete: a truncated frame is corrupt, not a
// shorter chunk.
import type { BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { checkKeys, corrupt, decodingGuard, readBool, readInt } from './bytes-codec-support.ts';
import { clampLevel, zstdBackend, zstdDecode, type ZstdBackend } from './zstd-backend.ts';
import { knownContentSize } from './zstd-frames.ts';

const NAME = 'zstd';
/** Output limit beyond zstdDecode's own (32768x the input): a typed array's maximum length. */
const MAX_CHUNK_BYTES = 2 ** 32;

export const zstdCodec: BytesCodecFactory = (configuration): BytesToBytesCodec => {
  checkKeys(NAME, configuration, ['level', 'checksum']);
  // Levels outside libzstd's range are accepted (numcodecs writes e.g. 100) and clamped on use.
  const level = readInt(NAME, configuration, 'level', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0);
  const checksum = readBool(NAME, configuration, 'checksum', false);
  const compressor = zstdCompressor(level, checksum);
  const decompress = zstdDecompressor();
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: compressor,
    decode: decompress,
    decodeInto: (data, out) =>
      decodingGuard(NAME, () => {
        const size = data.length > 0 ? knownContentSize(data) : null;
        if (size === null || size > out.length) return -1;
        const produced = zstdBackend().decompressInto(data, out);
        if (produced !== size) throw corrupt(NAME, `decoded ${produced} bytes, the frame headers say ${size}`);
        return produced;
      }),
    toJSON: () => ({ name: NAME, configuration: { level, checksum } }),
  };
};

/** A compress function for one level. Level 0 means libzstd's default (3). */
export function zstdCompressor(level: number, checksum: boolean, backend?: ZstdBackend): (data: Uint8Array) => Uint8Array {
  const clamped = clampLevel(level);
  return (data) => (backend ?? zstdBackend()).compress(data, clamped, checksum);
}

/** A decompress function; throws CORRUPT_OBJECT on bad input (decodingGuard wraps ZstdDataError). */
export function zstdDecompressor(codec = NAME, backend?: ZstdBackend): (data: Uint8Array) => Uint8Array {
  return (data) => decodingGuard(codec, () => zstdDecode(data, { maxBytes: MAX_CHUNK_BYTES, backend }));
}
