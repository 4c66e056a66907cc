// zstd for metadata payloads and dictionary-compressed virtual locations, on whichever zstd
// backend loaded (codecs/zstd-backend.ts). The reference writes frames without a content size,
// so decompression grows its output instead of trusting the frame header, up to maxBytes, and
// checks the frame really ended (a truncated frame is corrupt, not a shorter payload).
import { floeError } from '../../errors.ts';
import { zstdBackend, zstdDecode, ZstdDataError } from '../codecs/zstd-backend.ts';

/** Refuse to inflate a metadata file past this many bytes: a guard against zstd bombs. */
export const MAX_DECOMPRESSED_BYTES = 2 ** 31 - 1;
const DEFAULT_LEVEL = 3;

export function zstdCompress(data: Uint8Array, level = DEFAULT_LEVEL): Uint8Array {
  return zstdBackend().compress(data, level, false);
}

export function zstdDecompress(
  data: Uint8Array,
  options: { where?: string; dictionary?: Uint8Array; maxBytes?: number } = {},
): Uint8Array {
  const maxBytes = options.maxBytes ?? MAX_DECOMPRESSED_BYTES;
  const where = options.where;
  try {
    return zstdDecode(data, { maxBytes, dictionary: options.dictionary });
  } catch (err) {
    if (!(err instanceof ZstdDataError)) throw err;
    switch (err.kind) {
      case 'too-large':
        throw floeError('CORRUPT_OBJECT', `zstd payload inflates past ${maxBytes} bytes; refusing to decompress it`, { where, cause: err });
      case 'truncated':
      case 'empty':
        throw floeError('CORRUPT_OBJECT', 'zstd payload is truncated: the frame does not end', { where, cause: err });
      case 'corrupt':
        throw floeError('CORRUPT_OBJECT', `zstd payload does not decompress: ${err.message}`, { where, cause: err });
    }
  }
}
