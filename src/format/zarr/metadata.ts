// zarr.json for arrays and groups: parse + validate into a typed model, and serialize back.
// Unknown top-level fields are refused unless they are objects saying `"must_understand": false`
// (kept verbatim so a round trip loses nothing).
import { requireArray, requireObject } from '../arguments.ts';
import { floeError } from '../../errors.ts';
import type { CodecMetadata } from '../codecs/types.ts';
import { isJsonObject, parseJson, stringifyJson, type JsonValue } from '../json.ts';
import { checkArrayShape } from '../limits.ts';
import { parseDataType, type DataType } from './data-types.ts';
import { defaultFillValue, parseFillValue, type FillValue, type FillValueInput } from './fill-value.ts';
import { parseChunkKeyEncoding, type ChunkKeyEncoding } from './chunk-keys.ts';

/** User attributes of an array or group: any JSON object. */
export type Attributes = Readonly<Record<string, JsonValue>>;

/** Parsed metadata of a Zarr v3 array (its zarr.json). */
export interface ArrayMetadata {
  readonly nodeType: 'array';
  readonly shape: readonly number[];
  readonly dataType: DataType;
  /** The `data_type` value as written (a string, or an extension object). */
  readonly dataTypeJson: JsonValue;
  readonly chunkShape: readonly number[];
  readonly chunkKeyEncoding: ChunkKeyEncoding;
  readonly fillValue: FillValue;
  readonly codecs: readonly CodecMetadata[];
  readonly attributes: Attributes;
  readonly dimensionNames: readonly (string | null)[] | undefined;
  readonly storageTransformers: readonly CodecMetadata[];
  /** Optional fields Floe does not interpret but must keep (must_understand: false, zarr-python's extras). */
  readonly extra: Readonly<Record<string, JsonValue>>;
}

/** Parsed metadata of a Zarr v3 group (its zarr.json). */
export interface GroupMetadata {
  readonly nodeType: 'group';
  readonly attributes: Attributes;
  readonly extra: Readonly<Record<string, JsonValue>>;
}

export type NodeMetadata = ArrayMetadata | GroupMetadata;

const ARRAY_FIELDS = new Set([
  'zarr_format', 'node_type', 'shape', 'data_type', 'chunk_grid', 'chunk_key_encoding', 'fill_value',
  'codecs', 'attributes', 'dimension_names', 'storage_transformers',
]);
const GROUP_FIELDS = new Set(['zarr_format', 'node_type', 'attributes']);
/** Fields other implementations write without `must_understand` that are safe to carry along. */
const TOLERATED_FIELDS = new Set(['consolidated_metadata']);

export function parseNodeMetadata(input: Uint8Array | string | JsonValue, where = 'zarr.json'): NodeMetadata {
  const doc = typeof input === 'string' || input instanceof Uint8Array ? parseJson(input, where) : input;
  if (!isJsonObject(doc)) invalid(where, '', 'the document must be a JSON object');
  if (doc.zarr_format !== 3) {
    invalid(where, 'zarr_format', `must be 3, got ${JSON.stringify(doc.zarr_format)}; Zarr v2 metadata lives in .zarray / .zgroup, not zarr.json`);
  }
  if (doc.node_type === 'group') {
    return Object.freeze({
      nodeType: 'group',
      attributes: parseAttributes(doc.attributes, where),
      extra: collectExtra(doc, GROUP_FIELDS, where),
    });
  }
  if (doc.node_type !== 'array') invalid(where, 'node_type', `must be "array" or "group", got ${JSON.stringify(doc.node_type)}`);
  return parseArray(doc, where);
}

export function parseArrayMetadata(input: Uint8Array | string | JsonValue, where = 'zarr.json'): ArrayMetadata {
  const meta = parseNodeMetadata(input, where);
  if (meta.nodeType !== 'array') throw floeError('NODE_TYPE_MISMATCH', 'expected an array, found a group', { where });
  return meta;
}

