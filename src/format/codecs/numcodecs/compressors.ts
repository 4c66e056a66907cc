// numcodecs' compressors under their Zarr v3 names (zarr-python 3's `numcodecs.zlib` and so on):
// the configuration is numcodecs' own, less "id", with numcodecs' defaults; the codec is the one
// Floe already has for the format (zlib.ts, gzip.ts, bz2.ts, lzma.ts, zstd.ts, blosc.ts), renamed.
import { bloscEntry, bloscV1Compressor } from '../blosc.ts';
import { bz2Compressor, bz2Entry } from '../bz2.ts';
import { checkKeys, readInt } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation, CodecCapabilities } from '../codec-implementation.ts';
import { gzipCodec, gzipEntry } from '../gzip.ts';
import { lzmaCompressor, lzmaEntry } from '../lzma.ts';
import type { BytesCodecContext, BytesToBytesCodec } from '../types.ts';
import { zlibCompressor, zlibEntry } from '../zlib.ts';
import { zstdCodec, zstdEntry } from '../zstd.ts';

type Config = Record<string, unknown> | undefined;

/** numcodecs' default level where it differs from the base entry's (bz2: 9 in v1, 1 here). */
function withDefaultLevel(capabilities: CodecCapabilities, level: number): CodecCapabilities {
  return capabilities.levels ? { ...capabilities, levels: { ...capabilities.levels, default: level } } : capabilities;
}

/** An entry named `numcodecs.<id>` building `build(config)` under that name. */
function numcodecsCompressor(id: string, keys: readonly string[], capabilities: CodecCapabilities, build: (config: Record<string, unknown>, context: BytesCodecContext) => BytesToBytesCodec): BytesCodecImplementation {
  const name = `numcodecs.${id}`;
  return {
    name,
    kind: 'bytes_to_bytes',
    capabilities,
    zarrV3: (configuration: Config, context) => {
      checkKeys(name, configuration, keys);
      const codec = build({ ...configuration }, context);
      const resolved = codec.toJSON().configuration;
      return { ...codec, name, toJSON: () => ({ name, configuration: { ...resolved } }) };
    },
  };
}

const level = (name: string, c: Record<string, unknown>, min: number, max: number, fallback: number): number => readInt(name, c, 'level', min, max, fallback);

export const numcodecsZlibEntry = numcodecsCompressor('zlib', ['level'], zlibEntry.capabilities, (c) => zlibCompressor('zlib', { level: level('numcodecs.zlib', c, -1, 9, 1) }));
export const numcodecsGzipEntry = numcodecsCompressor('gzip', ['level'], withDefaultLevel(gzipEntry.capabilities, 1), (c, ctx) => gzipCodec({ level: level('numcodecs.gzip', c, 0, 9, 1) }, ctx));
export const numcodecsBz2Entry = numcodecsCompressor('bz2', ['level'], withDefaultLevel(bz2Entry.capabilities, 1), (c) => bz2Compressor(level('numcodecs.bz2', c, 1, 9, 1)));
export const numcodecsLzmaEntry = numcodecsCompressor('lzma', ['format', 'check', 'preset', 'filters'], lzmaEntry.capabilities, (c) => lzmaCompressor(c));
export const numcodecsZstdEntry = numcodecsCompressor('zstd', ['level', 'checksum'], withDefaultLevel(zstdEntry.capabilities, 1), (c, ctx) => zstdCodec({ level: c.level ?? 1, checksum: c.checksum ?? false }, ctx));
/** numcodecs' Blosc: numeric shuffle (-1 auto, 0, 1, 2), lz4 at level 5 with byte shuffle by default. */
export const numcodecsBloscEntry = numcodecsCompressor('blosc', ['cname', 'clevel', 'shuffle', 'blocksize', 'typesize'], bloscEntry.capabilities, (c, ctx) =>
  bloscV1Compressor({ cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0, ...c }, ctx),
);
