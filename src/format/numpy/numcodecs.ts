// numcodecs codec configurations ({"id": "zlib", "level": 1}) as Zarr v2 names its compressor and
// filters, mapped onto the codec registry's Zarr v3 codecs: gzip, zstd, blosc and crc32c onto the
// core v3 codecs that write the same bytes; every other id onto the `numcodecs.<id>` codec with
// the same configuration (less "id"), as zarr-python 3 names them. The registry entry's kind says
// where each runs: array -> array codecs are filters on elements, bytes -> bytes ones compress.
// pcodec and zfpy have no maintained JavaScript implementation (checked on npm); they are refused
// by name with the reason (registry.ts), like any id Floe does not know, with the list of what it reads.
import { floeError, isFloeError } from '../../errors.ts';
import type { ArrayToArrayCodec, ChunkSpec } from '../codecs/array-codecs.ts';
import { checkKeys, readInt } from '../codecs/bytes-codec-support.ts';
import { parseCodecDtype } from '../codecs/numcodecs/dtype.ts';
import { createZarrV3BytesCodec, unavailableReason, zarrV3Implementation } from '../codecs/registry.ts';
import type { BytesCodecContext, BytesToBytesCodec, CodecMetadata } from '../codecs/types.ts';
import { checkedAt } from '../indexing.ts';
import type { JsonValue } from '../json.ts';
import { defaultFillValue } from '../zarr/fill-value.ts';
import type { EncodedElement, NumpyCompressor } from './chunk-codec.ts';

/** A numcodecs configuration: `id` plus the codec's own keys. */
export type NumcodecsConfig = { readonly id: string } & Readonly<Record<string, JsonValue>>;

const BLOSC_SHUFFLES = ['noshuffle', 'shuffle', 'bitshuffle'] as const;

/** Ids whose v3 codec is a core one writing the same bytes: the configuration it gets. */
const CORE_FORMS: Readonly<Record<string, (config: Readonly<Record<string, JsonValue>>, context: BytesCodecContext) => CodecMetadata>> = {
  gzip: (c) => {
    checkKeys('gzip', c, ['level']);
    return { name: 'gzip', configuration: { level: readInt('gzip', c, 'level', 0, 9, 1) } };
  },
  zstd: (c) => {
    checkKeys('zstd', c, ['level', 'checksum']);
    return { name: 'zstd', configuration: { level: c.level ?? 1, checksum: c.checksum ?? false } };
  },
  blosc: (c, context) => bloscV3Form(createZarrV3BytesCodec('numcodecs.blosc', c, context), context.itemSize),
  crc32c: (c) => {
    checkKeys('crc32c', c, ['location']);
    if (c.location !== undefined && c.location !== 'end') throw floeError('UNSUPPORTED', `crc32c with "location": ${JSON.stringify(c.location)}: Floe reads crc32c at the end (numcodecs' default)`);
    return { name: 'crc32c' };
  },
};

/** Object codecs: the first filter of an object ("|O") array; categorize stays a filter. */
export const OBJECT_CODECS: readonly string[] = ['vlen-utf8', 'vlen-bytes', 'vlen-array', 'json2', 'msgpack2', 'categorize'];

/** numcodecs ids with a `numcodecs.<id>` codec in the registry (object codecs aside). */
const NUMCODECS_IDS = ['zlib', 'bz2', 'lzma', 'lz4', 'shuffle', 'crc32', 'adler32', 'fletcher32', 'jenkins_lookup3', 'delta', 'fixedscaleoffset', 'quantize', 'bitround', 'packbits', 'astype', 'categorize'];

/** Every numcodecs id Floe reads in `compressor` or `filters`, for error messages. */
export const NUMCODECS_SUPPORTED_IDS: readonly string[] = [...Object.keys(CORE_FORMS), ...NUMCODECS_IDS];

/** Reads `{"id": ..., ...}`; anything else is INVALID_METADATA naming `what`. */
export function readNumcodecsConfig(value: JsonValue | undefined, what: string, where: string): NumcodecsConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.id !== 'string') {
    throw floeError('INVALID_METADATA', `${what} must be a numcodecs configuration {"id": "<codec>", ...}, got ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`, { where });
  }
  return value as NumcodecsConfig;
}

