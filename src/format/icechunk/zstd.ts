// zstd for metadata payloads and dictionary-compressed virtual locations. The reference writes
// frames without a content size, so decompression streams into growing output instead of
// trusting the frame header, and it checks the frame really ended (a truncated frame is corrupt,
// not a shorter payload).
import { Compressor } from 'zstd-napi';
import binding from 'zstd-napi/binding.js';
import { floeError, isFloeError } from '../../errors.ts';

/** Refuse to inflate a metadata file past this many bytes: a guard against zstd bombs. */
export const MAX_DECOMPRESSED_BYTES = 2 ** 31 - 1;
const DEFAULT_LEVEL = 3;

let compressor: Compressor | undefined;

export function zstdCompress(data: Uint8Array, level = DEFAULT_LEVEL): Uint8Array {
  compressor ??= new Compressor();
  compressor.setParameters({ compressionLevel: level });
  return compressor.compress(data);
}

export function zstdDecompress(
  data: Uint8Array,
  options: { where?: string; dictionary?: Uint8Array; maxBytes?: number } = {},
): Uint8Array {
  const maxBytes = options.maxBytes ?? MAX_DECOMPRESSED_BYTES;
  const dctx = new binding.DCtx();
  try {
    if (options.dictionary) dctx.loadDictionary(options.dictionary);
    const chunks: Uint8Array[] = [];
    let total = 0;
    let input = data;
    let remaining = 1; // decompressStream returns 0 exactly when a frame is complete
    let chunkSize = Math.min(Math.max(64 * 1024, data.length * 4), maxBytes + 1);
    while (input.length > 0 || remaining !== 0) {
      const out = new Uint8Array(chunkSize);
      const [ret, produced, consumed] = dctx.decompressStream(out, input);
      remaining = ret;
      input = input.subarray(consumed);
      if (produced > 0) {
        chunks.push(out.subarray(0, produced));
        total += produced;
      }
      if (total > maxBytes) {
        throw floeError('CORRUPT_OBJECT', `zstd payload inflates past ${maxBytes} bytes; refusing to decompress it`, { where: options.where });
      }
      if (produced === 0 && consumed === 0) {
        if (remaining !== 0) {
          throw floeError('CORRUPT_OBJECT', 'zstd payload is truncated: the frame does not end', { where: options.where });
        }
        break;
      }
      chunkSize = Math.min(chunkSize * 2, 64 * 1024 * 1024);
    }
    return chunks.length === 1 ? chunks[0]! : concat(chunks, total);
  } catch (err) {
    if (isFloeError(err)) throw err;
    throw floeError('CORRUPT_OBJECT', `zstd payload does not decompress: ${(err as Error).message}`, { where: options.where, cause: err });
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
