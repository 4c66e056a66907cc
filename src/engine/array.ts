// A Zarr v3 array over any ZarrStore: read and write selections through the codec chain, with
// bounded concurrency. Chunk-level I/O lives in ./chunk-io.ts. Every operation takes `signal`
// in its options; one `{ signal }` request object per operation goes to all its store calls.
import { requireArray } from '../format/arguments.ts';
import { floeError } from '../errors.ts';
import { limitExceeded, resourceLimits } from '../format/limits.ts';
import { requestOf, throwIfAborted } from './abort.ts';
import { buildCodecChain, ScratchBuffer, type CodecChain } from '../format/codecs/pipeline.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import type { ArrayData, DataType, TypedArray } from '../format/zarr/data-types.ts';
import { checkFloat16Representation, toFloat16Array, type Float16Data, type Float16Representation } from '../format/zarr/float16-array.ts';
import {
  createArrayMetadata, encodeNodeMetadata, nodeMetadataToJson, parseArrayMetadata, withArrayChanges,
  type ArrayMetadata, type ArrayMetadataInput, type Attributes,
} from '../format/zarr/metadata.ts';
import { cStrides, product, type NdArray } from '../format/zarr/ndarray.ts';
import { shiftView } from '../format/zarr/projection.ts';
import { chunkKey } from '../format/zarr/chunk-keys.ts';
import { keyPrefix, metadataKey, normalizePath } from '../format/zarr/paths.ts';
import { inlineScratch, mainThreadReadBuffers, readChunkRegion, readDecodedOnWorker, writeChunkRegions, type ChunkJob, type ChunkReader, type View } from './chunk-io.ts';
import { sharedDecodePool, type DecodePool } from './decode-pool.ts';
import { DEFAULT_CONCURRENCY, mapLimit, type Limiter } from './storage/limiter.ts';
import { sharedWritePool } from './write-pool.ts';
import { updateConsolidatedV3 } from './consolidated.ts';
import { forEachProduct, normalizeSelection, projectDim, resultShape, type DimSelection, type Selection } from './selection.ts';
import { normalizeKey, type AbortOptions, type ZarrStore } from './store.ts';
import type { WriteValue } from './write-value.ts';
import { zipMap } from './indexing.ts';
import { attributeArrayDtype, type VlenArrayElement, type VlenArrayForm } from '../format/numpy/vlen-array.ts';
import type { JsonValue } from '../format/json.ts';
import { changeLayout, layoutGeneration, requireGeneration } from './array-generations.ts';
import type { CfNdArray, ReadSink } from './cf-read.ts';
import type { CfVariable } from '../format/cf/variable.ts';
import type { CfWriteValue } from './cf-write.ts';
import { HOST_SHARED_MEMORY, maxBufferLength } from '../platform/host.ts';
import { sharedResultBuffer } from './shared-results.ts';

/** How many chunks of one dimension a selection touches, without listing them. */
function chunksTouched(sel: DimSelection, chunkSize: number): number {
  if (sel.count === 0) return 0;
  if (Math.abs(sel.step) >= chunkSize) return sel.count;
  const last = sel.start + (sel.count - 1) * sel.step;
  return Math.abs(Math.floor(last / chunkSize) - Math.floor(sel.start / chunkSize)) + 1;
}

export type { WriteValue } from './write-value.ts';

/** Defaults of an array's reads and writes; each `get`/`set` may override them. */
export interface ArrayIoOptions {
  /** Chunk requests in flight at once. Default 8. */
  concurrency?: number;
  /**
   * Worker threads that decompress large chunks while the main thread keeps reading, and compress
   * the chunks of large writes while it assembles and stores the next ones. Default: the shared
   * pool (one worker per core, at most 4); `false` decodes and encodes inline.
   */
  decodePool?: DecodePool | false;
  /**
   * The writer pool `set` prepares and stores chunks through: one slot per chunk, shared by every
   * write given the same pool. Default: one process-wide pool of 16 slots;
   * pass `createLimiter(n)` for a pool of your own (e.g. more writes in flight to an object store).
   */
  writePool?: Limiter;
}

