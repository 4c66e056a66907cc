// Reading and writing one chunk's part of a selection. A sharded chunk (a shard) is read by
// fetching its index and only the byte ranges of the inner chunks the selection touches.
// Cancellation: each chunk (and inner chunk) checks the operation's signal before it starts, and
// its store calls carry the operation's one request object; chunks already handed to a decode
// worker finish, no new one starts, so an aborted read never leaves the pool busy.
import { floeError, isFloeError } from '../errors.ts';
import { throwIfAborted, yieldDue, yieldToEventLoop } from './abort.ts';
import { copyBytes } from '../format/bytes.ts';
import type { ArrayData, TypedArray } from '../format/zarr/data-types.ts';
import type { CodecChain, ScratchBuffer } from '../format/codecs/pipeline.ts';
import { copyFromChunk, fillRegion, shiftView } from '../format/zarr/projection.ts';
import type { ShardingCodec } from '../format/codecs/sharding.ts';
import { checkChunkBytes } from '../format/zarr/chunk-size.ts';
import { allEqual, cStrides, copyStrided, fillElements, product, type NdArray, type StridedView } from '../format/zarr/ndarray.ts';
import { mapLimit, type Limiter } from './storage/limiter.ts';
import { chunkRuns, copyRuns, encodeOwnedChunk, memoryBytes, memoryRuns, runsAllFill } from './raw-chunk.ts';
import { MIN_OFFLOAD_BYTES, type DecodePool } from './decode-pool.ts';
import type { CfValueCoding } from '../format/cf/values.ts';
import { checkedAt, dot, zipEvery, zipMap } from './indexing.ts';
import { forEachProduct, projectDim, type ChunkProjection } from './selection.ts';
import { readCachedChunk } from './cached-chunks.ts';
import { checkMissing, fetchChunk, localSpan, namingChunkAsync, NOT_LOCAL, readLocalChunk, withinSpan, withKey, type ByteSpan, type ChunkReader } from './chunk-fetch.ts';
import { readFileIntoViewsAsync, spanFile } from './local-file.ts';
import { plainRuns } from './plain-runs.ts';
import type { AbortOptions, ZarrStore } from './store.ts';
import { concatBytes, isSharedMemory, swapBytesInPlace } from '../platform/host.ts';
import { sharedResultBuffer } from './shared-results.ts';

export { inlineScratch, mainThreadReadBuffers, ReadBuffers, type ChunkReader } from './chunk-fetch.ts';

export type View = StridedView;

export interface ChunkJob {
  readonly coords: readonly number[];
  readonly projections: readonly ChunkProjection[];
}

/** Inner-chunk reads in flight per shard. */
const SHARD_CONCURRENCY = 8;

export async function readChunkRegion(io: ChunkReader, key: string, chain: CodecChain, job: ChunkJob, dst: View): Promise<void> {
  const signal = io.request?.signal;
  if (yieldDue(signal)) await yieldToEventLoop(); // so the abort can fire at all (abort.ts)
  throwIfAborted(signal, key);
  const counts = job.projections.map((p) => p.count);
  if (chain.sharding && !coversAllInner(chain.sharding, job.projections)) {
    await readShardRegion(io, key, chain.sharding, job.projections, dst);
    return;
  }
  const size = plainSize(chain);
  if (size !== undefined && (await readPlainSpan(io, key, chain, job.projections, dst))) return;
  if (!chain.sharding && (await readCachedChunk(io, key, undefined, chain, job.projections, dst))) return;
  if (await readFileOnWorker(io, key, chain, job.projections, dst)) return;
  if (await readFileInline(io, key, chain, job.projections, dst)) return;
  if (size !== undefined && io.store.getInto) {
    // Uncompressed: read into a reused buffer and copy out; no allocation per chunk.
    const buffer = io.buffers.take(size);
    try {
      const n = await io.store.getInto(key, buffer, io.request);
      if (n === undefined) return fillRegion(dst, counts, chain.spec.fillValue.memory, chain.spec.dataType.lanes);
      if (n <= size) return withKey(key, () => chain.decodeRegion(buffer.subarray(0, n), job.projections, dst));
    } finally {
      io.buffers.give(buffer);
    }
  }
  const fetched = await fetchChunk(io, key, chain.encodedSizeBound(), io.request);
  if (!fetched) return fillRegion(dst, counts, chain.spec.fillValue.memory, chain.spec.dataType.lanes);
  try {
    await decodeAndCopy(io, chain, fetched.bytes, key, job.projections, dst);
  } finally {
    fetched.release();
  }
}

