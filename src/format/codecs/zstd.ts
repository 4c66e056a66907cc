// Zarr v3 `zstd` codec, configuration {level, checksum}. zstd-napi (native libzstd, ~1.5 GB/s
// decode here) with one reused compression and decompression context per codec instance.
// Decoding streams when a frame header carries no content size, and insists every frame is
// complete: zstd-napi's convenience Decompressor silently returns a truncated frame's prefix.
import binding from 'zstd-napi/binding.js'; // default import: a native CJS module has no named ESM exports under Node
import type { BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { checkKeys, corrupt, decodingGuard, readBool, readInt } from './bytes-codec-support.ts';

const NAME = 'zstd';
const MIN_LEVEL = -131072; // ZSTD_minCLevel()
const MAX_LEVEL = 22;
const STREAM_CHUNK = binding.dStreamOutSize();
// No zstd block expands more than this (a 4-byte RLE block yields at most 128 KiB): a larger
// claimed content size is a damaged header, refused before allocating for it.
const MAX_RATIO = 32768;

export const zstdCodec: BytesCodecFactory = (configuration): BytesToBytesCodec => {
  checkKeys(NAME, configuration, ['level', 'checksum']);
  // Levels outside libzstd's range are accepted (numcodecs writes e.g. 100) and clamped on use.
  const level = readInt(NAME, configuration, 'level', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0);
  const checksum = readBool(NAME, configuration, 'checksum', false);
  const compressor = zstdCompressor(level, checksum);
  const decompress = zstdDecompressor();
  const dctx = new binding.DCtx();
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: compressor,
    decode: decompress,
    decodeInto: (data, out) =>
      decodingGuard(NAME, () => {
        const size = data.length > 0 ? knownContentSize(data) : null;
        if (size === null || size > out.length) return -1;
        dctx.reset(binding.ResetDirective.sessionOnly);
        const produced = dctx.decompress(out, data);
        if (produced !== size) throw corrupt(NAME, `decoded ${produced} bytes, the frame headers say ${size}`);
        return produced;
      }),
    toJSON: () => ({ name: NAME, configuration: { level, checksum } }),
  };
};

/** A compress function bound to one reused context. Level 0 means libzstd's default (3). */
export function zstdCompressor(level: number, checksum: boolean): (data: Uint8Array) => Uint8Array {
  const cctx = new binding.CCtx();
  cctx.setParameter(binding.CParameter.compressionLevel, Math.max(MIN_LEVEL, Math.min(MAX_LEVEL, level)));
  cctx.setParameter(binding.CParameter.checksumFlag, checksum ? 1 : 0);
  return (data) => {
    const out = Buffer.allocUnsafe(binding.compressBound(data.length));
    const written = cctx.compress2(out, data);
    return out.subarray(0, written);
  };
}

/** A decompress function bound to one reused context; throws CORRUPT_OBJECT on bad input. */
export function zstdDecompressor(codec = NAME): (data: Uint8Array) => Uint8Array {
  const dctx = new binding.DCtx();
  return (data) =>
    decodingGuard(codec, () => {
      dctx.reset(binding.ResetDirective.sessionOnly);
      if (data.length === 0) throw corrupt(codec, 'the input is empty (no zstd frame)');
      const size = knownContentSize(data);
      if (size !== null && size > data.length * MAX_RATIO) {
        throw corrupt(codec, `a frame header claims ${size} bytes from ${data.length} encoded bytes`);
      }
      if (size !== null) {
        const out = Buffer.allocUnsafe(size);
        const produced = dctx.decompress(out, data);
        if (produced !== size) throw corrupt(codec, `decoded ${produced} bytes, the frame headers say ${size}`);
        return out;
      }
      return streamDecompress(codec, dctx, data);
    });
}

/** Total content size when every frame header states it, else null. */
function knownContentSize(data: Uint8Array): number | null {
  let total = 0;
  let rest = data;
  while (rest.length > 0) {
    const size = binding.getFrameContentSize(rest);
    if (size === null) return null;
    total += size;
    rest = rest.subarray(binding.findFrameCompressedSize(rest));
  }
  return total;
}

function streamDecompress(codec: string, dctx: binding.DCtx, data: Uint8Array): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let input = data;
  let pending = 1; // libzstd's hint: 0 once the last frame is complete
  while (input.length > 0 || pending !== 0) {
    const chunk = Buffer.allocUnsafe(Math.max(STREAM_CHUNK, input.length * 4));
    const [hint, produced, consumed] = dctx.decompressStream(chunk, input);
    if (produced === 0 && consumed === 0) throw corrupt(codec, 'the last zstd frame is truncated');
    chunks.push(chunk.subarray(0, produced));
    total += produced;
    input = input.subarray(consumed);
    pending = hint;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