function parseArray(doc: { [key: string]: JsonValue }, where: string): ArrayMetadata {
  const shape = intList(doc.shape, where, 'shape', 0);
  checkArrayShape(shape, where);
  const dataType = parseDataType(doc.data_type, `${where}: data_type`);
  const chunkShape = parseChunkGrid(doc.chunk_grid, shape.length, where);
  const chunkKeyEncoding = parseChunkKeyEncoding(doc.chunk_key_encoding, `${where}: chunk_key_encoding`);
  if (!('fill_value' in doc)) invalid(where, 'fill_value', 'is required (null is not allowed for core data types)');
  const fillValue = parseFillValue(dataType, doc.fill_value as FillValueInput, `${where}: fill_value`);
  const codecs = extensionList(doc.codecs, where, 'codecs');
  if (codecs.length === 0) invalid(where, 'codecs', 'must list at least the array -> bytes codec');
  const storageTransformers = doc.storage_transformers === undefined ? [] : extensionList(doc.storage_transformers, where, 'storage_transformers');
  for (const t of storageTransformers) {
    if (t.must_understand !== false) {
      throw floeError('UNSUPPORTED', `storage transformer "${t.name}" is not supported`, { where });
    }
  }
  return Object.freeze({
    nodeType: 'array',
    shape,
    dataType,
    dataTypeJson: doc.data_type!,
    chunkShape,
    chunkKeyEncoding,
    fillValue,
    codecs,
    attributes: parseAttributes(doc.attributes, where),
    dimensionNames: parseDimensionNames(doc.dimension_names, shape.length, where),
    storageTransformers,
    extra: collectExtra(doc, ARRAY_FIELDS, where),
  });
}

function parseChunkGrid(value: JsonValue | undefined, rank: number, where: string): number[] {
  if (!isJsonObject(value) || typeof value.name !== 'string') invalid(where, 'chunk_grid', 'must be {name, configuration}');
  if (value.name !== 'regular') {
    throw floeError('UNSUPPORTED', `chunk grid "${value.name}" is not supported; only "regular" is`, { where });
  }
  const config = value.configuration;
  if (!isJsonObject(config)) invalid(where, 'chunk_grid.configuration', 'must be an object with chunk_shape');
  const chunkShape = intList(config.chunk_shape, where, 'chunk_grid.configuration.chunk_shape', 1);
  if (chunkShape.length !== rank) {
    invalid(where, 'chunk_grid.configuration.chunk_shape', `has ${chunkShape.length} dimensions but shape has ${rank}`);
  }
  return chunkShape;
}

function parseDimensionNames(value: JsonValue | undefined, rank: number, where: string): (string | null)[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length !== rank || !value.every((n) => n === null || typeof n === 'string')) {
    invalid(where, 'dimension_names', `must be a list of ${rank} strings or nulls`);
  }
  return value as (string | null)[];
}

function parseAttributes(value: JsonValue | undefined, where: string): Attributes {
  if (value === undefined) return {};
  if (!isJsonObject(value)) invalid(where, 'attributes', 'must be a JSON object');
  return value;
}

function extensionList(value: JsonValue | undefined, where: string, field: string): CodecMetadata[] {
  if (!Array.isArray(value)) invalid(where, field, 'must be a list of {name, configuration} objects');
  return value.map((entry, i) => {
    if (typeof entry === 'string') return { name: entry };
    if (!isJsonObject(entry) || typeof entry.name !== 'string') invalid(where, `${field}[${i}]`, 'must have a string "name"');
    if (entry.configuration !== undefined && !isJsonObject(entry.configuration)) {
      invalid(where, `${field}[${i}].configuration`, 'must be an object');
    }
    return entry as unknown as CodecMetadata;
  });
}

function collectExtra(doc: { [key: string]: JsonValue }, known: Set<string>, where: string): Record<string, JsonValue> {
  const extra: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (known.has(key)) continue;
    const optional = isJsonObject(value) && value.must_understand === false;
    if (!optional && !TOLERATED_FIELDS.has(key)) {
      invalid(where, key, 'is not a Zarr v3 field; unknown fields are allowed only as objects with "must_understand": false');
    }
    extra[key] = value;
  }
  return extra;
}

