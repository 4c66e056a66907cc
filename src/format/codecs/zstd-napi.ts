// The native backend: zstd-napi's low-level binding (libzstd), loaded with require inside a
// function so that a missing or unbuilt module is an error the caller catches, not a failed
// import. The types below are the slice of its binding.d.ts used here, so type-checking does not
// need the package either.
import type { ZstdBackend } from './zstd-types.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';
import { ZstdDataError } from './zstd-frames.ts';
import { freshBytes, joinBytes } from '../bytes.ts';

interface NapiCCtx {
  setParameter(param: number, value: number): void;
  reset(directive: number): void;
  loadDictionary(dict: Uint8Array): void;
  compress2(dst: Uint8Array, src: Uint8Array): number;
}
interface NapiDCtx {
  reset(directive: number): void;
  loadDictionary(dict: Uint8Array): void;
  decompress(dst: Uint8Array, src: Uint8Array): number;
  /** [hint (0 once a frame is complete), bytes produced, bytes consumed] */
  decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
}
interface NapiBinding {
  CCtx: new () => NapiCCtx;
  DCtx: new () => NapiDCtx;
  compressBound(size: number): number;
  dStreamOutSize(): number;
  CParameter: { compressionLevel: number; checksumFlag: number };
  ResetDirective: { sessionOnly: number; sessionAndParameters: number };
}

export function napiBackend(require: NodeJS.Require): ZstdBackend {
  const binding = require('zstd-napi/binding.js') as NapiBinding;
  const version = (require('zstd-napi/package.json') as { version: string }).version;
  const streamChunk = binding.dStreamOutSize();
  // One context of each kind, reused: creating one costs more than compressing a small chunk.
  // A dictionary call gets fresh contexts, so a loaded dictionary never sticks to later calls.
  const cctx = new binding.CCtx();
  const dctx = new binding.DCtx();

  const decompressUnsized = (data: Uint8Array, maxBytes: number, dictionary?: Uint8Array): Uint8Array => {
    const ctx = dictionary ? withDictionary(new binding.DCtx(), dictionary) : dctx;
    if (!dictionary) ctx.reset(binding.ResetDirective.sessionOnly);
    const chunks: Uint8Array[] = [];
    let total = 0;
    let input = data;
    let pending = 1;
    let chunkSize = Math.min(Math.max(streamChunk, data.length * 4), maxBytes + 1);
    while (input.length > 0 || pending !== 0) {
      const chunk = bytes(chunkSize);
      const [hint, produced, consumed] = ctx.decompressStream(chunk, input);
      if (produced === 0 && consumed === 0) throw new ZstdDataError('truncated', 'the last zstd frame is truncated');
      chunks.push(chunk.subarray(0, produced));
      total += produced;
      if (total > maxBytes) throw new DecodedSizeLimitError(maxBytes);
      input = input.subarray(consumed);
      pending = hint;
      chunkSize = Math.min(chunkSize * 2, 64 << 20, maxBytes + 1 - total);
    }
    return chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : joinBytes(chunks, total, bytes);
  };

  return {
    name: 'zstd-napi',
    version,
    compress(data, level, checksum, dictionary) {
      const ctx = dictionary ? new binding.CCtx() : cctx;
      ctx.setParameter(binding.CParameter.compressionLevel, level);
      ctx.setParameter(binding.CParameter.checksumFlag, checksum ? 1 : 0);
      if (dictionary) ctx.loadDictionary(dictionary);
      const out = bytes(binding.compressBound(data.length));
      return out.subarray(0, ctx.compress2(out, data));
    },
    compressInto(data, out, level, checksum) {
      if (out.length < binding.compressBound(data.length)) return -1;
      cctx.setParameter(binding.CParameter.compressionLevel, level);
      cctx.setParameter(binding.CParameter.checksumFlag, checksum ? 1 : 0);
      return cctx.compress2(out, data);
    },
    decompressInto(data, out, dictionary) {
      const ctx = dictionary ? withDictionary(new binding.DCtx(), dictionary) : dctx;
      if (!dictionary) ctx.reset(binding.ResetDirective.sessionOnly);
      return ctx.decompress(out, data);
    },
    decompressUnsized,
  };
}

/**
 * Uninitialised, unpooled memory as a plain Uint8Array (both backends return the same type); a
 * result that is part of it may still be transferred whole (freshBytes).
 */
function bytes(size: number): Uint8Array {
  return freshBytes(size);
}


function withDictionary(ctx: NapiDCtx, dictionary: Uint8Array): NapiDCtx {
  ctx.loadDictionary(dictionary);
  return ctx;
}
