// Zarr v1 arrays. A v1 store is one array: `meta`, `attrs`, chunks under "i.j.k". Floe reads and
// writes it through a ZarrArray: `V1ChunkStore` turns stored chunks into the bytes of a plain v3
// codec chain (decompressing, and transcoding U<n>) and back, so selections, edge chunks and
// fill handling are the v3 engine's own, not a copy of them.
import { floeError } from '../errors.ts';
import type { JsonValue } from '../format/json.ts';
import { atKey, v1ChunkCodec, type V1ChunkCodec } from '../format/zarr-v1/chunk-codec.ts';
import type { V1DataType } from '../format/zarr-v1/dtype.ts';
import { encodeV1Attributes, encodeV1Metadata, parseV1Attributes, parseV1Metadata, type V1Metadata } from '../format/zarr-v1/meta.ts';
import { stringifyPythonJson, type PyJson } from '../format/zarr-v1/python-json.ts';
import { joinRecords, splitRecords, type FieldArrays } from '../format/zarr-v1/structured.ts';
import { createArrayMetadata, type Attributes } from '../format/zarr/metadata.ts';
import { cStrides, fillElements, product, type NdArray } from '../format/zarr/ndarray.ts';
import { ZarrArray, type ArrayIoOptions, type GetOptions, type WriteValue } from './array.ts';
import type { Selection } from './selection.ts';
import type { ByteRange, ListDir, ZarrStore } from './store.ts';

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
  /** The same array seen as Zarr v3 (through V1ChunkStore); conversion writes its codecs. */
  readonly inner: ZarrArray;
  readonly chunkCodec: V1ChunkCodec;

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
      codecs: this.chunkCodec.v3ArrayCodecs,
      chunkKeyEncoding: { name: 'v2', separator: '.' },
    }, V1_META_KEY);
    const chunks = new V1ChunkStore(store, this.chunkCodec, metadata.shape.length, metadata.fill.isNull ? () => this.zeroChunk() : undefined);
    this.inner = new ZarrArray(chunks, '/', v3, options);
  }

  /** Opens the v1 array a store holds; `NOT_FOUND` without a `meta` key. A missing `attrs` reads as no attributes. */
  static async open(store: ZarrStore, options?: ArrayIoOptions): Promise<V1Array> {
    const meta = await store.get(V1_META_KEY);
    if (!meta) throw floeError('NOT_FOUND', 'no Zarr v1 array here: the "meta" key is missing', { where: V1_META_KEY });
    // The spec says "attrs" MUST exist; a store without it is still readable, with no attributes.
    const attrs = await store.get(V1_ATTRS_KEY);
    return new V1Array(store, parseV1Metadata(meta, V1_META_KEY), attrs ? parseV1Attributes(attrs, V1_ATTRS_KEY) : {}, options);
  }

  /** Writes a new v1 array's `meta` and `attrs` to the store. */
  static async create(store: ZarrStore, input: V1ArrayInput, options?: ArrayIoOptions): Promise<V1Array> {
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
    const metadata = parseV1Metadata(stringifyPythonJson(doc), V1_META_KEY);
    const array = new V1Array(store, metadata, input.attributes ?? {}, options); // validates before writing
    if (!input.overwrite && (await store.get(V1_META_KEY))) {
      throw floeError('ALREADY_EXISTS', 'the store already holds a v1 array; pass overwrite: true to replace it', { where: V1_META_KEY });
    }
    if (input.overwrite) await store.erasePrefix('');
    await store.set(V1_META_KEY, encodeV1Metadata(metadata, V1_META_KEY));
    await store.set(V1_ATTRS_KEY, encodeV1Attributes(array.attributes, V1_ATTRS_KEY));
    return array;
  }

  get shape(): readonly number[] {
    return this.metadata.shape;
  }
  get chunks(): readonly number[] {
    return this.metadata.chunks;
  }
  get dtype(): V1DataType {
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
  set(selection: Selection | undefined, value: WriteValue, options?: ArrayIoOptions): Promise<void> {
    return this.inner.set(selection, value, options);
  }

  /** A structured array's selection as one array per field. */
  async getFields(selection?: Selection, options?: GetOptions): Promise<{ shape: number[]; fields: FieldArrays }> {
    const dtype = this.structured();
    const records = await this.get(selection, options);
    return { shape: records.shape, fields: splitRecords(dtype, records.data as Uint8Array, product(records.shape)) };
  }

  /** Writes one array per field (C order, the selection's shape) into a structured array. */
  async setFields(selection: Selection | undefined, fields: FieldArrays, options?: ArrayIoOptions): Promise<void> {
    const dtype = this.structured();
    const first = Object.values(fields)[0];
    const lanes = dtype.fields.find((f) => f.name === Object.keys(fields)[0])?.type.dataType.lanes ?? 1;
    const n = first ? first.length / lanes : 0;
    await this.set(selection, joinRecords(dtype, fields, n), options);
  }

  /** Replaces the attributes (the `attrs` key); returns the updated array. */
  async setAttributes(attributes: Attributes): Promise<V1Array> {
    await this.store.set(V1_ATTRS_KEY, encodeV1Attributes(attributes, V1_ATTRS_KEY));
    return new V1Array(this.store, this.metadata, attributes);
  }

  private structured() {
    const dtype = this.metadata.dtype;
    if (dtype.kind !== 'structured') throw floeError('INVALID_ARGUMENT', `dtype ${JSON.stringify(dtype.json)} has no fields`, { where: V1_META_KEY });
    return dtype;
  }

  private zeroChunkBytes: Uint8Array | undefined;

  /** An all-zero chunk as stored: what a null-fill array writes instead of deleting a chunk. */
  private zeroChunk(): Uint8Array {
    if (!this.zeroChunkBytes) {
      const { chain } = this.inner;
      const shape = [...chain.spec.shape];
      const data = chain.spec.dataType.allocate(product(shape));
      fillElements(data, chain.spec.fillValue.memory, 0, product(shape), chain.spec.dataType.lanes);
      this.zeroChunkBytes = this.chunkCodec.encode(chain.encode({ data, shape, stride: cStrides(shape) }));
    }
    return this.zeroChunkBytes;
  }
}

