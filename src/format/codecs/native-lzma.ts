// @napi-rs/lzma and @node-rs/crc32 (for xz checks) load on first use of the lzma codec: their
// binaries come as optional per-platform packages, and lzma is a rare Zarr v1 compressor, so a
// machine without them (npm install --omit=optional, an unusual platform) still imports Floe and
// only lzma data fails, with MISSING_DEPENDENCY naming the package.
import type * as NapiLzma from '@napi-rs/lzma';
import type * as NodeRsCrc32 from '@node-rs/crc32';
import { requireOptional } from '../../optional-dependency.ts';

let lzmaModule: typeof NapiLzma | undefined;
let crc32Module: typeof NodeRsCrc32 | undefined;

export function napiLzma(): typeof NapiLzma {
  return (lzmaModule ??= requireOptional<typeof NapiLzma>('@napi-rs/lzma', 'the lzma codec'));
}

/** CRC-32 (IEEE), as xz block and stream checks use it. */
export function crc32(data: Uint8Array): number {
  crc32Module ??= requireOptional<typeof NodeRsCrc32>('@node-rs/crc32', 'the lzma codec (xz checks)');
  return crc32Module.crc32(data);
}