/**
 * In this thread, for stores over local files: an uncompressed chunk stored as the result holds
 * it is read straight into the result (readv); any other is read synchronously into the thread's
 * file buffer and decoded into `dst`. One buffer at most, however many reads are in flight.
 */
async function readFileInline(io: ChunkReader, key: string, chain: CodecChain, ps: readonly ChunkProjection[], dst: View): Promise<boolean> {
  const span = await localSpan(io, key, io.request);
  if (span === NOT_LOCAL) return false;
  const fill = () => fillRegion(dst, ps.map((p) => p.count), chain.spec.fillValue.memory, chain.spec.dataType.lanes);
  const runs = span === null ? undefined : plainRuns(chain, ps, dst);
  const direct = span && runs ? await namingChunkAsync(key, span, () => readFileIntoViewsAsync(span, runs.chunkBytes, runs.fileOffset, runs.views)) : 'fallback';
  if (direct === 'done') return true;
  const bytes = span === null || direct === 'missing' ? undefined : readLocalChunk(key, span, chain);
  if (bytes) withKey(key, () => chain.decodeRegion(bytes, ps, dst, io.scratch));
  else (checkMissing(key, span), fill());
  return true;
}

/**
 * Decodes a chunk and copies its selected part into `dst`. Big compressed chunks go to the worker
 * pool; with a shared-memory destination the worker copies too, so nothing comes back.
 */
async function decodeAndCopy(io: ChunkReader, chain: CodecChain, bytes: Uint8Array, key: string, ps: readonly ChunkProjection[], dst: View): Promise<void> {
  const trivial = chain.bytesCodecs.length === 0 && chain.arrayToBytes.name === 'bytes';
  const pool = readyPool(io);
  if (!pool || trivial || bytes.length < MIN_OFFLOAD_BYTES) {
    // A codec decoding on the runtime's native streams (gzip, zlib in a browser) is awaited here.
    const step = chain.asyncBytes;
    const decoded = step ? await step.decode(bytes).catch((err: unknown) => withKey(key, () => { throw err; })) : bytes;
    withKey(key, () => (step ? step.rest : chain).decodeRegion(decoded, ps, dst, io.scratch));
    return;
  }
  try {
    if (isShared(dst.data)) await pool.decodeInto(chain, bytes, { view: dst, projections: ps });
    else copyFromChunk(await pool.decode(chain, bytes), ps, dst, chain.spec.dataType.lanes);
  } catch (err) {
    throw onWorker(key, err);
  }
}

/**
 * For an uncompressed chunk stored in memory order, fetches only the byte span between the first
 * and last selected element when that is well under the whole chunk (a small window of a big
 * chunk). Returns false when this path does not apply.
 */
