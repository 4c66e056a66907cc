// Zarr v1 `zlib` compressor (and its alias `gzip`, which in v1 means the same zlib stream,
// RFC 1950). compression_opts is the integer level (-1 = zlib's default, 0-9); null means 1,
// zarr v1's default. Decoding also accepts a gzip header (the backend sniffs it), so chunks
// written by a numcodecs GZip compressor under the alias still read. Streams come from
// deflate-backend.ts (node:zlib, or fflate where the runtime lacks it).
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from './types.ts';
import { decodingGuard, decodingGuardAsync, invalidConfig, shown } from './bytes-codec-support.ts';
import { deflateBackend, type DeflateBackend } from './deflate-backend.ts';

export const ZLIB_DEFAULT_LEVEL = 1;

/** `backend` defaults to the runtime's; tests pass fflate to exercise the fallback. */
export function zlibCompressor(name: 'zlib' | 'gzip', compressionOpts: unknown, backend: DeflateBackend = deflateBackend): BytesToBytesCodec {
  const level = readLevel(name, compressionOpts);
  const unzipAsync = backend.unzipAsync?.bind(backend);
  return {
    kind: 'bytes_to_bytes',
    name,
    encode: (data) => backend.zlib(data, level),
    decode: (data, limits) => decodingGuard(name, () => backend.unzip(data, limits?.maxBytes)),
    ...(unzipAsync && { decodeAsync: (data: Uint8Array, limits?: DecodeLimits) => decodingGuardAsync(name, () => unzipAsync(data, limits?.maxBytes)) }),
    toJSON: () => ({ name, configuration: { level } }),
  };
}

/** v1 only: Zarr v3 has no zlib codec (v3 `gzip` is the RFC 1952 format, see gzip.ts). */
export const zlibEntry: BytesCodecImplementation = {
  name: 'zlib',
  kind: 'bytes_to_bytes',
  capabilities: {
    levels: { key: 'level', min: -1, max: 9, default: ZLIB_DEFAULT_LEVEL, outside: 'reject' },
    decodeInto: false,
    boundedDecode: true,
    partialDecode: false,
    fixedEncodedSize: false,
  },
  zarrV1: { names: ['zlib', 'gzip'], create: (opts, _context, name) => zlibCompressor(name === 'gzip' ? 'gzip' : 'zlib', opts) },
};

function readLevel(name: string, opts: unknown): number {
  if (opts === undefined || opts === null) return ZLIB_DEFAULT_LEVEL;
  // numcodecs-style {"level": n} objects also appear in the wild.
  const value = typeof opts === 'object' && !Array.isArray(opts) ? (opts as Record<string, unknown>).level : opts;
  if (value === undefined || value === null) return ZLIB_DEFAULT_LEVEL;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -1 || value > 9) {
    throw invalidConfig(name, `compression_opts must be an integer level in [-1, 9], got ${shown(opts)}`);
  }
  return value;
}
