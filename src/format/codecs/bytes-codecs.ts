// Registry of the bytes->bytes codecs: Zarr v3 codec names, and Zarr v1 compressor names
// (whose factories take the v1 `compression_opts` value as it appears in `meta`).
import type { BytesCodecContext, BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { bloscV1Compressor, bloscV3Codec } from './blosc.ts';
import { bz2Compressor } from './bz2.ts';
import { crc32cCodec } from './crc32c.ts';
import { gzipCodec } from './gzip.ts';
import { lzmaCompressor } from './lzma.ts';
import { zlibCompressor } from './zlib.ts';
import { zstdCodec } from './zstd.ts';

export const BYTES_CODECS: Readonly<Record<string, BytesCodecFactory>> = Object.freeze({
  gzip: gzipCodec,
  zstd: zstdCodec,
  blosc: bloscV3Codec,
  crc32c: crc32cCodec,
});

export type V1CompressorFactory = (compressionOpts: unknown, context: BytesCodecContext) => BytesToBytesCodec;

export const V1_COMPRESSORS: Readonly<Record<string, V1CompressorFactory>> = Object.freeze({
  zlib: (opts: unknown) => zlibCompressor('zlib', opts),
  gzip: (opts: unknown) => zlibCompressor('gzip', opts),
  bz2: (opts: unknown) => bz2Compressor(opts),
  lzma: (opts: unknown) => lzmaCompressor(opts),
  blosc: bloscV1Compressor,
});