function intList(value: JsonValue | undefined, where: string, field: string, min: number): number[] {
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= min)) {
    invalid(where, field, `must be a list of integers >= ${min}, got ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  }
  return value as number[];
}

function invalid(where: string, field: string, why: string): never {
  throw floeError('INVALID_METADATA', field ? `"${field}" ${why}` : why, { where });
}

/** The JSON document for a node, fields in the order zarr-python writes them. */
export function nodeMetadataToJson(meta: NodeMetadata): { [key: string]: JsonValue } {
  if (meta.nodeType === 'group') {
    return { zarr_format: 3, node_type: 'group', attributes: meta.attributes, ...meta.extra };
  }
  const doc: { [key: string]: JsonValue } = {
    zarr_format: 3,
    node_type: 'array',
    shape: [...meta.shape],
    data_type: meta.dataTypeJson,
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [...meta.chunkShape] } },
    chunk_key_encoding: { name: meta.chunkKeyEncoding.name, configuration: { separator: meta.chunkKeyEncoding.separator } },
    fill_value: meta.fillValue.json,
    codecs: meta.codecs as unknown as JsonValue,
    attributes: meta.attributes,
  };
  if (meta.dimensionNames) doc.dimension_names = [...meta.dimensionNames];
  if (meta.storageTransformers.length > 0) doc.storage_transformers = meta.storageTransformers as unknown as JsonValue;
  return { ...doc, ...meta.extra };
}

/**
 * zarr.json bytes. Refuses (LIMIT_EXCEEDED) a document parseNodeMetadata would refuse to read back,
 * too large or nested too deep, naming the path of the deepest value (e.g. `attributes.a[0]…`).
 */
export function encodeNodeMetadata(meta: NodeMetadata, where = 'zarr.json'): Uint8Array {
  return new TextEncoder().encode(stringifyJson(nodeMetadataToJson(meta), 2, { where }));
}

/**
 * What a new array needs: shape, data type (its zarr.json name) and chunk shape. The fill value
 * defaults to the data type's default and the codecs to `bytes` (`vlen-utf8` for strings).
 */
export interface ArrayMetadataInput {
  shape: readonly number[];
  dataType: string;
  chunkShape: readonly number[];
  fillValue?: FillValueInput;
  codecs?: readonly CodecMetadata[];
  attributes?: Attributes;
  dimensionNames?: readonly (string | null)[];
  chunkKeyEncoding?: { name: 'default' | 'v2'; separator?: '/' | '.' };
}

/** Builds validated metadata from user options; the default fill value is recorded explicitly. */
export function createArrayMetadata(input: ArrayMetadataInput, where = 'zarr.json'): ArrayMetadata {
  requireObject(input, 'the array options', where);
  requireArray(input.shape, 'shape', where);
  requireArray(input.chunkShape, 'chunkShape', where);
  const dataType = parseDataType(input.dataType, where);
  const fill = input.fillValue === undefined ? defaultFillValue(dataType) : parseFillValue(dataType, input.fillValue, where);
  const keyEncoding = input.chunkKeyEncoding ?? { name: 'default' };
  const codecs: CodecMetadata[] = input.codecs ? [...input.codecs] : defaultCodecs(dataType);
  const doc: { [key: string]: JsonValue } = {
    zarr_format: 3,
    node_type: 'array',
    shape: [...input.shape],
    data_type: input.dataType,
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [...input.chunkShape] } },
    chunk_key_encoding: { name: keyEncoding.name, configuration: { separator: keyEncoding.separator ?? (keyEncoding.name === 'v2' ? '.' : '/') } },
    fill_value: fill.json,
    codecs: codecs as unknown as JsonValue,
    attributes: (input.attributes ?? {}) as JsonValue,
  };
  if (input.dimensionNames) doc.dimension_names = [...input.dimensionNames];
  return parseArray(doc, where);
}

function defaultCodecs(dt: DataType): CodecMetadata[] {
  if (dt.kind === 'string') return [{ name: 'vlen-utf8' }];
  return dt.itemSize === 1 && dt.kind !== 'raw' ? [{ name: 'bytes' }] : [{ name: 'bytes', configuration: { endian: 'little' } }];
}

export function createGroupMetadata(attributes: Attributes = {}): GroupMetadata {
  return Object.freeze({ nodeType: 'group', attributes, extra: {} });
}

/** A copy of array metadata with another shape (resize) or attributes. */
export function withArrayChanges(meta: ArrayMetadata, changes: { shape?: readonly number[]; attributes?: Attributes }): ArrayMetadata {
  const doc = nodeMetadataToJson({ ...meta, ...changes } as ArrayMetadata);
  return parseArray(doc, 'zarr.json');
}
