// Zarr v1 arrays. A v1 store is one array: `meta`, `attrs`, chunks under "i.j.k". Floe reads and
// writes it through a ZarrArray: a `NumpyChunkStore` turns stored chunks into the bytes of a plain
// v3 codec chain (decompressing, and transcoding U<n>) and back, so selections, edge chunks and
// fill handling are the v3 engine's own, not a copy of them.
import { floeError } from '../errors.ts';
import { requestOf } from './abort.ts';
import type { JsonValue } from '../format/json.ts';
import type { NumpyChunkCodec } from '../format/numpy/chunk-codec.ts';
import type { NumpyDataType } from '../format/numpy/dtype.ts';
import { stringifyPythonJson, type PyJson } from '../format/numpy/python-json.ts';
import type { FieldArrays } from '../format/numpy/records.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import { encodeV1Attributes, encodeV1Metadata, parseV1Attributes, parseV1Metadata, v1ChunkCodec, type V1Metadata } from '../format/zarr-v1/meta.ts';
import { createArrayMetadata, type Attributes } from '../format/zarr/metadata.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import { eraseAllBut, ZarrArray, type ArrayIoOptions, type GetOptions, type OpenArrayOptions, type SetOptions, type WriteValue } from './array.ts';
import { encodedFillChunk } from './fill-chunk.ts';
import { NumpyChunkStore } from './numpy-chunk-store.ts';
import { getFields, setFields } from './record-fields.ts';
import type { Selection } from './selection.ts';
import type { AbortOptions, ZarrStore } from './store.ts';

export const V1_META_KEY = 'meta';
export const V1_ATTRS_KEY = 'attrs';

/** Metadata of a new Zarr v1 array ({@link V1Array.create}), in v1 terms (NumPy dtypes, compressor names). */
export interface V1ArrayInput {
  shape: readonly number[];
  chunks: readonly number[];
  /** A NumPy typestr ("<f8", "|S4", "<U8") or a structured descr ([["x", "<f4"], ...]). */
  dtype: string | readonly (readonly [string, string])[];
  /** Default "blosc" with {cname: "lz4", clevel: 5, shuffle: 1}, zarr 1.x's default. */
  compression?: string;
  compressionOpts?: JsonValue;
  /** Default null (zarr 1.x's default): missing chunks read as zeros, no chunk is ever deleted. */
  fillValue?: JsonValue;
  order?: 'C' | 'F';
  attributes?: Attributes;
  overwrite?: boolean;
}

/**
 * A Zarr v1 array: the whole store is one array (keys `meta`, `attrs` and chunk keys like `0.1`).
 * Reads and writes go through a Zarr v3 view of it ({@link V1Array.inner}); structured dtypes add
 * field-wise access.
 */
export class V1Array {
  /** The same array seen as Zarr v3 (through a NumpyChunkStore); conversion writes its codecs. */
  readonly inner: ZarrArray;
  readonly chunkCodec: NumpyChunkCodec;

  private constructor(
    readonly store: ZarrStore,
    readonly metadata: V1Metadata,
    readonly attributes: Attributes,
    options: ArrayIoOptions = {},
  ) {
    this.chunkCodec = v1ChunkCodec(metadata);
    const v3 = createArrayMetadata({
      shape: metadata.shape,
      chunkShape: metadata.chunks,
      dataType: metadata.dtype.dataType.name,
      fillValue: metadata.fill.value.json,
      codecs: this.chunkCodec.v3Codecs,
      chunkKeyEncoding: { name: 'v2', separator: '.' },
    }, V1_META_KEY);
    const keys = { prefix: '', encoding: v3.chunkKeyEncoding, rank: metadata.shape.length };
    const chunks = new NumpyChunkStore(store, this.chunkCodec, keys, metadata.fill.isNull ? () => this.zeroChunk() : undefined);
    this.inner = new ZarrArray(chunks, '/', v3, options);
  }