async function readPlainSpan(io: ChunkReader, key: string, chain: CodecChain, ps: readonly ChunkProjection[], dst: View): Promise<boolean> {
  const { dataType, shape } = chain.spec;
  const bigEndian = chain.arrayToBytes.toJSON().configuration?.endian === 'big';
  const swapWidth = dataType.laneBytes;
  if ((bigEndian && swapWidth !== 1 && swapWidth !== 2 && swapWidth !== 4 && swapWidth !== 8) || dataType.name === 'float16' || dataType.kind === 'string') return false;
  const stride = cStrides(shape);
  let first = 0;
  let last = 0;
  zipEvery(ps, stride, (p, s) => {
    const end = p.start + (p.count - 1) * p.step;
    first += Math.min(p.start, end) * s;
    last += Math.max(p.start, end) * s;
    return true;
  });
  const item = dataType.itemSize;
  const length = (last - first + 1) * item;
  if (length * 2 > product(shape) * item) return false;
  const bytes = await io.store.getRange(key, { offset: first * item, length }, io.request);
  if (!bytes) {
    fillRegion(dst, ps.map((p) => p.count), chain.spec.fillValue.memory, dataType.lanes);
    return true;
  }
  if (bytes.length !== length) return false; // a short chunk: let the whole-chunk path report it
  // Big-endian (NetCDF-3, virtual chunks): swapped in a copy, never in the store's bytes.
  const aligned = bytes.byteOffset % dataType.laneBytes === 0 && !(bigEndian && swapWidth > 1) ? bytes : copyBytes(bytes);
  if (bigEndian && swapWidth > 1) swapBytesInPlace(aligned, swapWidth as 2 | 4 | 8);
  const Ctor = dataType.allocate(0).constructor as new (b: ArrayBufferLike, o: number, n: number) => TypedArray;
  const data = new Ctor(aligned.buffer, aligned.byteOffset, length / dataType.laneBytes);
  const src: View = {
    data,
    offset: dot(ps.map((p) => p.start), stride) - first,
    stride: zipMap(ps, stride, (p, s) => s * p.step),
  };
  copyStrided(src, dst, ps.map((p) => p.count), dataType.lanes);
  return true;
}

/**
 * For stores over local files and a shared-memory result: a worker reads the file, decodes it and
 * copies into the result, so both cores read, decode and take the result's page faults.
 */
async function readFileOnWorker(io: ChunkReader, key: string, chain: CodecChain, ps: readonly ChunkProjection[], dst: View): Promise<boolean> {
  const { shape, dataType } = chain.spec;
  const pool = readyPool(io);
  if (!pool || !isShared(dst.data) || product(shape) * dataType.itemSize < MIN_OFFLOAD_BYTES) return false;
  const span = await io.store.localFile?.(key, io.request);
  if (span === undefined) return false;
  let found = false;
  try {
    if (span !== null) found = await pool.decodeFileInto(chain, span, { view: dst, projections: ps });
  } catch (err) {
    throw onWorker(key, err);
  }
  if (!found && span?.required) throw floeError('NOT_FOUND', `the object holding this chunk is missing: ${spanFile(span)}`, { where: key });
  if (!found) fillRegion(dst, ps.map((p) => p.count), chain.spec.fillValue.memory, dataType.lanes);
  return true;
}

/**
 * One chunk of a pooled `decode: 'cf'` read (cf-read.ts) on a worker, which decodes the chunk and
 * its values (`cf`) into `dst` (shared memory): the local file read there, or the fetched bytes
 * sent. False when no worker can take it (none ready, a small chunk, part of a shard, a missing
 * chunk): the caller decodes it in this thread.
 */
export async function readDecodedOnWorker(io: ChunkReader, key: string, chain: CodecChain, job: ChunkJob, dst: View, cf: CfValueCoding): Promise<boolean> {
  const { shape, dataType } = chain.spec;
  const pool = readyPool(io);
  if (!pool || !isShared(dst.data) || product(shape) * dataType.itemSize < MIN_OFFLOAD_BYTES) return false;
  if (chain.sharding && !coversAllInner(chain.sharding, job.projections)) return false;
  const target = { view: dst, projections: job.projections, cf };
  const span = await io.store.localFile?.(key, io.request);
  if (span === null) return false;
  const fetched = span === undefined ? await fetchChunk(io, key, chain.encodedSizeBound(), io.request) : undefined;
  try {
    if (span) return await pool.decodeFileInto(chain, span, target);
    if (!fetched) return false;
    await pool.decodeInto(chain, fetched.bytes, target);
    return true;
  } catch (err) {
    throw onWorker(key, err);
  } finally {
    fetched?.release();
  }
}

