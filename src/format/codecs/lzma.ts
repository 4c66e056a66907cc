// Zarr v1 `lzma` compressor. compression_opts follow Python's lzma module (as numcodecs LZMA):
// {format: 0 auto | 1 xz | 2 alone | 3 raw, check, preset, filters}. Decoding reads xz (any
// check, delta + LZMA2 chains), .lzma "alone" files, and raw LZMA1/LZMA2 streams described by
// `filters`. Encoding writes xz, alone, or raw LZMA2 without extra filters; the native encoder
// picks its own preset, which changes the ratio, never the format.
import { lzma, lzma2, xz } from '@napi-rs/lzma';
import { floeError } from '../../errors.ts';
import type { BytesToBytesCodec } from './types.ts';
import { checkKeys, decodingGuard, invalidConfig } from './bytes-codec-support.ts';
import { applyFilters, decodeXz, FILTER_DELTA, FILTER_LZMA2, isXz, lzma2End, undoDelta } from './lzma-xz.ts';

const NAME = 'lzma';
const FORMAT_AUTO = 0;
const FORMAT_XZ = 1;
const FORMAT_ALONE = 2;
const FORMAT_RAW = 3;
// 0x4000000000000001 does not survive JSON as a double: it arrives as 2^62.
const FILTER_LZMA1 = 2 ** 62;
// liblzma preset -> dictionary size (lc=3, lp=0, pb=2 for every preset).
const PRESET_DICT = [18, 20, 21, 22, 22, 23, 23, 24, 25, 26].map((log) => 2 ** log);

interface FilterSpec { id: number; options: Record<string, unknown> }

export function lzmaCompressor(compressionOpts: unknown): BytesToBytesCodec {
  const opts = readOpts(compressionOpts);
  const format = opts.format;
  const filters = opts.filters;
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: (data) => encode(format, filters, data),
    decode: (data) => decodingGuard(NAME, () => decode(format, filters, data)),
    toJSON: () => ({ name: NAME, configuration: { ...opts.raw } }),
  };
}

function decode(format: number, filters: FilterSpec[] | null, data: Uint8Array): Uint8Array {
  if (format === FORMAT_RAW) return decodeRaw(filters, data);
  if (isXz(data)) return decodeXz(data);
  if (format === FORMAT_XZ) throw floeError('CORRUPT_OBJECT', 'lzma: the chunk is not an xz stream (bad magic); check compression_opts.format');
  return lzma.decompressSync(data);
}

function decodeRaw(filters: FilterSpec[] | null, data: Uint8Array): Uint8Array {
  const chain = filters ?? [];
  const last = chain[chain.length - 1];
  if (!last) throw invalidConfig(NAME, 'format 3 (raw) needs a filter chain');
  let decoded: Uint8Array;
  if (last.id === FILTER_LZMA2) {
    decoded = lzma2.decompressSync(data.subarray(0, lzma2End(data, 0)));
  } else if (last.id === FILTER_LZMA1) {
    // Give liblzma's "alone" decoder the properties the raw stream lacks; size unknown.
    const header = new Uint8Array(13).fill(0xff);
    const lc = optionInt(last, 'lc', 3);
    const lp = optionInt(last, 'lp', 0);
    const pb = optionInt(last, 'pb', 2);
    header[0] = (pb * 5 + lp) * 9 + lc;
    new DataView(header.buffer).setUint32(1, dictSize(last), true);
    decoded = lzma.decompressSync(Buffer.concat([header, data]));
  } else {
    throw invalidConfig(NAME, `raw filter chains must end with LZMA1 or LZMA2, got id ${last.id}`);
  }
  const rest = chain.slice(0, -1).map((f) => ({ id: f.id, props: new Uint8Array([optionInt(f, 'dist', 1) - 1]) }));
  return applyFilters(decoded, [...rest, { id: FILTER_LZMA2, props: new Uint8Array() }]);
}

function encode(format: number, filters: FilterSpec[] | null, data: Uint8Array): Uint8Array {
  if (format === FORMAT_XZ || format === FORMAT_AUTO) return xz.compressSync(data);
  if (format === FORMAT_ALONE) return lzma.compressSync(data);
  const chain = filters ?? [];
  const only = chain[0];
  // A raw LZMA2 reader sizes its window from the filter; ours may use a larger one, which is
  // only safe when the whole input fits in the reader's window.
  if (chain.length === 1 && only!.id === FILTER_LZMA2 && data.length <= dictSize(only!)) return lzma2.compressSync(data);
  throw floeError('UNSUPPORTED', 'lzma: writing raw streams is supported for a lone LZMA2 filter and inputs within its dictionary only; use format 1 (xz)');
}

function dictSize(filter: FilterSpec): number {
  const explicit = filter.options.dict_size;
  if (typeof explicit === 'number') return explicit;
  const preset = optionInt(filter, 'preset', 6) & 0x1f; // strip the "extreme" flag
  return PRESET_DICT[Math.min(preset, 9)]!;
}

function optionInt(filter: FilterSpec, key: string, fallback: number): number {
  const value = filter.options[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidConfig(NAME, `filter option "${key}" must be a non-negative integer`);
  return value;
}

function readOpts(compressionOpts: unknown): { format: number; filters: FilterSpec[] | null; raw: Record<string, unknown> } {
  if (compressionOpts === null || compressionOpts === undefined) return { format: FORMAT_XZ, filters: null, raw: { format: FORMAT_XZ } };
  if (typeof compressionOpts !== 'object' || Array.isArray(compressionOpts)) {
    throw invalidConfig(NAME, `compression_opts must be an object, got ${JSON.stringify(compressionOpts)}`);
  }
  const raw = compressionOpts as Record<string, unknown>;
  checkKeys(NAME, raw, ['format', 'check', 'preset', 'filters', 'id']);
  const format = raw.format ?? FORMAT_XZ;
  if (typeof format !== 'number' || ![0, 1, 2, 3].includes(format)) throw invalidConfig(NAME, `"format" must be 0-3, got ${JSON.stringify(format)}`);
  let filters: FilterSpec[] | null = null;
  if (raw.filters !== undefined && raw.filters !== null) {
    if (!Array.isArray(raw.filters)) throw invalidConfig(NAME, '"filters" must be a list of {id, ...options}');
    filters = raw.filters.map((f: unknown) => {
      const options = f as Record<string, unknown>;
      if (typeof options !== 'object' || options === null || typeof options.id !== 'number') throw invalidConfig(NAME, 'each filter needs a numeric "id"');
      const id = options.id >= FILTER_LZMA1 ? FILTER_LZMA1 : options.id;
      if (id !== FILTER_LZMA1 && id !== FILTER_LZMA2 && id !== FILTER_DELTA) {
        throw floeError('UNSUPPORTED', `lzma: filter id ${id} is not supported (LZMA1, LZMA2 and delta are)`);
      }
      return { id, options };
    });
  }
  if (format === FORMAT_RAW && (filters === null || filters.length === 0)) throw invalidConfig(NAME, 'format 3 (raw) needs "filters"');
  return { format, filters, raw: { ...raw } };
}
