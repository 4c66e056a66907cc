// The Zarr v1 `meta` document (and `attrs`): parse + validate into a typed model, and write it
// back byte-for-byte the way zarr 1.x did (Python json, indent 4, sorted keys).
import { floeError, isFloeError } from '../../errors.ts';
import { ZARR_V1_COMPRESSOR_NAMES, zarrV1Implementation } from '../codecs/registry.ts';
import type { BytesToBytesCodec } from '../codecs/types.ts';
import { stringifyJson, type JsonValue } from '../json.ts';
import { checkArrayShape } from '../limits.ts';
import type { Attributes } from '../zarr/metadata.ts';
import { numpyChunkCodec, type NumpyChunkCodec } from '../numpy/chunk-codec.ts';
import { parseNumpyDataType, V1_DIALECT, type NumpyDataType } from '../numpy/dtype.ts';
import { encodeAttributesDocument, encodePythonDocument, intList, invalid, parseAttributesDocument, readJsonObject } from '../numpy/documents.ts';
import type { PyJson } from '../numpy/python-json.ts';
import { parseV1FillValue, v1FillJson, type V1FillValue } from './fill.ts';

export const V1_COMPRESSION_NAMES: readonly string[] = ['none', ...ZARR_V1_COMPRESSOR_NAMES];

export interface V1Metadata {
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
  readonly dtype: NumpyDataType;
  /** 'none' or a Zarr v1 compressor name of the codec registry (codecs/registry.ts). */
  readonly compression: string;
  readonly compressionOpts: JsonValue;
  readonly fill: V1FillValue;
  readonly order: 'C' | 'F';
  /** Other keys: allowed by the spec, kept and written back. */
  readonly extra: Readonly<Record<string, JsonValue>>;
}

const REQUIRED = ['zarr_format', 'shape', 'chunks', 'dtype', 'compression', 'compression_opts', 'fill_value', 'order'] as const;

export function parseV1Metadata(input: Uint8Array | string, where = 'meta'): V1Metadata {
  const doc = readJsonObject(input, where);
  for (const key of REQUIRED) if (!(key in doc)) invalid(where, `"${key}" is required`);
  if (doc.zarr_format !== 1) invalid(where, `"zarr_format" must be 1, got ${JSON.stringify(doc.zarr_format)}`);
  const shape = intList(doc.shape, 0, 'shape', where);
  checkArrayShape(shape, where);
  const chunks = intList(doc.chunks, 1, 'chunks', where);
  if (shape.length === 0) {
    throw floeError('UNSUPPORTED', 'a 0-dimensional v1 array has no chunk key ("".join of no indices); zarr 1.x never wrote one', { where });
  }
  if (chunks.length !== shape.length) invalid(where, `"chunks" has ${chunks.length} dimensions but "shape" has ${shape.length}`);
  const dtype = parseNumpyDataType(doc.dtype, where, V1_DIALECT);
  if (typeof doc.compression !== 'string') invalid(where, `"compression" must be a string, got ${JSON.stringify(doc.compression)}`);
  const compression = doc.compression;
  const compressionOpts = doc.compression_opts!;
  v1Compressor({ compression, compressionOpts, dtype }, where); // validates the options now, not at the first chunk
  if (doc.order !== 'C' && doc.order !== 'F') invalid(where, `"order" must be "C" or "F", got ${JSON.stringify(doc.order)}`);
  const fill = parseV1FillValue(dtype, doc.fill_value!, where);
  const extra: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(doc)) if (!(REQUIRED as readonly string[]).includes(k)) extra[k] = v;
  return Object.freeze({ shape, chunks, dtype, compression, compressionOpts, fill, order: doc.order, extra });
}

/** The compressor of an array, or undefined for 'none'. Built once per array, through the registry. */
export function v1Compressor(meta: Pick<V1Metadata, 'compression' | 'compressionOpts' | 'dtype'>, where = 'meta'): BytesToBytesCodec | undefined {
  if (meta.compression === 'none') return undefined;
  const entry = zarrV1Implementation(meta.compression);
  if (!entry) {
    throw floeError('UNSUPPORTED', `compression ${JSON.stringify(meta.compression)} is not supported; Floe reads ${V1_COMPRESSION_NAMES.join(', ')}`, { where });
  }
  try {
    // numcodecs' blosc typesize is the whole element (record) size.
    return entry.zarrV1.create(meta.compressionOpts, { itemSize: meta.dtype.itemSize }, meta.compression);
  } catch (err) {
    throw floeError(isFloeError(err) ? err.code : 'INVALID_METADATA', `"compression_opts" ${stringifyJson(meta.compressionOpts, 0)} is not valid for ${meta.compression}: ${(err as Error).message}`, { where, cause: err, details: isFloeError(err) ? err.details : {} });
  }
}

/** How a v1 array's chunks are read: its compressor outside a v3 chain of transpose and bytes. */
export function v1ChunkCodec(meta: V1Metadata): NumpyChunkCodec {
  const compressor = v1Compressor(meta);
  return numpyChunkCodec({ dtype: meta.dtype, order: meta.order, chunks: meta.chunks, compressors: compressor ? [{ codec: compressor }] : [] });
}

export function encodeV1Metadata(meta: V1Metadata, where = 'meta'): Uint8Array {
  const doc: { [key: string]: PyJson } = {
    ...meta.extra,
    chunks: [...meta.chunks],
    compression: meta.compression,
    compression_opts: meta.compressionOpts,
    dtype: meta.dtype.json,
    fill_value: v1FillJson(meta.dtype, meta.fill),
    order: meta.order,
    shape: [...meta.shape],
    zarr_format: 1,
  };
  return encodePythonDocument(doc, where);
}

export function parseV1Attributes(input: Uint8Array, where = 'attrs'): Attributes {
  return parseAttributesDocument(input, where);
}

export function encodeV1Attributes(attrs: Attributes, where = 'attrs'): Uint8Array {
  return encodeAttributesDocument(attrs, where);
}
