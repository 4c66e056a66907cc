// Zarr v2 arrays (`.zarray`, `.zattrs`, chunks under "i.j" or "i/j"). A V2Array is a ZarrArray
// over its v3 view (format/zarr-v2/metadata.ts): selections, edge chunks, fill handling, the decode
// pool and the query layer are the v3 engine's own. Where the v3 chain cannot express a codec
// (zlib, bz2, lzma, U<n>'s UCS-4) a NumpyChunkStore runs it around the chain; otherwise chunks go
// to the store untouched. Metadata changes write `.zarray` / `.zattrs` instead of zarr.json.
// Every operation takes `signal` in its options, as a v3 array's do.
import { requireArray } from '../format/arguments.ts';
import { floeError } from '../errors.ts';
import { requestOf } from './abort.ts';
import type { JsonValue } from '../format/json.ts';
import type { NumpyChunkCodec } from '../format/numpy/chunk-codec.ts';
import type { NumpyDataType } from '../format/numpy/dtype.ts';
import { objectArrayDtype } from '../format/numpy/vlen-array.ts';
import type { FieldArrays } from '../format/numpy/records.ts';
import { buildCodecChain } from '../format/codecs/pipeline.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import { createV2ArrayMetadata, DEFAULT_V2_COMPRESSOR, type V2ArrayMetadataInput } from '../format/zarr-v2/create.ts';
import {
  encodeV2ArrayMetadata, encodeV2Attributes, parseV2ArrayMetadata, parseV2Attributes, v2ArrayMetadataJson, v2ArrayView, withV2Shape,
  ZARRAY, ZATTRS, type V2ArrayMetadata,
} from '../format/zarr-v2/metadata.ts';
import type { Attributes } from '../format/zarr/metadata.ts';
import { keyPrefix, normalizePath } from '../format/zarr/paths.ts';
import { eraseAllBut, ZarrArray, type ArrayIoOptions, type GetOptions, type OpenArrayOptions, type SetOptions } from './array.ts';
import { changeLayout } from './array-generations.ts';
import { updateConsolidatedV2 } from './consolidated.ts';
import { encodedFillChunk } from './fill-chunk.ts';
import { NumpyChunkStore } from './numpy-chunk-store.ts';
import { getFields, setFields } from './record-fields.ts';
import type { Selection } from './selection.ts';
import type { AbortOptions, ZarrStore } from './store.ts';

/** A new Zarr v2 array ({@link V2Array.createAt}): v2 metadata plus attributes. */
export interface V2ArrayInput extends V2ArrayMetadataInput {
  /** Selects Zarr v2 where a v3 array could be meant (createArray, ZarrGroup.createArray). */
  zarrFormat: 2;
  attributes?: Attributes;
  overwrite?: boolean;
}

export class V2Array extends ZarrArray {
  readonly zarrFormat = 2 as const;
  readonly chunkCodec: NumpyChunkCodec;

  private constructor(
    /** The store itself; `store` may be a NumpyChunkStore over it. */
    readonly baseStore: ZarrStore,
    path: string,
    /** The `.zarray` document, parsed. */
    readonly v2Metadata: V2ArrayMetadata,
    attributes: Attributes,
    private readonly ioDefaults: ArrayIoOptions,
  ) {
    const where = keyPrefix(path) + ZARRAY;
    const { chunkCodec, v3 } = v2ArrayView(v2Metadata, attributes, where);
    const keys = { prefix: keyPrefix(path), encoding: v3.chunkKeyEncoding, rank: v3.shape.length };
    let keep: (() => Uint8Array) | undefined;
    if (v2Metadata.fill.isNull) {
      let chunk: Uint8Array | undefined;
      const chain = buildCodecChain(v3.codecs, { shape: v3.chunkShape, dataType: v3.dataType, fillValue: v3.fillValue }, where);
      keep = () => (chunk ??= encodedFillChunk(chain, chunkCodec));
    }
    const store = chunkCodec.passThrough && !keep ? baseStore : new NumpyChunkStore(baseStore, chunkCodec, keys, keep);
    super(store, path, v3, ioDefaults);
    this.chunkCodec = chunkCodec;
  }

  protected override cfZarrFill(): unknown {
    return this.v2Metadata.fill.isNull ? undefined : this.metadata.fillValue.memory[0];
  }

  /** The array from its documents (`.zarray` required, `.zattrs` optional), as stored or consolidated. */
  static fromDocuments(store: ZarrStore, path: string, zarray: Uint8Array | JsonValue, zattrs: Uint8Array | JsonValue | undefined, options: ArrayIoOptions = {}): V2Array {
    const prefix = keyPrefix(path);
    const attributes = zattrs === undefined ? {} : parseV2Attributes(zattrs, prefix + ZATTRS);
    return new V2Array(store, path, parseV2ArrayMetadata(zarray, prefix + ZARRAY), attributes, options);
  }

  /** Opens the v2 array at `path`; `NOT_FOUND` without a `.zarray` there. */
  static async openAt(store: ZarrStore, path = '/', options: OpenArrayOptions = {}): Promise<V2Array> {
    const prefix = keyPrefix(path);
    const request = requestOf(options);
    const zarray = await store.get(prefix + ZARRAY, request);
    if (!zarray) throw floeError('NOT_FOUND', `no Zarr v2 array at ${normalizePath(path)}`, { where: prefix + ZARRAY });
    await loadCodecsMentionedIn(zarray);
    return V2Array.fromDocuments(store, path, zarray, await store.get(prefix + ZATTRS, request), options);
  }

