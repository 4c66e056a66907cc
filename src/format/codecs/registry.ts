// The one registry of codec implementations. Zarr v3 chains (pipeline.ts), Zarr v1 compressors
// (zarr-v1/meta.ts) and the Icechunk file compression (icechunk/header.ts, framing.ts) all find
// their implementations here, by name or header byte, with the capabilities each declares.
//
// Adding a codec: write its file, exporting a CodecImplementation entry (codec-implementation.ts)
// beside the codec, and add the entry to IMPLEMENTATIONS below. The list is explicit rather than
// filled by codec modules registering themselves on import: a self-registering module works only
// if something happens to import it first, and ESM evaluation order (cycles included) would decide
// what a lookup finds. Here the registry's own imports guarantee every entry exists before use.
//
// Lookups build codecs; callers resolve once per array or chain, never per chunk.
import { floeError } from '../../errors.ts';
import { limitExceeded } from '../limits.ts';
import { bloscEntry } from './blosc.ts';
import { bytesEntry } from './bytes.ts';
import { bz2Entry } from './bz2.ts';
import type {
  ArrayCodecImplementation,
  BytesCodecImplementation,
  CodecImplementation,
  FileCompression,
  FileDecompressOptions,
  V1CompressorFactory,
} from './codec-implementation.ts';
import { crc32cEntry } from './crc32c.ts';
import { gzipEntry } from './gzip.ts';
import { lzmaEntry } from './lzma.ts';
import { asTypeEntry } from './numcodecs/astype.ts';
import { bitRoundEntry } from './numcodecs/bitround.ts';
import { categorizeEntry } from './numcodecs/categorize.ts';
import { adler32Entry, crc32Entry, fletcher32Entry } from './numcodecs/checksum32.ts';
import {
  numcodecsBloscEntry,
  numcodecsBz2Entry,
  numcodecsGzipEntry,
  numcodecsLzmaEntry,
  numcodecsZlibEntry,
  numcodecsZstdEntry,
} from './numcodecs/compressors.ts';
import { deltaEntry } from './numcodecs/delta.ts';
import { fixedScaleOffsetEntry } from './numcodecs/fixedscaleoffset.ts';
import { jenkinsLookup3Entry } from './numcodecs/jenkins-lookup3.ts';
import { json2Entry } from './numcodecs/json2.ts';
import { lz4Entry } from './numcodecs/lz4.ts';
import { msgpack2Entry } from './numcodecs/msgpack2.ts';
import { packBitsEntry } from './numcodecs/packbits.ts';
import { quantizeEntry } from './numcodecs/quantize.ts';
import { shuffleEntry } from './numcodecs/shuffle.ts';
import { shardingEntry } from './sharding.ts';
import { transposeEntry } from './transpose.ts';
import type { BytesCodecContext, BytesCodecFactory, BytesToBytesCodec } from './types.ts';
import { vlenBytesEntry } from './vlen-bytes.ts';
import { vlenUtf8Entry } from './vlen-utf8.ts';
import { zlibEntry } from './zlib.ts';
import { zstdEntry } from './zstd.ts';

export type * from './codec-implementation.ts';

/**
 * Every codec Floe implements. Order is the order error messages list names in (tests pin v3's
 * "..., gzip, zstd, blosc, crc32c" and v1's "zlib, gzip, bz2, lzma, blosc").
 */
export const IMPLEMENTATIONS: readonly CodecImplementation[] = Object.freeze([
  transposeEntry,
  deltaEntry,
  bytesEntry,
  vlenUtf8Entry,
  vlenBytesEntry,
  shardingEntry,
  gzipEntry,
  zstdEntry,
  zlibEntry,
  bz2Entry,
  lzmaEntry,
  bloscEntry,
  crc32cEntry,
  // numcodecs' codecs under zarr-python 3's names (also what Zarr v2 ids map to: numpy/numcodecs.ts).
  fixedScaleOffsetEntry,
  quantizeEntry,
  bitRoundEntry,
  packBitsEntry,
  asTypeEntry,
  categorizeEntry,
  json2Entry,
  msgpack2Entry,
  numcodecsZlibEntry,
  numcodecsGzipEntry,
  numcodecsBz2Entry,
  numcodecsLzmaEntry,
  numcodecsZstdEntry,
  numcodecsBloscEntry,
  lz4Entry,
  shuffleEntry,
  crc32Entry,
  adler32Entry,
  fletcher32Entry,
  jenkinsLookup3Entry,
]);

/** An entry that Zarr v3 metadata can name. */
export type ZarrV3Entry = ArrayCodecImplementation | (BytesCodecImplementation & { readonly zarrV3: BytesCodecFactory });
/** An entry that a Zarr v1 `compression` can name. */
export type ZarrV1Entry = BytesCodecImplementation & { readonly zarrV1: { readonly names: readonly string[]; readonly create: V1CompressorFactory } };

/** Icechunk's "no compression" (header byte 0): not a codec, so not an entry, but named alike. */
const NO_FILE_COMPRESSION: FileCompression = Object.freeze({
  byte: 0,
  compress: (payload: Uint8Array) => payload,
  decompress: (body: Uint8Array, options?: FileDecompressOptions) => {
    // Held to the same limit as a compressed payload, so a file type's limit means one thing.
    if (options?.maxBytes !== undefined && body.length > options.maxBytes) {
      throw limitExceeded('decoded-bytes', options.maxBytes, `an uncompressed payload of ${body.length} bytes is over the ${options.maxBytes}-byte limit for this object; raise the limit with configureLimits if it is genuine`, { actual: body.length, codec: 'none', where: options.where });
    }
    return body;
  },
});