/** Options of a read ({@link ZarrArray.get}); `signal` cancels it (`ABORTED`). */
export interface GetOptions extends ArrayIoOptions, AbortOptions {
  /** Write the result into this buffer (length = elements x lanes) instead of allocating one. */
  out?: ArrayData;
  /**
   * A vlen-array array's elements ({@link ZarrArray.vlenArrayDtype}): typed arrays of the
   * element dtype in native byte order ('typed', the default), or each element's stored bytes
   * in the dtype's byte order ('bytes'). Other arrays ignore it.
   */
  vlenArray?: VlenArrayForm;
  /**
   * How a float16 array's values come out: 'Float32Array' (the default, exact, on every Node) or
   * 'Float16Array' where the runtime has one (Node 24+); asked for where it does not, the read
   * fails with UNSUPPORTED. Other data types ignore it. Not with `out`.
   */
  float16?: Float16Representation;
  /** 'none' (the default): stored values. See {@link CfGetOptions} for 'cf'. */
  decode?: 'none';
}

/**
 * A read with CF decoding (docs/cf.md): packed and missing values become floats (NaN where
 * missing), `_Unsigned` integers their unsigned type, times CfDates; the result's `cf` says how.
 */
export type CfGetOptions = Omit<GetOptions, 'decode' | 'out'> & {
  decode: 'cf';
  /**
   * A result to decode into, of the decoded type (`cfVariable()`'s `values.output`) and the
   * selection's size: a reader that reuses one skips allocating and faulting in a new result each
   * read. Over a SharedArrayBuffer, a pooled read's workers write into it. Refused for variables
   * whose values do not decode to floats, and for time variables.
   */
  out?: Float32Array | Float64Array;
  /** The variable whose `bounds` this array is: its `units` and `calendar` apply here when this array has none (CF 7.1). */
  boundsOf?: ZarrArray;
};

/** The longest buffer Node allocates: the limit reported when a result cannot be allocated. */
const BUFFER_MAX_LENGTH = maxBufferLength();

/**
 * Options of a write ({@link ZarrArray.set}); `signal` cancels it (`ABORTED`). A write aborted
 * while it checks partial chunks changes nothing; aborted while it writes, it leaves the chunks
 * written so far, like a storage failure there (a session's commit is what makes writes atomic).
 */
export interface SetOptions extends ArrayIoOptions, AbortOptions {
  /** A vlen-array array's elements as typed arrays ('typed', the default) or as stored bytes ('bytes'). */
  vlenArray?: VlenArrayForm;
  /** 'none' (the default): `value` holds stored values. See {@link CfSetOptions} for 'cf'. */
  encode?: 'none';
}

/** A write with CF encoding (docs/cf.md): physical values and dates become the stored numbers; a value that does not fit is refused, naming its index. */
export type CfSetOptions = Omit<SetOptions, 'encode'> & { encode: 'cf' };

/** Options of opening or creating an array: its I/O defaults, and `signal` for this call only. */
export type OpenArrayOptions = ArrayIoOptions & AbortOptions;

/** Encoded partial chunks a write holds between checking them and writing them (see chunk-io). */
const WRITE_HOLD_BYTES = 128 * 1024 * 1024;
/** Keys per erase request when an overwrite clears what the old node left (S3 DeleteObjects takes 1,000). */
const ERASE_BATCH = 1000;

/**
 * A Zarr v3 array in a {@link ZarrStore}: reads and writes selections chunk by chunk through its codec chain.
 * Metadata changes (`resize`, `setAttributes`) return a new ZarrArray; instances are otherwise immutable views.
 */
export class ZarrArray {
  readonly path: string;
  readonly chain: CodecChain;
  private readonly prefix: string;
  /** The array's layout generation when this handle was made (array-generations.ts). */
  private generation: number;

  constructor(
    readonly store: ZarrStore,
    path: string,
    readonly metadata: ArrayMetadata,
    private readonly defaults: ArrayIoOptions = {},
  ) {
    this.path = normalizePath(path);
    this.prefix = keyPrefix(this.path);
    const spec = { shape: metadata.chunkShape, dataType: metadata.dataType, fillValue: metadata.fillValue };
    this.chain = buildCodecChain(metadata.codecs, spec, `${metadataKey(this.path)}: codecs`);
    this.generation = layoutGeneration(store, this.path);
  }