/** A worker's error, naming the chunk. */
function onWorker(key: string, err: unknown): unknown {
  return isFloeError(err) ? floeError(err.code, err.message, { where: key, cause: err, details: err.details }) : err;
}

/** The exact stored size of a chunk when the chain is a plain `bytes` codec, else undefined. */
function plainSize(chain: CodecChain): number | undefined {
  // Array->array codecs (transpose, delta) change where an element's bytes sit: no span reads then.
  return chain.arrayCodecs.length === 0 && chain.bytesCodecs.length === 0 && chain.arrayToBytes.name === 'bytes' ? chain.encodedSize() : undefined;
}

/** The pool when one of its workers can take a chunk now; chunks decode inline until then. */
function readyPool(io: ChunkReader): DecodePool | undefined {
  return io.pool?.ready ? io.pool : undefined;
}

function isShared(data: View['data']): boolean {
  return !Array.isArray(data) && isSharedMemory(data.buffer);
}

/** Whether a selection needs every inner chunk of a shard: then one whole-object GET is cheaper. */
function coversAllInner(codec: ShardingCodec, ps: readonly ChunkProjection[]): boolean {
  const grid = zipMap(codec.innerChunkShape, codec.chunksPerShard, (inner, perShard) => ({ inner, perShard }));
  return zipEvery(ps, grid, (p, { inner, perShard }) => {
    const lo = Math.min(p.start, p.start + (p.count - 1) * p.step);
    const hi = Math.max(p.start, p.start + (p.count - 1) * p.step);
    return Math.floor(lo / inner) === 0 && Math.floor(hi / inner) === perShard - 1 && Math.abs(p.step) <= inner;
  });
}

async function readShardRegion(io: ChunkReader, key: string, codec: ShardingCodec, ps: readonly ChunkProjection[], dst: View): Promise<void> {
  const { store, request } = io;
  const indexRange = codec.indexLocation === 'end' ? { suffixLength: codec.indexByteLength } : { offset: 0, length: codec.indexByteLength };
  const indexBytes = await store.getRange(key, indexRange, request);
  const { fillValue, dataType } = codec.innerChain.spec;
  if (!indexBytes) return fillRegion(dst, ps.map((p) => p.count), fillValue.memory, dataType.lanes);
  const index = withKey(key, () => codec.decodeIndex(indexBytes));
  // Project the shard-local selection onto the inner chunk grid.
  const inner = zipMap(ps, codec.innerChunkShape, (p, size) => projectDim({ start: p.start, step: p.step, count: p.count, drop: false }, size));
  const jobs: ChunkProjection[][] = [];
  forEachProduct(inner, (q) => jobs.push(q));
  await mapLimit(jobs, store.readConcurrency ?? SHARD_CONCURRENCY, async (q) => {
    throwIfAborted(request?.signal, key);
    const view = shiftView(dst, q);
    const i = codec.innerIndex(q.map((p) => p.chunk));
    const offset = checkedAt(index.offsets, i, 'CORRUPT_OBJECT', 'inner chunk outside the shard index', key);
    const length = checkedAt(index.lengths, i, 'CORRUPT_OBJECT', 'inner chunk outside the shard index', key);
    if (offset < 0) return fillRegion(view, q.map((p) => p.count), fillValue.memory, dataType.lanes);
    if (await readCachedChunk(io, key, { offset, length }, codec.innerChain, q, view)) return;
    if (await readInnerInline(io, key, { offset, length }, codec.innerChain, q, view)) return;
    const bytes = await store.getRange(key, { offset, length }, request);
    if (!bytes || bytes.length !== length) {
      throw floeError('CORRUPT_OBJECT', `shard index entry ${i} points past the end of the shard`, { where: key });
    }
    await decodeAndCopy(io, codec.innerChain, bytes, key, q, view);
  });
}