/** A numcodecs codec as Floe runs it: its v3 form and what kind of codec that is. */
export type NumcodecsCodec =
  | { readonly kind: 'array_to_array'; readonly v3: CodecMetadata }
  | { readonly kind: 'bytes_to_bytes'; readonly v3: CodecMetadata; readonly compressor: NumpyCompressor };

/** Maps `config` onto its v3 codec through the registry; UNSUPPORTED for ids Floe does not read. */
export function numcodecsCodec(config: NumcodecsConfig, context: BytesCodecContext, role: 'compressor' | 'filter', where: string): NumcodecsCodec {
  const { id, ...rest } = config;
  return inPlace(where, () => {
    const core = CORE_FORMS[id];
    const v3 = core ? core(rest, context) : NUMCODECS_IDS.includes(id) ? { name: `numcodecs.${id}`, configuration: rest } : undefined;
    const entry = v3 && zarrV3Implementation(v3.name);
    if (!v3 || !entry || entry.kind === 'array_to_bytes') throw unsupported(role, id, where);
    if (entry.kind === 'array_to_array') {
      if (role === 'compressor') throw floeError('UNSUPPORTED', `compressor "${id}" is a filter (it works on elements); list it in "filters"`, { where });
      return { kind: 'array_to_array', v3 };
    }
    const codec = createZarrV3BytesCodec(v3.name, v3.configuration, context);
    return { kind: 'bytes_to_bytes', v3, compressor: { codec, v3 } };
  });
}

/** The v3 blosc configuration that reads and writes what a numcodecs-style blosc codec does. */
export function bloscV3Form(codec: BytesToBytesCodec, itemSize: number): CodecMetadata {
  const config = codec.toJSON().configuration ?? {};
  const shuffle = checkedAt(BLOSC_SHUFFLES, config.shuffle as number, 'INVALID_METADATA', 'blosc shuffle modes');
  return { name: 'blosc', configuration: { cname: config.cname, clevel: config.clevel, shuffle, typesize: itemSize, blocksize: config.blocksize ?? 0 } };
}

function unsupported(role: string, id: string, where: string): Error {
  const reason = unavailableReason(`numcodecs.${id}`);
  const why = reason ? ` (${reason})` : '';
  return floeError('UNSUPPORTED', `${role} "${id}" is not supported${why}; Floe reads the numcodecs codecs ${NUMCODECS_SUPPORTED_IDS.join(', ')} and the object codecs ${OBJECT_CODECS.join(', ')}`, { where });
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

/**
 * What `filters` (v3 forms of numcodecs filters, in encode order) turn elements of `start` into:
 * the type each filter's codec resolves to, and the byte order its "astype" / "encode_dtype"
 * typestr states (numcodecs casts into exactly that dtype, and the compressor sees its bytes).
 */
export type { EncodedElement };

export function encodedElement(filters: readonly CodecMetadata[], start: EncodedElement, shape: readonly number[], where: string): EncodedElement {
  let spec: ChunkSpec = { shape, dataType: start.dataType, fillValue: defaultFillValue(start.dataType) };
  let byteOrder = start.byteOrder;
  for (const filter of filters) {
    const entry = zarrV3Implementation(filter.name);
    if (entry?.kind !== 'array_to_array') throw floeError('UNSUPPORTED', `filter "${filter.name}" is not an array filter`, { where });
    const codec = inPlace(where, () => entry.zarrV3(filter.configuration, { spec, buildChain: () => noNestedChains(filter.name) }) as ArrayToArrayCodec);
    const next = codec.resolveSpec(spec);
    const stated = filter.configuration?.astype ?? filter.configuration?.encode_dtype;
    const order = typeof stated === 'string' ? parseCodecDtype(stated)?.byteOrder : undefined;
    byteOrder = order ?? (next.dataType.name === spec.dataType.name ? byteOrder : 'little');
    spec = next;
  }
  return { dataType: spec.dataType, byteOrder: spec.dataType.itemSize > 1 && byteOrder === 'none' ? 'little' : byteOrder };
}

function noNestedChains(name: string): never {
  throw floeError('UNSUPPORTED', `filter "${name}" cannot hold nested codecs`);
}