  /** Opens the array at `path`: `NOT_FOUND` when nothing is there, `NODE_TYPE_MISMATCH` for a group. */
  static async open(store: ZarrStore, path = '/', options?: OpenArrayOptions): Promise<ZarrArray> {
    const key = metadataKey(path);
    const bytes = await store.get(key, requestOf(options));
    if (!bytes) throw floeError('NOT_FOUND', `no array at ${normalizePath(path)}`, { where: key });
    await loadCodecsMentionedIn(bytes);
    return new ZarrArray(store, path, parseArrayMetadata(bytes, key), options);
  }

  /**
   * Writes a new array's metadata (validated, codecs included) at `path`. Throws `ALREADY_EXISTS` when
   * a node exists there, unless `overwrite`, which replaces that node and everything below it:
   * the new zarr.json first (one put, so readers see the old node until then, and a failure
   * before it leaves the old node whole), then the old node's chunks and children. In a
   * repository session the old node goes first: nothing is visible before the atomic commit.
   */
  static async create(store: ZarrStore, path: string, input: ArrayMetadataInput & { overwrite?: boolean }, options?: OpenArrayOptions): Promise<ZarrArray> {
    const key = metadataKey(path);
    await loadCodecsMentionedIn(input.codecs);
    const metadata = createArrayMetadata(input, key);
    const array = new ZarrArray(store, path, metadata, options); // validates the codec chain before writing
    const request = requestOf(options);
    if (!input.overwrite && (await store.get(key, request))) {
      throw floeError('ALREADY_EXISTS', `a node already exists at ${array.path}; pass overwrite: true to replace it`, { where: key });
    }
    if (input.overwrite) changeLayout(store, array.path, metadata.shape); // older handles on the old array are stale
    if (input.overwrite && !store.transactional) {
      await writeArrayMetadata(store, array.path, metadata, request, true);
      await eraseAllBut(store, array.prefix, [key]); // completes the replacement: no signal
      return array.markCurrent();
    }
    if (input.overwrite) {
      await store.erasePrefix(array.prefix, request);
      await updateConsolidatedV3(store, path, undefined); // completes the erase: no signal
    }
    await writeArrayMetadata(store, array.path, metadata, request);
    return array.markCurrent();
  }

  /** The same array over another store (the query executor's store of planned fetches). */
  overStore(store: ZarrStore, options: ArrayIoOptions = {}): ZarrArray {
    return new ZarrArray(store, this.path, this.metadata, options);
  }

  get shape(): readonly number[] {
    return this.metadata.shape;
  }
  get chunkShape(): readonly number[] {
    return this.metadata.chunkShape;
  }
  get dataType(): DataType {
    return this.metadata.dataType;
  }
  get dtype(): string {
    return this.metadata.dataType.name;
  }
  get attributes(): Attributes {
    return this.metadata.attributes;
  }
  get dimensionNames(): readonly (string | null)[] | undefined {
    return this.metadata.dimensionNames;
  }

  /**
   * For a `binary` array of numcodecs' vlen-array (a Zarr v2 object array, or one converted to
   * v3, which records it in the attribute `floe.vlen_array_dtype`): the element dtype as written
   * ("<i4"). Undefined for every other array.
   */
  get vlenArrayDtype(): JsonValue | undefined {
    return attributeArrayDtype(this.dataType, this.attributes);
  }

  /** A vlen-array array's element type (whose typed arrays `get` returns and `set` takes); else undefined. */
  async vlenArrayElement(): Promise<VlenArrayElement | undefined> {
    const dtype = this.vlenArrayDtype;
    return dtype === undefined ? undefined : (await import('./vlen-array-values.ts')).elementType(dtype, this.path);
  }

  /** The store key of the chunk holding the element at array coordinates `coords`. */
  private elementChunkKey(coords: readonly number[]): string {
    return this.chunkKey(zipMap(coords, this.chunkShape, (c, size) => Math.floor(c / size)));
  }

  /** The store key of the chunk (or shard) at grid coordinates `coords`. */
  chunkKey(coords: readonly number[]): string {
    return this.prefix + chunkKey(this.metadata.chunkKeyEncoding, coords);
  }