/**
 * An inner chunk of a shard in a local file, while no worker takes chunks: read into this
 * thread's file buffer and decoded at once (no fresh buffer per inner chunk).
 */
async function readInnerInline(io: ChunkReader, key: string, range: ByteSpan, chain: CodecChain, ps: readonly ChunkProjection[], dst: View): Promise<boolean> {
  if (readyPool(io)) return false; // big inner chunks may go to a worker: they need bytes of their own
  const span = await localSpan(io, key, io.request);
  if (span === NOT_LOCAL || span === null) return false;
  const bytes = readLocalChunk(key, withinSpan(span, range), chain);
  if (!bytes) return false; // the shard vanished since its index was read: the ordinary path reports it
  withKey(key, () => chain.decodeRegion(bytes, ps, dst, io.scratch));
  return true;
}

/** One chunk's part of a write: where it goes, which part of the chunk, and the source values. */
export interface ChunkWrite {
  readonly key: string;
  readonly job: ChunkJob;
  readonly src: View;
  /** The chunk's in-bounds extent (edge chunks are cut by the array's shape). */
  readonly extent: readonly number[];
}

/** Rows shorter than this are copied element by element: a call per row would cost more. */
const MIN_COPY_RUN_BYTES = 256;

/**
 * A chunk's next state, computed before anything is written: its stored bytes (one buffer, or
 * runs of the caller's value to write one after the other), or erase (all fill).
 */
interface ChunkUpdate {
  readonly key: string;
  readonly parts: readonly Uint8Array[] | undefined;
}

export interface WriteChunksOptions {
  readonly concurrency: number;
  /** The writer pool: a slot per chunk being prepared or stored, shared with other writes. */
  readonly pool?: Limiter | undefined;
  /**
   * Encoded bytes of partially covered chunks held between the check and the write phase; past it,
   * a chunk is checked, dropped, and read and encoded again when its turn to be written comes.
   */
  readonly holdBytes: number;
  /** The write's request options (its signal), passed to every store call. */
  readonly request?: AbortOptions | undefined;
  /**
   * Workers to encode whole chunks on, once one is ready (the caller decided the write is big
   * enough and the chain compresses); chunks encode in this thread until then, and without it.
   */
  readonly encodePool?: DecodePool | undefined;
}

/**
 * Writes chunk regions so that a bad value or a damaged stored chunk never leaves a write half
 * done. The caller has checked the value whole; then every partially covered chunk is read,
 * decoded, merged and encoded before the first write, so a corrupt or undecodable chunk fails the
 * write with nothing changed. Whole-chunk writes read nothing and are encoded as they are written,
 * which keeps memory bounded and I/O overlapping with compression. What cannot be promised on a
 * plain store: a storage failure in the write phase leaves the chunks written so far (there is no
 * transaction to roll back; sessions give that), and so does an encode failure there, which a
 * checked value meets only at codec limits such as an over-2-GiB string chunk. An abort is
 * checked before each chunk: in the check phase it changes nothing, in the write phase it leaves
 * the chunks written so far, as a storage failure there does.
 */
export async function writeChunkRegions(store: ZarrStore, chain: CodecChain, writes: readonly ChunkWrite[], options: WriteChunksOptions): Promise<void> {
  const held = new Map<ChunkWrite, ChunkUpdate>();
  let heldBytes = 0;
  const request = options.request;
  const signal = request?.signal;
  const pooled = <T>(task: () => Promise<T>): Promise<T> => (options.pool ? options.pool.run(task, signal) : task());
  const memory = new ChunkMemory(chain, options.encodePool);
  await mapLimit(writes.filter((w) => !coversChunk(w)), options.concurrency, (w) => pooled(async () => {
    if (yieldDue(signal)) await yieldToEventLoop(); // so the abort can fire at all (abort.ts)
    throwIfAborted(signal, w.key);
    const update = compact(await prepareChunk(store, chain, w, memory, request));
    const size = update.parts?.reduce((n, p) => n + p.length, 0) ?? 0;
    if (heldBytes + size > options.holdBytes) return;
    held.set(w, update);
    heldBytes += size;
  }));
  await mapLimit(writes, options.concurrency, (w) => pooled(async () => {
    if (yieldDue(signal)) await yieldToEventLoop();
    throwIfAborted(signal, w.key);
    const update = held.get(w) ?? (await prepareChunk(store, chain, w, memory, request));
    held.delete(w);
    await storeUpdate(store, update, request);
  }));
}

