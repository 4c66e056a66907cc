// numcodecs codec configurations ({"id": "zlib", "level": 1}) as Zarr v2 names its compressor and
// filters, built from the codec registry's implementations. Each compressor says which v3 codec
// writes the same bytes, when one does (gzip, zstd, blosc): those run inside the v3 chain and
// convert to v3 verbatim. zlib, bz2 and lzma have no v3 codec Floe writes (their numcodecs.*
// names come with the numcodecs codecs, issue 21 stage 2), so they run outside the chain.
import { floeError, isFloeError } from '../../errors.ts';
import { checkKeys, readInt } from '../codecs/bytes-codec-support.ts';
import { createZarrV1Compressor, createZarrV3BytesCodec } from '../codecs/registry.ts';
import type { BytesCodecContext, BytesToBytesCodec, CodecMetadata } from '../codecs/types.ts';
import { checkedAt } from '../indexing.ts';
import type { JsonValue } from '../json.ts';
import type { NumpyCompressor } from './chunk-codec.ts';

/** A numcodecs configuration: `id` plus the codec's own keys. */
export type NumcodecsConfig = { readonly id: string } & Readonly<Record<string, JsonValue>>;

type CompressorFactory = (config: Readonly<Record<string, JsonValue>>, context: BytesCodecContext) => NumpyCompressor;

const BLOSC_SHUFFLES = ['noshuffle', 'shuffle', 'bitshuffle'] as const;

const withV3 = (codec: BytesToBytesCodec): NumpyCompressor => ({ codec, v3: codec.toJSON() });

/** numcodecs' compressors by id, with numcodecs' defaults where a key is missing. */
const COMPRESSORS: Readonly<Record<string, { readonly keys: readonly string[]; readonly build: CompressorFactory }>> = {
  zlib: { keys: ['level'], build: (c, ctx) => ({ codec: createZarrV1Compressor('zlib', { level: c.level ?? 1 }, ctx) }) },
  gzip: { keys: ['level'], build: (c, ctx) => withV3(createZarrV3BytesCodec('gzip', { level: readInt('gzip', c, 'level', 0, 9, 1) }, ctx)) },
  bz2: { keys: ['level'], build: (c, ctx) => ({ codec: createZarrV1Compressor('bz2', { level: c.level ?? 1 }, ctx) }) },
  lzma: { keys: ['format', 'check', 'preset', 'filters'], build: (c, ctx) => ({ codec: createZarrV1Compressor('lzma', c, ctx) }) },
  zstd: { keys: ['level', 'checksum'], build: (c, ctx) => withV3(createZarrV3BytesCodec('zstd', { level: c.level ?? 1, checksum: c.checksum ?? false }, ctx)) },
  blosc: {
    keys: ['cname', 'clevel', 'shuffle', 'blocksize', 'typesize'],
    build: (c, ctx) => {
      const codec = createZarrV1Compressor('blosc', { cname: 'lz4', clevel: 5, shuffle: 1, ...c }, ctx);
      return { codec, v3: bloscV3Form(codec, ctx.itemSize) };
    },
  },
};

/** Filters with a v3 array -> array codec (the object codecs are read by zarr-v2/dtype.ts). */
const ARRAY_FILTERS: Readonly<Record<string, { readonly keys: readonly string[]; readonly v3Name: string }>> = {
  delta: { keys: ['dtype', 'astype'], v3Name: 'numcodecs.delta' },
};

/** Object codecs: the first filter of an object ("|O") array. */
export const OBJECT_CODECS: readonly string[] = ['vlen-utf8', 'vlen-bytes'];

export const NUMCODECS_COMPRESSOR_IDS: readonly string[] = Object.keys(COMPRESSORS);
export const NUMCODECS_FILTER_IDS: readonly string[] = [...Object.keys(ARRAY_FILTERS), ...OBJECT_CODECS, ...NUMCODECS_COMPRESSOR_IDS];

/** Reads `{"id": ..., ...}`; anything else is INVALID_METADATA naming `what`. */
export function readNumcodecsConfig(value: JsonValue | undefined, what: string, where: string): NumcodecsConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.id !== 'string') {
    throw floeError('INVALID_METADATA', `${what} must be a numcodecs configuration {"id": "<codec>", ...}, got ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`, { where });
  }
  return value as NumcodecsConfig;
}

export function isCompressorId(id: string): boolean {
  return Object.hasOwn(COMPRESSORS, id);
}

export function isArrayFilterId(id: string): boolean {
  return Object.hasOwn(ARRAY_FILTERS, id);
}

/** Builds a compressor through the registry; UNSUPPORTED for ids Floe does not implement. */
export function numcodecsCompressor(config: NumcodecsConfig, context: BytesCodecContext, where: string): NumpyCompressor {
  const entry = COMPRESSORS[config.id];
  if (!entry) throw unsupported('compressor', config.id, NUMCODECS_COMPRESSOR_IDS, where);
  const { id: _id, ...rest } = config;
  return inPlace(where, () => {
    checkKeys(config.id, rest, entry.keys);
    return entry.build(rest, context);
  });
}

/** A filter with a v3 array -> array form, as that v3 codec's metadata. */
export function numcodecsArrayFilter(config: NumcodecsConfig, where: string): CodecMetadata {
  const entry = ARRAY_FILTERS[config.id];
  if (!entry) throw unsupported('filter', config.id, NUMCODECS_FILTER_IDS, where);
  const { id: _id, ...rest } = config;
  inPlace(where, () => checkKeys(config.id, rest, entry.keys));
  return { name: entry.v3Name, configuration: rest };
}

/** The v3 blosc configuration that reads and writes what a numcodecs-style blosc codec does. */
export function bloscV3Form(codec: BytesToBytesCodec, itemSize: number): CodecMetadata {
  const config = codec.toJSON().configuration ?? {};
  const shuffle = checkedAt(BLOSC_SHUFFLES, config.shuffle as number, 'INVALID_METADATA', 'blosc shuffle modes');
  return { name: 'blosc', configuration: { cname: config.cname, clevel: config.clevel, shuffle, typesize: itemSize, blocksize: config.blocksize ?? 0 } };
}

function unsupported(role: string, id: string, supported: readonly string[], where: string): Error {
  return floeError('UNSUPPORTED', `${role} "${id}" is not supported; Floe reads the numcodecs ${role}s ${supported.join(', ')}`, { where });
}

/** Runs a codec builder, naming the metadata document in its errors. */
function inPlace<T>(where: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (isFloeError(err) && !err.where) throw floeError(err.code, err.message, { where, cause: err, details: err.details });
    throw err;
  }
}