  /** Reads a selection; the result is C-ordered with integer-indexed dimensions dropped. */
  get(selection: Selection | undefined, options: CfGetOptions): Promise<CfNdArray>;
  get(selection: Selection | undefined, options: GetOptions & { float16: 'Float16Array' }): Promise<NdArray<ArrayData | Float16Data>>;
  get(selection?: Selection, options?: GetOptions): Promise<NdArray>;
  async get(selection?: Selection, options: GetOptions | CfGetOptions = {}): Promise<NdArray<ArrayData | Float16Data> | CfNdArray> {
    if (options.decode === 'cf') {
      const { readCf } = await import('./cf-read.ts');
      const { attributes, dataType, path } = this;
      const parent = options.boundsOf?.attributes;
      const inherit = parent ? { units: parent.units, calendar: parent.calendar } : undefined;
      return readCf({ path, attributes, dataType, zarrFill: this.cfZarrFill(), out: options.out, inherit, read: (sink) => this.read(selection, options, sink) });
    }
    if (options.decode !== undefined && options.decode !== 'none') throw floeError('INVALID_ARGUMENT', `decode must be 'cf' or 'none', not ${JSON.stringify(options.decode)}`, { where: this.path });
    checkFloat16Representation(options.float16, this.path);
    const asHalf = options.float16 === 'Float16Array' && this.dataType.name === 'float16';
    if (asHalf && options.out) throw floeError('INVALID_ARGUMENT', "float16: 'Float16Array' does not combine with `out`: pass a Float32Array as out, or drop the float16 option", { where: this.path });
    const read = await this.read(selection, options);
    return asHalf ? { ...read, data: toFloat16Array(read.data as Float32Array) } : read;
  }

  /**
   * How `get(..., { decode: 'cf' })` decodes this array (docs/cf.md), worked out from its
   * attributes without reading data: the value coding (and so the decoded type), time units and
   * calendar, flags and structured metadata, and the warnings of what stays undecoded.
   */
  async cfVariable(options: { boundsOf?: ZarrArray } = {}): Promise<CfVariable> {
    const { describeCf } = await import('./cf-read.ts');
    const parent = options.boundsOf?.attributes;
    const inherit = parent ? { units: parent.units, calendar: parent.calendar } : undefined;
    return describeCf({ path: this.path, attributes: this.attributes, dataType: this.dataType, zarrFill: this.cfZarrFill(), inherit });
  }

  /** The Zarr v2 fill value CF decoding may take as `_FillValue` (docs/cf.md); a v3 array's never is. */
  protected cfZarrFill(): unknown {
    return undefined;
  }

  private async read(selection: Selection | undefined, options: Omit<GetOptions, 'decode'>, sink?: ReadSink): Promise<NdArray> {
    const dims = normalizeSelection(selection, this.shape, this.path);
    const full = dims.map((d) => d.count);
    const n = product(full);
    const lanes = this.dataType.lanes;
    const resultBytes = n * lanes * this.dataType.laneBytes;
    // Workers pay off when a read spans several chunks; a small read decodes in this thread into
    // a regular buffer (a fresh SharedArrayBuffer costs 2-5x more to allocate and fault in).
    const pool = this.decodePool(options);
    const plan = pool?.planFor(resultBytes) ?? 'inline';
    const pooled = plan === 'pool' ? pool : undefined;
    const data = options.out ?? sink?.allocate(n, pooled !== undefined) ?? allocateOutput(this.dataType, n, pooled !== undefined, this.path);
    if (data.length !== n * lanes) {
      throw floeError('INVALID_ARGUMENT', `out buffer holds ${data.length} numbers, the selection needs ${n * lanes}`, { where: this.path });
    }
    const out: View = { data, offset: 0, stride: cStrides(full) };
    const request = requestOf(options);
    const decoded = this.store.decodedChunks;
    const io: ChunkReader = {
      store: this.store,
      pool: pooled,
      scratch: inlineScratch(this.chunkBytes),
      buffers: mainThreadReadBuffers(),
      request,
      decoded,
      // A small read keeps the chunks it decodes in part: the next window over them copies.
      admit: decoded !== undefined && resultBytes <= decoded.cache.maxEntryBytes,
    };
    await mapLimit(this.jobs(dims), this.concurrency(options), (job) => {
      const read = (dst: View) => readChunkRegion(io, this.chunkKey(job.coords), this.chain, job, dst);
      if (!sink) return read(shift(out, job));
      const dst = shift(out, job);
      return sink.job(job.projections.map((p) => p.count), dst, read, pooled && ((cf) => readDecodedOnWorker(io, this.chunkKey(job.coords), this.chain, job, dst, cf)));
    });
    if (plan === 'inline-then-start') pool?.start(); // warm for the next big read
    const element = this.vlenArrayDtype;
    if (element !== undefined && options.vlenArray !== 'bytes') {
      const { typedElements } = await import('./vlen-array-values.ts');
      typedElements(data, element, dims, (coords) => this.elementChunkKey(coords), this.path);
    }
    const shape = resultShape(dims);
    return { data, shape, stride: cStrides(shape) };
  }

