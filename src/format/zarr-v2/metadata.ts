// Zarr v2 metadata documents: `.zarray` (parse + validate into a typed model, and write it back the
// way zarr-python 2 does: Python json, indent 4, sorted keys), `.zgroup` and `.zattrs`. A parsed
// array also gets its v3 view (format/numpy/chunk-codec.ts), built once here so that bad codecs
// fail when the metadata is read, naming `.zarray`, not at the first chunk.
import { floeError } from '../../errors.ts';
import { buildCodecChain } from '../codecs/pipeline.ts';
import type { CodecMetadata } from '../codecs/types.ts';
import type { JsonValue } from '../json.ts';
import { checkArrayShape } from '../limits.ts';
import { numpyChunkCodec, type NumpyChunkCodec, type NumpyCompressor } from '../numpy/chunk-codec.ts';
import { encodeAttributesDocument, encodePythonDocument, intList, invalid, parseAttributesDocument, readJsonObject } from '../numpy/documents.ts';
import type { NumpyDataType } from '../numpy/dtype.ts';
import { encodedElement, numcodecsCodec, readNumcodecsConfig, type EncodedElement, type NumcodecsConfig } from '../numpy/numcodecs.ts';
import type { PyJson } from '../numpy/python-json.ts';
import { createArrayMetadata, type ArrayMetadata, type Attributes } from '../zarr/metadata.ts';
import { parseV2DataType } from './dtype.ts';
import { parseV2FillValue, v2FillJson, type V2FillValue } from './fill.ts';

export const ZARRAY = '.zarray';
export const ZGROUP = '.zgroup';
export const ZATTRS = '.zattrs';

export interface V2ArrayMetadata {
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
  readonly dtype: NumpyDataType;
  readonly compressor: NumcodecsConfig | null;
  /** As written: for object arrays the object codec comes first. */
  readonly filters: readonly NumcodecsConfig[] | null;
  readonly fill: V2FillValue;
  readonly order: 'C' | 'F';
  readonly dimensionSeparator: '.' | '/';
  /** Other keys: kept and written back. */
  readonly extra: Readonly<Record<string, JsonValue>>;
}

/** How Floe reads and writes a v2 array: its chunk codec and the v3 metadata of the same array. */
export interface V2ArrayView {
  readonly chunkCodec: NumpyChunkCodec;
  readonly v3: ArrayMetadata;
}

const REQUIRED = ['zarr_format', 'shape', 'chunks', 'dtype', 'compressor', 'fill_value', 'order', 'filters'] as const;
const KNOWN = new Set<string>([...REQUIRED, 'dimension_separator']);

/** Parses `.zarray` (bytes, text, or a document already parsed, as consolidated metadata holds it). */
export function parseV2ArrayMetadata(input: Uint8Array | string | JsonValue, where = ZARRAY): V2ArrayMetadata {
  const doc = typeof input === 'string' || input instanceof Uint8Array ? readJsonObject(input, where) : objectOf(input, where);
  for (const key of REQUIRED) if (!(key in doc)) invalid(where, `"${key}" is required`);
  if (doc.zarr_format !== 2) invalid(where, `"zarr_format" must be 2, got ${JSON.stringify(doc.zarr_format)}`);
  const shape = intList(doc.shape, 0, 'shape', where);
  checkArrayShape(shape, where);
  const chunks = intList(doc.chunks, 1, 'chunks', where);
  if (chunks.length !== shape.length) invalid(where, `"chunks" has ${chunks.length} dimensions but "shape" has ${shape.length}`);
  const { dtype } = parseV2DataType(doc.dtype, doc.filters, where);
  const compressor = doc.compressor === null ? null : readNumcodecsConfig(doc.compressor, '"compressor"', where);
  const filters = doc.filters === null ? null : (doc.filters as JsonValue[]).map((f, i) => readNumcodecsConfig(f, `"filters"[${i}]`, where));
  if (doc.order !== 'C' && doc.order !== 'F') invalid(where, `"order" must be "C" or "F", got ${JSON.stringify(doc.order)}`);
  const separator = doc.dimension_separator ?? '.';
  if (separator !== '.' && separator !== '/') invalid(where, `"dimension_separator" must be "." or "/", got ${JSON.stringify(separator)}`);
  const fill = parseV2FillValue(dtype, doc.fill_value ?? null, where);
  const extra: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(doc)) if (!KNOWN.has(k)) extra[k] = v;
  const meta: V2ArrayMetadata = Object.freeze({ shape, chunks, dtype, compressor, filters, fill, order: doc.order, dimensionSeparator: separator, extra });
  v2ArrayView(meta, {}, where); // validates the codecs now
  return meta;
}

/** The chunk codec (filters and compressor through the codec registry) and the v3 view of `meta`. */
export function v2ArrayView(meta: V2ArrayMetadata, attributes: Attributes, where = ZARRAY): V2ArrayView {
  const chunkCodec = numpyChunkCodec({ dtype: meta.dtype, order: meta.order, chunks: meta.chunks, ...chunkFilters(meta, where) });
  const v3 = createArrayMetadata({
    shape: meta.shape,
    chunkShape: meta.chunks,
    dataType: meta.dtype.dataType.name,
    fillValue: meta.fill.value.json,
    codecs: chunkCodec.v3Codecs,
    chunkKeyEncoding: { name: 'v2', separator: meta.dimensionSeparator },
    attributes,
    ...optionalDimensionNames(attributes, meta.shape.length),
  }, where);
  buildCodecChain(v3.codecs, { shape: v3.chunkShape, dataType: v3.dataType, fillValue: v3.fillValue }, where);
  return { chunkCodec, v3 };
}

