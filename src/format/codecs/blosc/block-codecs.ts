// The per-stream compressors a Blosc1 buffer may use, by the code stored in header flag bits
// 5-7 (LZ4 through lz4-backend.ts: lz4-napi when installed; lz4hc always Floe's own, the package
// has no high-compression mode). Each compress returns the bytes written into `dst` or 0 when the result does not fit
// (the caller then stores the stream raw); each decompress returns the bytes written or -1.
import { deflateBackend } from '../deflate-backend.ts';
import { zstdBackend } from '../zstd-backend.ts';
import { blosclzCompress, blosclzDecompress } from './blosclz.ts';
import { lz4Backend } from '../lz4-backend.ts';
import { lz4Compress } from './lz4.ts';
import { snappyCompress, snappyDecompress } from './snappy.ts';

export const BLOSC_CNAMES = ['blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'] as const;
export type BloscCname = (typeof BLOSC_CNAMES)[number];

/** Compressor format codes (header flags >> 5); lz4hc writes the lz4 format. */
export const FORMAT_CODE: Readonly<Record<BloscCname, number>> = {
  blosclz: 0, lz4: 1, lz4hc: 1, snappy: 2, zlib: 3, zstd: 4,
};
const FORMAT_NAMES = ['blosclz', 'lz4', 'snappy', 'zlib', 'zstd'];

export function formatName(code: number): string {
  return FORMAT_NAMES[code] ?? `unknown compressor code ${code}`;
}

export function decompressStream(code: number, src: Uint8Array, dst: Uint8Array): number {
  switch (code) {
    case 0:
      return blosclzDecompress(src, dst);
    case 1:
      return lz4Backend().decodeBlock(src, dst);
    case 2:
      return snappyDecompress(src, dst);
    case 3:
      return catching(() => {
        const out = deflateBackend.unzip(src, dst.length);
        dst.set(out.subarray(0, dst.length));
        return out.length;
      });
    case 4:
      return catching(() => zstdBackend().decompressInto(src, dst));
    default:
      return -1;
  }
}

export function compressStream(cname: BloscCname, clevel: number, src: Uint8Array, dst: Uint8Array): number {
  switch (cname) {
    case 'blosclz':
      return blosclzCompress(src, dst);
    case 'lz4':
      return lz4Backend().encodeBlock(src, dst);
    case 'lz4hc':
      return lz4Compress(src, dst, true);
    case 'snappy':
      return snappyCompress(src, dst);
    case 'zlib': {
      const out = deflateBackend.zlib(src, clevel);
      if (out.length > dst.length) return 0;
      dst.set(out);
      return out.length;
    }
    case 'zstd':
      // c-blosc maps clevel 1-8 onto zstd 1-15 and 9 onto the maximum.
      return catching(() => {
        const out = zstdBackend().compress(src, clevel === 9 ? 22 : clevel * 2 - 1, false);
        if (out.length > dst.length) return 0;
        dst.set(out);
        return out.length;
      }, 0);
  }
}

/** Native and WASM codecs throw on bad input or a too-small output; both map to a sentinel. */
function catching(run: () => number, failure = -1): number {
  try {
    return run();
  } catch {
    return failure;
  }
}