  /** Decoded bytes of one chunk (variable-length types count one byte an element). */
  private get chunkBytes(): number {
    return product(this.chunkShape) * Math.max(1, this.dataType.lanes * this.dataType.laneBytes);
  }

  /**
   * Writes `value` into a selection; touched chunks that end up all fill value are erased. The value
   * and every partly covered chunk are checked before the first chunk is written, so bad input or a
   * damaged chunk changes nothing (a storage failure midway can; see writeChunkRegions). The value
   * is read until the returned promise settles (whole uncompressed chunks are written from its
   * memory): do not change it before then.
   */
  set(selection: Selection | undefined, value: CfWriteValue, options: CfSetOptions): Promise<void>;
  set(selection: Selection | undefined, value: WriteValue, options?: SetOptions): Promise<void>;
  async set(selection: Selection | undefined, input: WriteValue | CfWriteValue, options: SetOptions | CfSetOptions = {}): Promise<void> {
    if (this.store.readOnly) throw floeError('READ_ONLY', `array ${this.path} is in a read-only store`, { where: this.path });
    const value = options.encode === 'cf'
      ? (await import('./cf-write.ts')).encodeForWrite({ path: this.path, attributes: this.attributes, dataType: this.dataType, zarrFill: this.cfZarrFill() }, input as CfWriteValue)
      : input as WriteValue;
    this.requireCurrent();
    const dims = normalizeSelection(selection, this.shape, this.path);
    const element = this.vlenArrayDtype;
    const stored = element === undefined ? value : (await import('./vlen-array-values.ts')).storedElements(value, element, options.vlenArray ?? 'typed', this.path);
    // The value's checks load with the first write: a reader never needs them.
    const source = (await import('./write-value.ts')).writeSource(this, dims, stored);
    const writes = this.jobs(dims).map((job) => ({
      key: this.chunkKey(job.coords), job, src: shift(source, job), extent: this.edgeExtent(job.coords),
    }));
    const request = requestOf(options);
    const pool = options.writePool ?? this.defaults.writePool ?? sharedWritePool();
    const encodePool = this.encodePool(options, writes.length * this.chunkBytes);
    await writeChunkRegions(this.store, this.chain, writes, { concurrency: this.concurrency(options), pool, holdBytes: WRITE_HOLD_BYTES, request, encodePool });
  }

  /**
   * The workers a write of `encodeBytes` (its chunks, decoded) encodes on: only for chains that
   * compress (anything else encodes at about memcpy speed, cheaper than a round trip), and only
   * when the pool's plan says the write repays them (small writes never start workers).
   */
  private encodePool(options: ArrayIoOptions, encodeBytes: number): DecodePool | undefined {
    const pool = this.decodePool(options);
    if (!pool || !compresses(this.chain)) return undefined;
    const plan = pool.planForWrite(encodeBytes);
    if (plan === 'start') pool.start();
    return plan === 'inline' ? undefined : pool;
  }

