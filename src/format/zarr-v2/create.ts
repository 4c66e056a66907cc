// A new Zarr v2 array's metadata from user options, with zarr-python 2's defaults: Blosc
// (lz4, clevel 5, byte shuffle), fill value 0 in each dtype's own form (false, "", zero bytes;
// null for object arrays), C order, "." separator. The dtype is a NumPy typestr or descr, or a
// Zarr v3 data type name ("float64", "string"), mapped to the NumPy type zarr-python would use.
import { floeError } from '../../errors.ts';
import type { JsonValue } from '../json.ts';
import type { NumcodecsConfig } from '../numpy/numcodecs.ts';
import { parseV2ArrayMetadata, ZARRAY, type V2ArrayMetadata } from './metadata.ts';
import { toBase64 } from '../../platform/host.ts';

/** A structured dtype as zarr-python writes it: [name, typestr] or [name, typestr, shape] entries. */
export type V2Descr = readonly (readonly [string, string] | readonly [string, string, readonly number[]])[];

/** Metadata of a new Zarr v2 array, in v2 terms. */
export interface V2ArrayMetadataInput {
  shape: readonly number[];
  chunks: readonly number[];
  /** A NumPy typestr ("<f8", "|S4", "<U8", "<M8[ns]", "|O"), a structured descr, or a v3 name ("float64", "string", "binary"). */
  dtype: string | V2Descr;
  /** Default: zarr-python 2's Blosc (lz4, clevel 5, shuffle 1); null for none. */
  compressor?: NumcodecsConfig | null;
  /** Default none; a "|O" dtype needs its object codec first ("string"/"binary" add it). */
  filters?: readonly NumcodecsConfig[] | null;
  /** The `fill_value` as `.zarray` holds it (base64 for bytes and records). Default: 0 in the dtype's form. */
  fillValue?: JsonValue;
  order?: 'C' | 'F';
  dimensionSeparator?: '.' | '/';
}

export const DEFAULT_V2_COMPRESSOR: NumcodecsConfig = Object.freeze({ id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 });

const V3_NAMES: Readonly<Record<string, string>> = {
  bool: '|b1', int8: '|i1', uint8: '|u1', int16: '<i2', uint16: '<u2', int32: '<i4', uint32: '<u4', int64: '<i8', uint64: '<u8',
  float16: '<f2', float32: '<f4', float64: '<f8', complex64: '<c8', complex128: '<c16',
};
const OBJECT_NAMES: Readonly<Record<string, string>> = { string: 'vlen-utf8', binary: 'vlen-bytes' };

export function createV2ArrayMetadata(input: V2ArrayMetadataInput, where = ZARRAY): V2ArrayMetadata {
  const { dtype, filters } = resolveDtype(input);
  const doc: { [key: string]: JsonValue } = {
    chunks: [...input.chunks],
    compressor: input.compressor === undefined ? DEFAULT_V2_COMPRESSOR : input.compressor,
    dimension_separator: input.dimensionSeparator ?? '.',
    dtype: dtype as JsonValue,
    fill_value: null,
    filters: filters === null ? null : [...filters],
    order: input.order ?? 'C',
    shape: [...input.shape],
    zarr_format: 2,
  };
  const probe = parseV2ArrayMetadata({ ...doc }, where);
  doc.fill_value = input.fillValue === undefined ? defaultFill(probe) : input.fillValue;
  return parseV2ArrayMetadata(doc, where);
}

function resolveDtype(input: V2ArrayMetadataInput): { dtype: string | V2Descr; filters: readonly NumcodecsConfig[] | null } {
  const filters = input.filters ?? null;
  if (typeof input.dtype !== 'string') return { dtype: input.dtype, filters };
  const objectCodec = OBJECT_NAMES[input.dtype];
  if (objectCodec !== undefined) {
    if (filters?.[0]?.id === objectCodec) return { dtype: '|O', filters };
    return { dtype: '|O', filters: [{ id: objectCodec }, ...(filters ?? [])] };
  }
  const raw = /^r(\d+)$/.exec(input.dtype);
  if (raw) return { dtype: `|V${Number(raw[1]) / 8}`, filters };
  return { dtype: V3_NAMES[input.dtype] ?? input.dtype, filters };
}

/** zarr-python 2's default fill (0) as that dtype stores it. */
function defaultFill(meta: V2ArrayMetadata): JsonValue {
  switch (meta.dtype.kind) {
    case 'object':
      return null;
    case 'unicode':
      return '';
    case 'bytes':
    case 'structured':
      return toBase64(new Uint8Array(meta.dtype.itemSize));
    case 'numeric':
      return meta.dtype.dataType.kind === 'bool' ? false : meta.dtype.dataType.kind === 'complex' ? [0, 0] : 0;
    case 'datetime':
      return 0;
  }
}

/** Refuses a v2 input field a v3 caller might pass by mistake. */
export function checkV2Input(input: object, where: string): void {
  for (const key of ['dataType', 'chunkShape', 'codecs']) {
    if (key in input) throw floeError('INVALID_ARGUMENT', `a Zarr v2 array takes "dtype", "chunks", "compressor" and "filters", not "${key}"`, { where });
  }
}