/**
 * A held update whose one part is a small view of a large buffer (a compressor writes into room
 * for its worst case: 4.5 MiB kept for a chunk that compressed to a few KiB), copied to its size,
 * so the bytes counted against `holdBytes` are the memory held.
 */
function compact(update: ChunkUpdate): ChunkUpdate {
  const [only] = update.parts ?? [];
  if (!only || update.parts?.length !== 1 || only.buffer.byteLength <= 2 * only.byteLength) return update;
  return { key: update.key, parts: [copyBytes(only)] };
}

async function storeUpdate(store: ZarrStore, { key, parts }: ChunkUpdate, request: AbortOptions | undefined): Promise<void> {
  if (!parts) return store.erase(key, request);
  const [only] = parts;
  if (parts.length > 1 && store.setParts) return store.setParts(key, parts, request);
  // Runs are made only for stores with setParts; joining them keeps this total all the same.
  return store.set(key, parts.length === 1 && only ? only : concatBytes(parts), request);
}

/**
 * The memory a write assembles chunks in, and where it encodes them. Each chunk is filled (from
 * the old chunk, the fill value, the value) and encoded without awaiting, and every path sets all
 * its elements, so when the encoding is a new buffer (a bytes codec runs last: compressors,
 * checksums) one buffer serves the whole write: no 4 MiB allocation, zeroing and page faults per
 * chunk. Otherwise the encoded bytes may be the chunk's memory itself, which the store writes
 * later: a fresh one each time. Once a worker of the encode pool is ready, chunks go to it instead,
 * assembled in shared memory the worker reads in place: one buffer per chunk in flight (at most
 * the write's concurrency), reused from chunk to chunk, however many chunks the write has.
 */
class ChunkMemory {
  private reused: ArrayData | undefined;
  private readonly shared: TypedArray[] = [];

  constructor(private readonly chain: CodecChain, private readonly pool: DecodePool | undefined) {}

  /** The worker pool when it can take this chunk now (a typed-array chunk worth the round trip). */
  offload(): DecodePool | undefined {
    const { shape, dataType } = this.chain.spec;
    // Strings and binary (item size 0) live in JS arrays: they cannot be shared.
    if (!this.pool?.ready || dataType.itemSize === 0) return undefined;
    return product(shape) * dataType.itemSize >= MIN_OFFLOAD_BYTES ? this.pool : undefined;
  }

  take(): ArrayData {
    const { dataType, shape } = this.chain.spec;
    if (this.chain.bytesCodecs.length === 0) return dataType.allocate(product(shape));
    this.reused ??= dataType.allocate(product(shape));
    return this.reused;
  }

  /** Chunk memory for an encode on a worker (shared where the host has it), the caller's until it gives it back. */
  takeShared(): TypedArray {
    const free = this.shared.pop();
    if (free) return free;
    const { dataType, shape } = this.chain.spec;
    const sample = dataType.allocate(0) as TypedArray;
    const Ctor = sample.constructor as new (buffer: ArrayBufferLike) => TypedArray;
    return new Ctor(sharedResultBuffer(product(shape) * dataType.lanes * sample.BYTES_PER_ELEMENT));
  }

  give(data: TypedArray): void {
    this.shared.push(data);
  }
}