  /** Opens the v1 array a store holds; `NOT_FOUND` without a `meta` key. A missing `attrs` reads as no attributes. */
  static async open(store: ZarrStore, options?: OpenArrayOptions): Promise<V1Array> {
    const request = requestOf(options);
    const meta = await store.get(V1_META_KEY, request);
    if (!meta) throw floeError('NOT_FOUND', 'no Zarr v1 array here: the "meta" key is missing', { where: V1_META_KEY });
    // The spec says "attrs" MUST exist; a store without it is still readable, with no attributes.
    const attrs = await store.get(V1_ATTRS_KEY, request);
    await loadCodecsMentionedIn(meta);
    return new V1Array(store, parseV1Metadata(meta, V1_META_KEY), attrs ? parseV1Attributes(attrs, V1_ATTRS_KEY) : {}, options);
  }

  /** Writes a new v1 array's `meta` and `attrs` to the store. */
  static async create(store: ZarrStore, input: V1ArrayInput, options?: OpenArrayOptions): Promise<V1Array> {
    const doc: { [key: string]: PyJson } = {
      chunks: [...input.chunks],
      compression: input.compression ?? 'blosc',
      compression_opts: input.compressionOpts ?? (input.compression === undefined ? { clevel: 5, cname: 'lz4', shuffle: 1 } : null),
      dtype: input.dtype as JsonValue,
      fill_value: input.fillValue ?? null,
      order: input.order ?? 'C',
      shape: [...input.shape],
      zarr_format: 1,
    };
    const text = stringifyPythonJson(doc);
    await loadCodecsMentionedIn(text);
    const metadata = parseV1Metadata(text, V1_META_KEY);
    const array = new V1Array(store, metadata, input.attributes ?? {}, options); // validates before writing
    const request = requestOf(options);
    if (!input.overwrite && (await store.get(V1_META_KEY, request))) {
      throw floeError('ALREADY_EXISTS', 'the store already holds a v1 array; pass overwrite: true to replace it', { where: V1_META_KEY });
    }
    // The new metadata first (one put: until it lands the old array is whole), then what the old one left.
    await store.set(V1_META_KEY, encodeV1Metadata(metadata, V1_META_KEY), request);
    if (input.overwrite) await eraseAllBut(store, '', [V1_META_KEY]);
    await store.set(V1_ATTRS_KEY, encodeV1Attributes(array.attributes, V1_ATTRS_KEY), request);
    return array;
  }

  get shape(): readonly number[] {
    return this.metadata.shape;
  }
  get chunks(): readonly number[] {
    return this.metadata.chunks;
  }
  get dtype(): NumpyDataType {
    return this.metadata.dtype;
  }

  /** The store key of chunk `coords`: indices joined by ".". */
  chunkKey(coords: readonly number[]): string {
    return coords.join('.');
  }

  /** Reads a selection (same selections and result layout as ZarrArray.get). */
  get(selection?: Selection, options?: GetOptions): Promise<NdArray> {
    return this.inner.get(selection, options);
  }

  /** Writes a selection (same values as ZarrArray.set; structured arrays take raw records). */
  set(selection: Selection | undefined, value: WriteValue, options?: SetOptions): Promise<void> {
    return this.inner.set(selection, value, options);
  }

  /** A structured array's selection as one array per field. */
  getFields(selection?: Selection, options?: GetOptions): Promise<{ shape: number[]; fields: FieldArrays }> {
    return getFields(this.inner, this.metadata.dtype, selection, options);
  }

  /** Writes one array per field (C order, the selection's shape) into a structured array. */
  setFields(selection: Selection | undefined, fields: FieldArrays, options?: SetOptions): Promise<void> {
    return setFields(this.inner, this.metadata.dtype, selection, fields, options);
  }

  /** Replaces the attributes (the `attrs` key); returns the updated array. */
  async setAttributes(attributes: Attributes, options?: AbortOptions): Promise<V1Array> {
    await this.store.set(V1_ATTRS_KEY, encodeV1Attributes(attributes, V1_ATTRS_KEY), requestOf(options));
    return new V1Array(this.store, this.metadata, attributes);
  }

  private zeroChunkBytes: Uint8Array | undefined;

  /** An all-zero chunk as stored: what a null-fill array writes instead of deleting a chunk. */
  private zeroChunk(): Uint8Array {
    this.zeroChunkBytes ??= encodedFillChunk(this.inner.chain, this.chunkCodec);
    return this.zeroChunkBytes;
  }
}
