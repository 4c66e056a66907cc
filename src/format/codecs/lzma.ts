// Zarr v1 `lzma` compressor. compression_opts follow Python's lzma module (as numcodecs LZMA):
// {format: 0 auto | 1 xz | 2 alone | 3 raw, check, preset, filters}. Decoding reads xz (any
// check, delta + LZMA2 chains), .lzma "alone" files, and raw streams described by `filters`.
// Encoding writes all four formats; raw chains (delta filters, then LZMA1 or LZMA2) are in
// lzma-raw.ts. The native encoder picks its own preset and, for xz, its own filters: that
// changes the ratio, never what a reader needs, since xz and alone streams describe themselves.
import { napiLzma } from './native-lzma.ts';
import { floeError } from '../../errors.ts';
import { PLAIN_CAPABILITIES, type BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec } from './types.ts';
import { checkKeys, decodingGuard, invalidConfig, shown } from './bytes-codec-support.ts';
import { checkChain, decodeAlone, decodeRaw, encodeRaw, FILTER_LZMA1, type FilterSpec } from './lzma-raw.ts';
import { decodeXz, FILTER_DELTA, FILTER_LZMA2, isXz } from './lzma-xz.ts';

const NAME = 'lzma';
const FORMAT_AUTO = 0;
const FORMAT_XZ = 1;
const FORMAT_ALONE = 2;
const FORMAT_RAW = 3;
const LZMA1_ID = 0x4000000000000001n;

export function lzmaCompressor(compressionOpts: unknown): BytesToBytesCodec {
  const opts = readOpts(compressionOpts);
  const format = opts.format;
  const filters = opts.filters;
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => encode(format, filters, data),
    decode: (data, limits) => decodingGuard(NAME, () => decode(format, filters, data, limits?.maxBytes)),
    toJSON: () => ({ name: NAME, configuration: { ...opts.raw } }),
  };
}

/** No levels: the native encoder picks its own preset (see above). */
export const lzmaEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { ...PLAIN_CAPABILITIES, boundedDecode: true },
  zarrV1: { names: [NAME], create: (opts) => lzmaCompressor(opts) },
};

/** Every format is bounded: xz and LZMA2 by their chunk headers, LZMA1 by decodeAlone's probe. */
function decode(format: number, filters: FilterSpec[] | null, data: Uint8Array, maxBytes: number | undefined): Uint8Array {
  if (format === FORMAT_RAW) return decodeRaw(filters!, data, maxBytes);
  if (isXz(data)) return decodeXz(data, maxBytes);
  if (format === FORMAT_XZ) throw floeError('CORRUPT_OBJECT', 'lzma: the chunk is not an xz stream (bad magic); check compression_opts.format');
  return decodeAlone(data, maxBytes);
}

function encode(format: number, filters: FilterSpec[] | null, data: Uint8Array): Uint8Array {
  if (format === FORMAT_RAW) return encodeRaw(filters!, data);
  if (format === FORMAT_ALONE) return napiLzma().lzma.compressSync(data);
  return napiLzma().xz.compressSync(data);
}

function readOpts(compressionOpts: unknown): { format: number; filters: FilterSpec[] | null; raw: Record<string, unknown> } {
  if (compressionOpts === null || compressionOpts === undefined) return { format: FORMAT_XZ, filters: null, raw: { format: FORMAT_XZ } };
  if (typeof compressionOpts !== 'object' || Array.isArray(compressionOpts)) {
    throw invalidConfig(NAME, `compression_opts must be an object, got ${shown(compressionOpts)}`);
  }
  const raw = compressionOpts as Record<string, unknown>;
  checkKeys(NAME, raw, ['format', 'check', 'preset', 'filters', 'id']);
  const format = raw.format ?? FORMAT_XZ;
  if (typeof format !== 'number' || ![FORMAT_AUTO, FORMAT_XZ, FORMAT_ALONE, FORMAT_RAW].includes(format)) {
    throw invalidConfig(NAME, `"format" must be 0-3, got ${shown(format)}`);
  }
  const filters = raw.filters === undefined || raw.filters === null ? null : readFilters(raw.filters);
  if (format === FORMAT_RAW && filters === null) throw invalidConfig(NAME, 'format 3 (raw) needs "filters"');
  return { format, filters, raw: { ...raw } };
}

function readFilters(value: unknown): FilterSpec[] {
  if (!Array.isArray(value)) throw invalidConfig(NAME, '"filters" must be a list of {id, ...options}');
  const filters = value.map((f: unknown): FilterSpec => {
    const options = f as Record<string, unknown>;
    if (typeof options !== 'object' || options === null) throw invalidConfig(NAME, 'each filter must be an object {id, ...options}');
    const id = filterId(options.id);
    if (id !== FILTER_LZMA1 && id !== FILTER_LZMA2 && id !== FILTER_DELTA) {
      throw floeError('UNSUPPORTED', `lzma: filter id ${id} is not supported (LZMA1, LZMA2 and delta are; BCJ branch filters are not)`);
    }
    return { id, options };
  });
  checkChain(filters);
  return filters;
}

/**
 * LZMA1's id 0x4000000000000001 arrives as a bigint from Floe's exact JSON parser (as Python wrote
 * it) or as 2^62 from a double-based one; both mean LZMA1. Other ids are small numbers.
 */
function filterId(id: unknown): number {
  if (id === LZMA1_ID || (typeof id === 'number' && id >= FILTER_LZMA1)) return FILTER_LZMA1;
  if (typeof id === 'number' && Number.isInteger(id) && id >= 0) return id;
  throw invalidConfig(NAME, `filter "id" must be a non-negative integer, got ${shown(id)}`);
}