  /** Changes the shape; chunks wholly outside the new shape are deleted (core spec, "resize"). */
  async resize(shape: readonly number[], options?: AbortOptions): Promise<ZarrArray> {
    requireArray(shape, 'the new shape', this.path);
    if (shape.length !== this.shape.length) {
      throw floeError('INVALID_ARGUMENT', `resize must keep ${this.shape.length} dimensions, got [${shape.join(', ')}]`, { where: this.path });
    }
    const next = withArrayChanges(this.metadata, { shape });
    const request = requestOf(options);
    const stale = this.staleChunkKeys(shape);
    await this.changingLayout(shape, request, async () => {
      await this.store.eraseValues(stale, request);
      await writeArrayMetadata(this.store, this.path, next, request);
    });
    return new ZarrArray(this.store, this.path, next, this.defaults);
  }

  /**
   * Keys of the chunks wholly outside `shape`: what resizing to it deletes. Counted from the
   * grid first (arithmetic, no allocation), so shrinking a huge grid is refused with
   * LIMIT_EXCEEDED instead of enumerating every chunk; only the stale chunks are visited.
   */
  protected staleChunkKeys(shape: readonly number[]): string[] {
    // A chunk is stale when it starts at or past the new extent in some dimension: c * size >= n,
    // i.e. c >= ceil(n / size), the new grid's chunk count.
    const oldChunks = zipMap(this.shape, this.chunkShape, (n, size) => Math.ceil(n / size));
    const keptChunks = zipMap(shape, this.chunkShape, (n, size) => Math.ceil(n / size));
    // Disjoint boxes: box d holds the chunks stale in dimension d and kept in every earlier one.
    const boxes = oldChunks.map((_, d) => oldChunks.map((count, j) => {
      const kept = Math.min(keptChunks[j] ?? 0, count);
      return j < d ? { from: 0, to: kept } : j === d ? { from: kept, to: count } : { from: 0, to: count };
    }));
    const total = boxes.reduce((sum, box) => sum + box.reduce((n, { from, to }) => n * Math.max(0, to - from), 1), 0);
    const { chunksPerCall } = resourceLimits();
    if (total > chunksPerCall) {
      throw limitExceeded('chunks', chunksPerCall,
        `resizing to [${shape.join(', ')}] would delete ${total} grid chunks, past the ${chunksPerCall} one resize erases (limit chunksPerCall); ` +
          'shrink in steps that each drop fewer chunks, raise it with configureLimits, or copy the part you need into a new array', { actual: total, where: this.path });
    }
    const stale: string[] = [];
    for (const box of boxes) {
      if (box.some(({ from, to }) => to <= from)) continue;
      forEachProduct(box.map(({ from, to }) => Array.from({ length: to - from }, (_, i) => from + i)), (coords) => stale.push(this.chunkKey(coords)));
    }
    return stale;
  }


  /** Replaces the attributes; returns the updated array. */
  async setAttributes(attributes: Attributes, options?: AbortOptions): Promise<ZarrArray> {
    const next = withArrayChanges(this.metadata, { attributes });
    this.requireCurrent(); // a stale handle would write its old shape back
    await writeArrayMetadata(this.store, this.path, next, requestOf(options));
    return new ZarrArray(this.store, this.path, next, this.defaults);
  }

  /** STALE_HANDLE when another handle on this store resized or replaced the array since this one was made. */
  protected requireCurrent(): void {
    requireGeneration(this.store, this.path, this.generation, this.shape);
  }

  /**
   * Runs a change of the array's layout to `shape`: every handle made before it (this one too) is
   * stale from its start, before any await, so no write through one slips in between its steps. An
   * already-aborted change touches nothing; one that fails midway records this shape back.
   */
  protected async changingLayout(shape: readonly number[], request: AbortOptions | undefined, change: () => Promise<void>): Promise<void> {
    throwIfAborted(request?.signal, this.path);
    this.requireCurrent();
    changeLayout(this.store, this.path, shape);
    try {
      await change();
    } catch (err) {
      changeLayout(this.store, this.path, this.shape);
      throw err;
    }
  }

  /** Makes this (new) handle current after the layout change that made it (create with overwrite, a v2 resize). */
  protected markCurrent(): this {
    this.generation = layoutGeneration(this.store, this.path);
    return this;
  }