  /**
   * Writes a new v2 array's `.zarray` (and `.zattrs` when there are attributes). `ALREADY_EXISTS`
   * when a node is there, unless `overwrite`, which replaces it and everything below it: the new
   * `.zarray` first, so a failure before it leaves the old node whole, then the old node's other keys.
   */
  static async createAt(store: ZarrStore, path: string, input: V2ArrayInput, options: OpenArrayOptions = {}): Promise<V2Array> {
    const prefix = keyPrefix(path);
    await loadCodecsMentionedIn([input, DEFAULT_V2_COMPRESSOR]); // the default compressor too
    const metadata = createV2ArrayMetadata(input, prefix + ZARRAY);
    const attributes = input.attributes ?? {};
    const array = new V2Array(store, path, metadata, attributes, options); // validates before writing
    const request = requestOf(options);
    const existing = await Promise.all(['zarr.json', ZARRAY, '.zgroup'].map((k) => store.get(prefix + k, request)));
    if (!input.overwrite && existing.some((b) => b !== undefined)) {
      throw floeError('ALREADY_EXISTS', `a node already exists at ${array.path}; pass overwrite: true to replace it`, { where: prefix + ZARRAY });
    }
    if (input.overwrite) changeLayout(store, array.path, metadata.shape); // older handles on the old array are stale
    if (input.overwrite && !store.transactional) {
      // The new .zarray first (one put: until it lands the old node is whole), then the rest of the old node.
      await array.writeArrayDocument(metadata, request);
      await eraseAllBut(store, prefix, [prefix + ZARRAY]); // completes the replacement: no signal
      await updateConsolidatedV2(store, path, undefined);
      await updateConsolidatedV2(store, path, { name: ZARRAY, doc: v2ArrayMetadataJson(metadata) });
    } else {
      if (input.overwrite) {
        await store.erasePrefix(prefix, request); // in a session nothing is visible before the commit
        await updateConsolidatedV2(store, path, undefined); // completes the erase: no signal
      }
      await array.writeArrayDocument(metadata, request);
    }
    if (Object.keys(attributes).length > 0) await array.writeAttributes(attributes, request);
    return array.markCurrent();
  }

  /** Over another store, chunks still pass through this array's v2 filters and compressor. */
  override overStore(store: ZarrStore, options: ArrayIoOptions = {}): V2Array {
    return new V2Array(store, this.path, this.v2Metadata, this.attributes, options);
  }

  get dtypeJson(): JsonValue {
    return this.v2Metadata.dtype.json;
  }
  get numpyDtype(): NumpyDataType {
    return this.v2Metadata.dtype;
  }

  /** A vlen-array object array's element dtype (the codec's "dtype"); undefined otherwise. */
  override get vlenArrayDtype(): JsonValue | undefined {
    return objectArrayDtype(this.v2Metadata.dtype);
  }

  /** Changes the shape; chunks wholly outside the new shape are deleted. */
  override async resize(shape: readonly number[], options?: AbortOptions): Promise<V2Array> {
    requireArray(shape, 'the new shape', this.path);
    if (shape.length !== this.shape.length) {
      throw floeError('INVALID_ARGUMENT', `resize must keep ${this.shape.length} dimensions, got [${shape.join(', ')}]`, { where: this.path });
    }
    const next = withV2Shape(this.v2Metadata, shape);
    const resized = new V2Array(this.baseStore, this.path, next, this.attributes, this.ioDefaults); // validates
    const request = requestOf(options);
    const stale = this.staleChunkKeys(shape);
    await this.changingLayout(shape, request, async () => {
      await this.baseStore.eraseValues(stale, request);
      await this.writeArrayDocument(next, request);
    });
    return resized.markCurrent();
  }

  /** Replaces the attributes (`.zattrs`); returns the updated array. */
  override async setAttributes(attributes: Attributes, options?: AbortOptions): Promise<V2Array> {
    await this.writeAttributes(attributes, requestOf(options));
    return new V2Array(this.baseStore, this.path, this.v2Metadata, attributes, this.ioDefaults);
  }

  /** A structured array's selection as one array per field. */
  getFields(selection?: Selection, options?: GetOptions): Promise<{ shape: number[]; fields: FieldArrays }> {
    return getFields(this, this.v2Metadata.dtype, selection, options);
  }

  /** Writes one array per field (C order, the selection's shape) into a structured array. */
  setFields(selection: Selection | undefined, fields: FieldArrays, options?: SetOptions): Promise<void> {
    return setFields(this, this.v2Metadata.dtype, selection, fields, options);
  }

  /** Writes `.zarray` (cancelled by the signal), then its consolidated update (run to its end). */
  private async writeArrayDocument(metadata: V2ArrayMetadata, request: AbortOptions | undefined): Promise<void> {
    if (this.baseStore.readOnly) throw floeError('READ_ONLY', `array ${this.path} is in a read-only store`, { where: this.path });
    await this.baseStore.set(keyPrefix(this.path) + ZARRAY, encodeV2ArrayMetadata(metadata, keyPrefix(this.path) + ZARRAY), request);
    await updateConsolidatedV2(this.baseStore, this.path, { name: ZARRAY, doc: v2ArrayMetadataJson(metadata) });
  }

  private async writeAttributes(attributes: Attributes, request: AbortOptions | undefined): Promise<void> {
    await this.baseStore.set(keyPrefix(this.path) + ZATTRS, encodeV2Attributes(attributes, keyPrefix(this.path) + ZATTRS), request);
    await updateConsolidatedV2(this.baseStore, this.path, { name: ZATTRS, doc: { ...attributes } });
  }
}