/**
 * The store a v1 array's inner ZarrArray sees: chunk keys hold the bytes of the v3 chain
 * (decoded on get, encoded on set), every other key passes through. With a null fill value,
 * erasing a chunk writes a zero chunk instead, since missing chunks are undefined in v1.
 */
export class V1ChunkStore implements ZarrStore {
  constructor(
    private readonly base: ZarrStore,
    private readonly codec: V1ChunkCodec,
    private readonly rank: number,
    private readonly keepChunk: (() => Uint8Array) | undefined,
  ) {}

  get readOnly(): boolean {
    return this.base.readOnly;
  }

  isChunkKey(key: string): boolean {
    const parts = key.replace(/^\//, '').split('.');
    return parts.length === this.rank && parts.every((p) => /^(0|[1-9]\d*)$/.test(p));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const stored = await this.base.get(key);
    if (!stored || !this.isChunkKey(key)) return stored;
    return atKey(key, () => this.codec.decode(stored));
  }

  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    if (!this.isChunkKey(key)) return this.base.getRange(key, range);
    const whole = await this.get(key);
    if (!whole) return undefined;
    if ('suffixLength' in range) return whole.subarray(Math.max(0, whole.length - range.suffixLength));
    return whole.subarray(range.offset, range.length === undefined ? undefined : range.offset + range.length);
  }

  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[]): Promise<(Uint8Array | undefined)[]> {
    return Promise.all(requests.map(([k, r]) => (r ? this.getRange(k, r) : this.get(k))));
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    await this.base.set(key, this.isChunkKey(key) ? atKey(key, () => this.codec.encode(value)) : value);
  }

  async setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[]): Promise<void> {
    for (const [key] of requests) {
      if (this.isChunkKey(key)) throw floeError('UNSUPPORTED', 'partial writes into a compressed v1 chunk are not supported', { where: key });
    }
    await this.base.setPartialValues(requests);
  }

  async erase(key: string): Promise<void> {
    await this.eraseValues([key]);
  }

  async eraseValues(keys: readonly string[]): Promise<void> {
    const chunks = this.keepChunk ? keys.filter((k) => this.isChunkKey(k)) : [];
    for (const k of chunks) await this.base.set(k, this.keepChunk!());
    await this.base.eraseValues(keys.filter((k) => !chunks.includes(k)));
  }

  erasePrefix(prefix: string): Promise<void> {
    return this.base.erasePrefix(prefix);
  }
  list(): AsyncIterable<string> {
    return this.base.list();
  }
  listPrefix(prefix: string): AsyncIterable<string> {
    return this.base.listPrefix(prefix);
  }
  listDir(prefix: string): Promise<ListDir> {
    return this.base.listDir(prefix);
  }
}
