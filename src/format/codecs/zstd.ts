// Zarr v3 `zstd` codec, configuration {level, checksum}, and the zstd compression of Icechunk
// metadata files, on whichever zstd backend loaded (zstd-backend.ts: native zstd-napi, else WASM).
// Decoding streams when a frame header carries no content size (the Icechunk reference writes
// frames without one), and insists every frame is complete: a truncated frame is corrupt, not a
// shorter chunk.
import { floeError } from '../../errors.ts';
import type { BytesCodecImplementation, FileDecompressOptions } from './codec-implementation.ts';
import type { BytesCodecFactory, BytesToBytesCodec, DecodeLimits } from './types.ts';
import { checkKeys, corrupt, decodingGuard, readBool, readInt } from './bytes-codec-support.ts';
import { limitExceeded } from '../limits.ts';
import { clampLevel, DecodedSizeLimitError, MAX_LEVEL, MIN_LEVEL, zstdBackend, zstdDecode, ZstdDataError, type ZstdBackend } from './zstd-backend.ts';
import { knownContentSize } from './zstd-frames.ts';

const NAME = 'zstd';
/** Output limit beyond zstdDecode's own (32768x the input): a typed array's maximum length. */
const MAX_CHUNK_BYTES = 2 ** 32;
/** Refuse to inflate a metadata file past this many bytes: a guard against zstd bombs. */
export const MAX_DECOMPRESSED_BYTES = 2 ** 31 - 1;
/** The level Icechunk metadata files are written at unless the caller says otherwise. */
const FILE_DEFAULT_LEVEL = 3;

export const zstdCodec: BytesCodecFactory = (configuration): BytesToBytesCodec => {
  checkKeys(NAME, configuration, ['level', 'checksum']);
  // Levels outside libzstd's range are accepted (numcodecs writes e.g. 100) and clamped on use.
  const level = readInt(NAME, configuration, 'level', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0);
  const checksum = readBool(NAME, configuration, 'checksum', false);
  const compressor = zstdCompressor(level, checksum);
  const decompress = zstdDecompressor();
  const clamped = clampLevel(level);
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: compressor,
    encodeInto: (data, out) => zstdBackend().compressInto?.(data, out, clamped, checksum) ?? -1,
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
export function zstdDecompressor(codec = NAME, backend?: ZstdBackend): (data: Uint8Array, limits?: DecodeLimits) => Uint8Array {
  return (data, limits) =>
    decodingGuard(codec, () => zstdDecode(data, { maxBytes: Math.min(limits?.maxBytes ?? MAX_CHUNK_BYTES, MAX_CHUNK_BYTES), backend }));
}

/** A whole metadata payload (or a dictionary-compressed virtual location), as one frame. */
export function zstdCompress(data: Uint8Array, level = FILE_DEFAULT_LEVEL): Uint8Array {
  return zstdBackend().compress(data, clampLevel(level), false);
}

/**
 * The inverse of zstdCompress, for frames with or without a content size. Output past maxBytes
 * (default MAX_DECOMPRESSED_BYTES) is LIMIT_EXCEEDED: refused from the frame header when it states
 * a size, else by streaming, having allocated about maxBytes at most.
 */
export function zstdDecompress(data: Uint8Array, options: FileDecompressOptions = {}): Uint8Array {
  const maxBytes = options.maxBytes ?? MAX_DECOMPRESSED_BYTES;
  // FloeErrorOptions.where is absent, not undefined, when the caller named no place.
  const where = options.where === undefined ? {} : { where: options.where };
  try {
    return zstdDecode(data, { maxBytes, dictionary: options.dictionary });
  } catch (err) {
    if (err instanceof DecodedSizeLimitError) {
      const claim = err.declared === undefined ? 'inflates past' : `declares ${err.declared} bytes, over`;
      throw limitExceeded('decoded-bytes', err.maxBytes, `zstd payload ${claim} the ${err.maxBytes}-byte limit for this object; refusing to decompress it (a damaged object or a decompression bomb; raise the limit with configureLimits if it is genuine)`, {
        ...where,
        actual: err.declared,
        codec: NAME,
      });
    }
    if (!(err instanceof ZstdDataError)) throw err;
    switch (err.kind) {
      case 'truncated':
      case 'empty':
        throw floeError('CORRUPT_OBJECT', 'zstd payload is truncated: the frame does not end', { ...where, cause: err });
      case 'corrupt':
        throw floeError('CORRUPT_OBJECT', `zstd payload does not decompress: ${err.message}`, { ...where, cause: err });
    }
  }
}

export const zstdEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'level', min: MIN_LEVEL, max: MAX_LEVEL, default: 0, outside: 'clamp' },
    decodeInto: true,
    boundedDecode: true,
    partialDecode: false,
    fixedEncodedSize: false,
  },
  zarrV3: zstdCodec,
  icechunk: { byte: 1, compress: zstdCompress, decompress: zstdDecompress },
};