  private decodePool(options: ArrayIoOptions): DecodePool | undefined {
    const choice = options.decodePool ?? this.defaults.decodePool;
    if (choice === false || this.chain.spec.dataType.kind === 'string') return undefined;
    return choice ?? sharedDecodePool();
  }

  private concurrency(options: ArrayIoOptions): number {
    return options.concurrency ?? this.defaults.concurrency ?? this.store.readConcurrency ?? DEFAULT_CONCURRENCY;
  }

  private jobs(dims: readonly DimSelection[]): ChunkJob[] {
    // Counted before projecting: a selection over a huge grid is refused, not enumerated.
    const touched = zipMap(dims, this.chunkShape, chunksTouched).reduce((a, b) => a * b, 1);
    const { chunksPerCall } = resourceLimits();
    if (touched > chunksPerCall) {
      throw limitExceeded('chunks', chunksPerCall,
        `the selection touches ${touched} chunks, past the ${chunksPerCall} one get or set handles (limit chunksPerCall); select less per call or raise it with configureLimits`, { actual: touched, where: this.path });
    }
    const jobs: ChunkJob[] = [];
    forEachProduct(zipMap(dims, this.chunkShape, projectDim), (ps) => {
      jobs.push({ coords: ps.map((p) => p.chunk), projections: ps });
    });
    return jobs;
  }

  /** In-bounds extent of a chunk: edge chunks are cut by the array's shape. */
  private edgeExtent(coords: readonly number[]): number[] {
    const extents = zipMap(this.shape, this.chunkShape, (n, size) => ({ n, size }));
    return zipMap(coords, extents, (c, { n, size }) => Math.min(size, n - c * size));
  }
}

/**
/**
 * Writes zarr.json (cancelled by `request`'s signal), and then, once it is written, the change
 * into any consolidated metadata above the array (whatever the signal does: see consolidated.ts).
 */
async function writeArrayMetadata(store: ZarrStore, path: string, metadata: ArrayMetadata, request: AbortOptions | undefined, replacesSubtree = false): Promise<void> {
  await store.set(metadataKey(path), encodeNodeMetadata(metadata, metadataKey(path)), request);
  await updateConsolidatedV3(store, path, nodeMetadataToJson(metadata), replacesSubtree);
}

/** Erases every key under `prefix` except `keep`: what an overwritten node left (chunks, children, v2 documents). */
/** Erases every key under `prefix` but `keep`: the second half of an overwrite whose new metadata is in place. */
export async function eraseAllBut(store: ZarrStore, prefix: string, keep: readonly string[]): Promise<void> {
  const kept = new Set(keep.map(normalizeKey));
  const batch: string[] = [];
  for await (const key of store.listPrefix(prefix)) {
    if (kept.has(normalizeKey(key))) continue;
    batch.push(key);
    if (batch.length === ERASE_BATCH) await store.eraseValues(batch.splice(0));
  }
  if (batch.length > 0) await store.eraseValues(batch);
}

/**
 * Results are allocated in shared memory when workers decode, so they can write in place. A
 * result the process cannot allocate is LIMIT_EXCEEDED ('allocation'), not a RangeError.
 */
function allocateOutput(dataType: DataType, n: number, shared: boolean, where: string): ArrayData {
  try {
    const sample = dataType.allocate(0);
    if (!shared || !HOST_SHARED_MEMORY || Array.isArray(sample)) return dataType.allocate(n);
    const Ctor = sample.constructor as new (buffer: ArrayBufferLike) => TypedArray;
    return new Ctor(sharedResultBuffer(n * dataType.lanes * dataType.laneBytes));
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const bytes = n * Math.max(1, dataType.lanes * dataType.laneBytes);
    throw limitExceeded('allocation', BUFFER_MAX_LENGTH, `a result of ${n} elements (${bytes} bytes) cannot be allocated (${err.message}); select less, or read it in parts`, { actual: bytes, where });
  }
}

/** Whether encoding runs a compressor (or checksum), the chain's own or a shard's inner chunks'. */
function compresses(chain: CodecChain): boolean {
  return chain.bytesCodecs.length > 0 || (chain.sharding !== undefined && compresses(chain.sharding.innerChain));
}

function shift(view: View, job: ChunkJob): View {
  return shiftView(view, job.projections);
}