/** The xarray convention for dimension names in Zarr v2, which v3 holds as `dimension_names`. */
const XARRAY_DIMENSIONS = '_ARRAY_DIMENSIONS';

/** Names from `_ARRAY_DIMENSIONS` when it holds one string per dimension (xarray writes it), else none. */
export function xarrayDimensionNames(attributes: Attributes, rank: number): string[] | undefined {
  const value = attributes[XARRAY_DIMENSIONS];
  return Array.isArray(value) && value.length === rank && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

function optionalDimensionNames(attributes: Attributes, rank: number): { dimensionNames?: string[] } {
  const names = xarrayDimensionNames(attributes, rank);
  return names ? { dimensionNames: names } : {};
}

/**
 * Filters after the object codec: array filters (numcodecs.delta, ...) first, then bytes codecs,
 * which run before the compressor. An array filter after a bytes codec would see bytes, not
 * elements. Bytes codecs are built for the elements the array filters write (blosc's typesize).
 */
function chunkFilters(meta: V2ArrayMetadata, where: string): { filters: CodecMetadata[]; compressors: NumpyCompressor[]; encoded: EncodedElement } {
  const { dtype } = meta;
  const filters: CodecMetadata[] = [];
  const bytesConfigs: NumcodecsConfig[] = [];
  const skip = dtype.kind === 'object' && dtype.objectCodec !== 'categorize' ? 1 : 0;
  for (const config of (meta.filters ?? []).slice(skip)) {
    // The element size only matters to bytes codecs, which are rebuilt below with the right one.
    const codec = numcodecsCodec(config, { itemSize: dtype.itemSize }, 'filter', where);
    if (codec.kind === 'bytes_to_bytes') bytesConfigs.push(config);
    else if (bytesConfigs.length > 0) {
      throw floeError('UNSUPPORTED', `filter "${config.id}" follows a compressing filter; Floe applies array filters before bytes filters`, { where });
    } else filters.push(codec.v3);
  }
  if (dtype.kind === 'object' && dtype.objectCodec !== 'categorize' && filters.length > 0) {
    throw floeError('UNSUPPORTED', `an object array takes no array filters after its object codec, got ${filters.map((f) => f.name).join(', ')}`, { where });
  }
  const start: EncodedElement = { dataType: dtype.dataType, byteOrder: dtype.kind === 'numeric' || dtype.kind === 'datetime' ? dtype.byteOrder : 'none' };
  const encoded = filters.length > 0 ? encodedElement(filters, start, meta.chunks, where) : start;
  const context = { itemSize: filters.length > 0 ? encoded.dataType.itemSize : dtype.itemSize };
  const compressors = [...bytesConfigs, ...(meta.compressor ? [meta.compressor] : [])].map((config, i) => {
    const codec = numcodecsCodec(config, context, i < bytesConfigs.length ? 'filter' : 'compressor', where);
    if (codec.kind !== 'bytes_to_bytes') throw floeError('UNSUPPORTED', `compressor "${config.id}" is a filter (it works on elements); list it in "filters"`, { where });
    return codec.compressor;
  });
  return { filters, compressors, encoded };
}

export function v2ArrayMetadataJson(meta: V2ArrayMetadata): { [key: string]: PyJson } {
  return {
    ...meta.extra,
    chunks: [...meta.chunks],
    compressor: meta.compressor,
    dimension_separator: meta.dimensionSeparator,
    dtype: meta.dtype.json,
    fill_value: v2FillJson(meta.dtype, meta.fill),
    filters: meta.filters === null ? null : [...meta.filters],
    order: meta.order,
    shape: [...meta.shape],
    zarr_format: 2,
  };
}

export function encodeV2ArrayMetadata(meta: V2ArrayMetadata, where = ZARRAY): Uint8Array {
  return encodePythonDocument(v2ArrayMetadataJson(meta), where);
}

/** A copy of `meta` with another shape (resize). */
export function withV2Shape(meta: V2ArrayMetadata, shape: readonly number[], where = ZARRAY): V2ArrayMetadata {
  checkArrayShape(shape, where);
  return Object.freeze({ ...meta, shape: [...shape] });
}

/** `.zgroup`: `{"zarr_format": 2}` plus any other keys, which are kept. */
export function parseV2GroupMetadata(input: Uint8Array | string | JsonValue, where = ZGROUP): Readonly<Record<string, JsonValue>> {
  const doc = typeof input === 'string' || input instanceof Uint8Array ? readJsonObject(input, where) : objectOf(input, where);
  if (doc.zarr_format !== 2) invalid(where, `"zarr_format" must be 2, got ${JSON.stringify(doc.zarr_format)}`);
  const { zarr_format: _format, ...extra } = doc;
  return extra;
}

export function v2GroupMetadataJson(extra: Readonly<Record<string, JsonValue>> = {}): { [key: string]: PyJson } {
  return { ...extra, zarr_format: 2 };
}

export function encodeV2GroupMetadata(extra: Readonly<Record<string, JsonValue>> = {}, where = ZGROUP): Uint8Array {
  return encodePythonDocument(v2GroupMetadataJson(extra), where);
}

/** `.zattrs` (bytes, or a document consolidated metadata holds). */
export function parseV2Attributes(input: Uint8Array | JsonValue, where = ZATTRS): Attributes {
  return input instanceof Uint8Array ? parseAttributesDocument(input, where) : objectOf(input, where);
}

export function encodeV2Attributes(attrs: Attributes, where = ZATTRS): Uint8Array {
  return encodeAttributesDocument(attrs, where);
}

function objectOf(value: JsonValue, where: string): { [key: string]: JsonValue } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) invalid(where, 'the document must be a JSON object');
  return value;
}