/** Whether the write replaces every in-bounds element of its chunk, so the old one is not read. */
function coversChunk(w: ChunkWrite): boolean {
  return w.job.projections.every((p, d) => Math.abs(p.step) === 1 && p.count === w.extent[d]);
}

/**
 * Reads the old chunk when partly covered, merges the source in, and encodes (or marks erase). A
 * whole chunk of an uncompressed array bound for a store that writes parts is not copied at all:
 * its update is the runs of the caller's value (raw-chunk.ts).
 */
async function prepareChunk(store: ZarrStore, chain: CodecChain, w: ChunkWrite, memory: ChunkMemory, request: AbortOptions | undefined): Promise<ChunkUpdate> {
  const { shape, dataType } = chain.spec;
  const runs = store.setParts && chunkRuns(chain, w.src, w.job.projections, shape);
  if (runs) return { key: w.key, parts: runsAllFill(runs, chain.spec.fillValue.memory) ? undefined : runs };
  checkChunkBytes(shape, dataType, w.key); // a shard is merged whole: it must fit in memory at once
  const existing = coversChunk(w) ? undefined : await store.get(w.key, request);
  const pool = memory.offload();
  if (pool) return encodeOnWorker(pool, chain, w, existing, memory);
  // From here to the encoding nothing awaits: a reused chunk buffer serves one chunk at a time.
  const data = memory.take();
  if (!assemble(chain, w, existing, data)) return { key: w.key, parts: undefined };
  return { key: w.key, parts: [withKey(w.key, () => encodeOwnedChunk(chain, { data, shape: [...shape], stride: cStrides(shape) }))] };
}

/** Assembles the chunk in shared memory of its own and encodes it on a worker. */
async function encodeOnWorker(pool: DecodePool, chain: CodecChain, w: ChunkWrite, existing: Uint8Array | undefined, memory: ChunkMemory): Promise<ChunkUpdate> {
  const data = memory.takeShared();
  try {
    if (!assemble(chain, w, existing, data)) return { key: w.key, parts: undefined };
    return { key: w.key, parts: [await pool.encode(chain, data)] };
  } catch (err) {
    if (isFloeError(err) && !err.where) throw floeError(err.code, err.message, { where: w.key, cause: err, details: err.details });
    throw err;
  } finally {
    memory.give(data);
  }
}

/**
 * Fills `data` with the chunk's next state: the old chunk (or the fill value) with the source
 * merged in. Returns false when it is all fill value (the chunk is to be erased).
 */
function assemble(chain: CodecChain, w: ChunkWrite, existing: Uint8Array | undefined, data: ArrayData): boolean {
  const { shape, dataType, fillValue } = chain.spec;
  const lanes = dataType.lanes;
  const stride = cStrides(shape);
  if (existing) {
    const all = shape.map((n) => ({ chunk: 0, start: 0, step: 1, count: n, outStart: 0 }));
    withKey(w.key, () => chain.decodeRegion(existing, all, { data, offset: 0, stride }));
  } else if (!coversChunk(w) || w.extent.some((n, d) => n !== shape[d])) {
    // A covered interior chunk is overwritten whole by the copy below; others keep fill around it.
    fillElements(data, fillValue.memory, 0, product(shape), lanes);
  }
  // A whole chunk whose rows lie contiguous in the value is copied row by row at memcpy speed.
  const rows = memoryRuns(w.src, w.job.projections, shape, lanes * dataType.laneBytes, MIN_COPY_RUN_BYTES);
  if (rows && !Array.isArray(data)) {
    copyRuns(rows, memoryBytes(data));
  } else {
    const target: View = {
      data,
      offset: dot(w.job.projections.map((p) => p.start), stride),
      stride: zipMap(w.job.projections, stride, (p, s) => s * p.step),
    };
    copyStrided(w.src, target, w.job.projections.map((p) => p.count), lanes);
  }
  return !allEqual(data, fillValue.memory);
}