const isZarrV3 = (e: CodecImplementation): e is ZarrV3Entry => e.zarrV3 !== undefined;
const isZarrV1 = (e: CodecImplementation): e is ZarrV1Entry => e.kind === 'bytes_to_bytes' && e.zarrV1 !== undefined;

/**
 * A map from the keys `keysOf` gives each entry, after `seed`; two claims on one key are a bug in
 * the list above, so they fail loudly at load (a plain Error: no user data can cause it).
 */
function indexBy<K, V>(keysOf: (e: CodecImplementation) => readonly (readonly [K, V])[], what: string, seed: readonly (readonly [K, V])[] = []): ReadonlyMap<K, V> {
  const map = new Map<K, V>(seed);
  for (const entry of IMPLEMENTATIONS) {
    for (const [key, value] of keysOf(entry)) {
      if (map.has(key)) throw new Error(`codec registry: two entries claim ${what} ${String(key)}`);
      map.set(key, value);
    }
  }
  return map;
}

const fileCompressionOf = (e: CodecImplementation): FileCompression | undefined => (e.kind === 'bytes_to_bytes' ? e.icechunk : undefined);

const byName = indexBy((e) => [[e.name, e]], 'the name');
const byV3Name = indexBy((e) => (isZarrV3(e) ? [[e.name, e]] : []), 'the Zarr v3 name');
const byV1Name = indexBy((e) => (isZarrV1(e) ? e.zarrV1.names.map((n) => [n, e] as const) : []), 'the Zarr v1 name');
const fileCompressions = indexBy((e) => {
  const compression = fileCompressionOf(e);
  return compression ? [[e.name, compression]] : [];
}, 'the Icechunk compression name', [['none', NO_FILE_COMPRESSION]]);
const fileCompressionNames = indexBy((e) => {
  const compression = fileCompressionOf(e);
  return compression ? [[compression.byte, e.name]] : [];
}, 'the Icechunk compression byte', [[NO_FILE_COMPRESSION.byte, 'none']]);

/**
 * Codecs other implementations write that Floe refuses, and why (said in the refusal, beside the
 * list of what Floe implements). For pcodec and ZFP no maintained JavaScript implementation exists
 * (npm has none under those names, nor numcodecs' WASM package); pickle would run Python code.
 */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  'numcodecs.pcodec': 'no maintained JavaScript implementation of pcodec exists',
  'numcodecs.zfpy': 'no maintained JavaScript implementation of ZFP exists',
  'numcodecs.pickle': 'unpickling runs arbitrary Python code',
};

/** Why Floe does not implement the codec called `name` (a v3 name), when it is one it knows of. */
export function unavailableReason(name: string): string | undefined {
  return UNAVAILABLE[name];
}

/** Zarr v3 codec names Floe implements, in registry order. */
export const ZARR_V3_CODEC_NAMES: readonly string[] = Object.freeze([...byV3Name.keys()]);
/** Zarr v1 compressor names Floe implements (without "none"), in registry order. */
export const ZARR_V1_COMPRESSOR_NAMES: readonly string[] = Object.freeze([...byV1Name.keys()]);
/** Icechunk file compressions by header byte, "none" (0) first. */
export const ICECHUNK_FILE_COMPRESSIONS: ReadonlyMap<number, string> = fileCompressionNames;

export function codecImplementation(name: string): CodecImplementation | undefined {
  return byName.get(name);
}

export function zarrV3Implementation(name: string): ZarrV3Entry | undefined {
  return byV3Name.get(name);
}

/** By v1 name: "gzip" is zlib's alias in v1 (an RFC 1950 stream), not the v3 gzip codec. */
export function zarrV1Implementation(name: string): ZarrV1Entry | undefined {
  return byV1Name.get(name);
}

/** The file compression called `name` ("none", "zstd"), or undefined when none is. */
export function icechunkFileCompression(name: string): FileCompression | undefined {
  return fileCompressions.get(name);
}

/** The name of the file compression with header byte `byte`, or undefined when Floe has none. */
export function icechunkFileCompressionName(byte: number): string | undefined {
  return fileCompressionNames.get(byte);
}

/** A Zarr v3 bytes -> bytes codec by name (tests, benches, tools); chains use pipeline.ts. */
export function createZarrV3BytesCodec(name: string, configuration: Record<string, unknown> | undefined, context: BytesCodecContext): BytesToBytesCodec {
  const entry = byV3Name.get(name);
  if (entry?.kind !== 'bytes_to_bytes') throw floeError('UNSUPPORTED', `"${name}" is not a Zarr v3 bytes -> bytes codec Floe implements`);
  return entry.zarrV3(configuration, context);
}

/** A Zarr v1 compressor by name from raw compression_opts; zarr-v1/meta.ts adds the context to errors. */
export function createZarrV1Compressor(name: string, compressionOpts: unknown, context: BytesCodecContext): BytesToBytesCodec {
  const entry = byV1Name.get(name);
  if (!entry) throw floeError('UNSUPPORTED', `"${name}" is not a Zarr v1 compressor Floe implements`);
  return entry.zarrV1.create(compressionOpts, context, name);
}
