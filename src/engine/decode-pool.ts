// Decoding and encoding chunks on worker threads. Decompression is the CPU-bound part of a read,
// compression that of a write; with a pool the main thread keeps fetching (or assembling and
// storing chunks) while workers decode (or encode). Chunks travel by transfer (no copy) when their
// bytes own their whole buffer; results come back the same way. One pool does both: one set of
// warm workers per process, not one per direction.
import type { Worker } from 'node:worker_threads';
import { floeError, type ErrorCode, type ErrorDetails } from '../errors.ts';
import { copyBytes, freshBytes, ownsWholeBuffer } from '../format/bytes.ts';
import type { CfValueCoding } from '../format/cf/values.ts';
import type { CodecChain } from '../format/codecs/pipeline.ts';
import { zstdChoiceForWorkers } from '../format/codecs/zstd-choice.ts';
import type { ZstdBackendName } from '../format/codecs/zstd-types.ts';
import type { JsonValue } from '../format/json.ts';
import { resourceLimits } from '../format/limits.ts';
import type { TypedArray } from '../format/zarr/data-types.ts';
import type { NdArray, StridedView } from '../format/zarr/ndarray.ts';
import { hostPoolSize, startDecodeWorker } from './pool-host.ts';
import { sharedOrPlainBuffer } from '../platform/host.ts';
import { encodesInto } from './raw-chunk.ts';
import { toWire, type WireView } from './shared-view.ts';
import type { ChunkProjection } from './selection.ts';
import type { LocalFileSpan } from './store.ts';

/** What a worker rebuilds a codec chain from (it caches chains by this description). */
export interface ChainRequest {
  id: number;
  codecs: JsonValue;
  shape: readonly number[];
  dataType: string;
  fillValue: JsonValue;
  /** The sender's resourceLimits().variableChunkBytes: workers hold chunks to the same limits. */
  variableChunkBytes: number;
}

export interface DecodeRequest extends ChainRequest {
  op?: undefined;
  /** The encoded chunk, or `file`: local file bytes the worker reads itself (both cores do I/O). */
  bytes?: Uint8Array;
  file?: LocalFileSpan;
  /** When set, the worker copies the selected part straight into this shared-memory view (shared-view.ts). */
  target?: Omit<CopyTarget, 'view'> & { view: WireView };
}

/** Encode a whole chunk (C order, the chain's chunk shape): `data` is shared memory (or a copy). */
export interface EncodeRequest extends ChainRequest {
  op: 'encode';
  data: TypedArray;
  /** Memory of the sender's to encode into (encodeOwnedChunkInto), transferred; else the worker allocates. */
  out?: Uint8Array;
}

export type WorkerRequest = DecodeRequest | EncodeRequest;

/** Where a decoded chunk's selected part goes: a view over a SharedArrayBuffer. */
export interface CopyTarget {
  view: StridedView;
  projections: readonly ChunkProjection[];
  /** A `decode: 'cf'` read's value decoding: the worker writes decoded values (the view has their type). */
  cf?: CfValueCoding;
}

export type DecodeResponse =
  | DecodedReply
  | { id: number; ok: false; code: ErrorCode; message: string; details: ErrorDetails };

interface DecodedReply { id: number; ok: true; data?: NdArray['data']; shape?: number[]; stride?: number[]; missing?: boolean }

export interface EncodedReply { id: number; ok: true; encoded: Uint8Array }

export type WorkerResponse = DecodeResponse | EncodedReply;
type OkReply = DecodedReply | EncodedReply;

interface Pending {
  resolve: (reply: OkReply) => void;
  reject: (e: unknown) => void;
  worker: WorkerSlot;
}

interface WorkerSlot {
  worker: Worker;
  inFlight: number;
  /** Set to 1 by the worker (shared memory) once it can decode: readable without the event loop. */
  ready: Int32Array;
}

/** What a decode worker is started with (`workerData`). */
export interface DecodeWorkerData {
  /** One Int32 (over shared memory where the host has it): set to 1 once the worker is loaded. */
  readonly ready: Int32Array;
  /** The zstd backend of the thread that starts the pool: a worker writes and reads as it does. */
  readonly zstd?: ZstdBackendName | undefined;
}

/** Options of a {@link DecodePool}. */
export interface DecodePoolOptions {
  /**
   * A read of at least this many result bytes starts the workers, when it is done, if they are not
   * running yet (smaller reads decode in the calling thread and leave the pool unstarted); a write
   * that encodes twice this many chunk bytes starts them at its beginning. Default 64 MiB.
   */
  startBytes?: number;
  /** Starts one worker thread; for tests, which count or replace workers. */
  createWorker?: (data: DecodeWorkerData) => Worker;
}

/** Below this many encoded bytes a chunk is decoded inline: a round trip costs more. */
export const MIN_OFFLOAD_BYTES = 128 * 1024;

/** Reads of at least this many result bytes (writes: encoded chunk bytes) use workers that are already running. */
export const MIN_POOLED_READ_BYTES = 8 * 1024 * 1024;

/**
 * Workers start lazily, all at once, after the first read big enough to repay their start-up
 * (each costs ~90 ms of CPU from built JS, ~4x that under tsx, and 15-45 MiB). A read never waits
 * for them: until one reports ready (through shared memory, so a busy main thread sees it between
 * chunks), chunks decode in the calling thread; from then on they go to the workers. Idle workers
 * are unref'd: a warm pool never keeps the process alive.
 */
export class DecodePool {
  private readonly slots: WorkerSlot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly startBytes: number;
  private readonly createWorker: (data: DecodeWorkerData) => Worker;
  /** Workers started over the pool's life (replacements of failed ones included). */
  workersStarted = 0;
  /** Chunks sent to workers to decode over the pool's life. */
  chunksSent = 0;
  /** Chunks sent to workers to encode over the pool's life. */
  encodesSent = 0;

  constructor(readonly size: number, options: DecodePoolOptions = {}) {
    this.startBytes = options.startBytes ?? 64 * 1024 * 1024;
    this.createWorker = options.createWorker ?? startDecodeWorker;
  }

  /** Whether workers have been started (they may still be loading). */
  get started(): boolean {
    return this.slots.length > 0;
  }

  /** Whether some worker can take a decode now. */
  get ready(): boolean {
    return this.slots.some((s) => Atomics.load(s.ready, 0) === 1);
  }

  /**
   * How a read of `resultBytes` uses the pool: `pool` when workers run (or are starting) and the
   * read is big enough to repay a round trip per chunk; `inline` otherwise. A read big enough to
   * repay their start-up (`startBytes`) while none runs gets `inline-then-start`: it decodes in
   * its own thread, so start-up never competes with it for CPU and memory, and starts the workers
   * when it is done, for the reads after it.
   */
  planFor(resultBytes: number): 'pool' | 'inline' | 'inline-then-start' {
    if (this.started) return resultBytes >= MIN_POOLED_READ_BYTES ? 'pool' : 'inline';
    return resultBytes >= this.startBytes ? 'inline-then-start' : 'inline';
  }

  /**
   * How a write that encodes `encodeBytes` (its chunks' decoded size) uses the pool: `pool` when
   * workers run (or are starting) and the write is big enough to repay a round trip per chunk;
   * `start` when none runs and it encodes at least twice `startBytes`; `inline` otherwise. Unlike
   * a read, a write starts them at once: compression costs ~3 ms of CPU per MiB here (zstd level
   * 3), so such a write has most of its encoding ahead when a worker is ready (~100 ms each from
   * built JS), and until then it encodes in its own thread (it never waits for one). Twice, because
   * the start-up competes with the write itself for the cores.
   */
  planForWrite(encodeBytes: number): 'pool' | 'inline' | 'start' {
    if (this.started) return encodeBytes >= MIN_POOLED_READ_BYTES ? 'pool' : 'inline';
    return encodeBytes >= 2 * this.startBytes ? 'start' : 'inline';
  }

  /** Starts the workers that are not running (once; later calls cost nothing). */
  start(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  /** Decodes sent to workers and not yet answered (an aborted read stops adding to them). */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Decodes `bytes` with `chain` on a worker; the result is a fresh, caller-owned array. */
  async decode(chain: CodecChain, bytes: Uint8Array): Promise<NdArray> {
    return decodedArray(await this.postDecode(chain, bytes, undefined));
  }

  /** Decodes on a worker and copies the selected part into `target` (shared memory) there. */
  async decodeInto(chain: CodecChain, bytes: Uint8Array, target: CopyTarget): Promise<void> {
    await this.postDecode(chain, bytes, target);
  }

  /**
   * Reads a local file (or a byte range of it) on a worker, decodes it and copies the selected
   * part into `target`. Resolves false when the file does not exist.
   */
  async decodeFileInto(chain: CodecChain, file: LocalFileSpan, target: CopyTarget): Promise<boolean> {
    const reply = await this.postDecode(chain, { file }, target);
    return !reply.missing;
  }

  /**
   * Encodes a whole chunk (`data`, C order in the chain's chunk shape) on a worker, byte for byte
   * as encodeOwnedChunk would here. Chunk memory over a SharedArrayBuffer is read there in place
   * (do not change it until the promise settles; the sender reuses it for its next chunk with no
   * transfer and no new buffer per chunk); any other is copied. Where the chain
   * {@link encodesInto} given memory, the encoding is written into memory allocated here (its
   * worst-case size, untouched until written) and transferred there and back: memory allocated on
   * a worker and freed on this thread (after the store wrote it) is returned to the system and
   * faulted in again chunk after chunk (~380 faults a 4 MiB chunk here).
   */
  async encode(chain: CodecChain, data: TypedArray): Promise<Uint8Array> {
    const out = encodesInto(chain) ? freshBytes(chain.encodedSizeBound()) : undefined;
    this.encodesSent++;
    const reply = await this.post({ ...chainRequest(chain), id: 0, op: 'encode', data, ...(out ? { out } : {}) }, out ? [out.buffer as ArrayBuffer] : []);
    if (!('encoded' in reply)) throw floeError('STORAGE_ERROR', 'an encode worker answered without an encoded chunk');
    return reply.encoded;
  }

  private postDecode(chain: CodecChain, source: Uint8Array | { file: LocalFileSpan }, target: CopyTarget | undefined): Promise<DecodedReply> {
    // Transfer when the bytes own their buffer; otherwise copy, never detach someone else's.
    const payload = source instanceof Uint8Array ? (ownsWholeBuffer(source) ? source : copyBytes(source)) : undefined;
    const request: DecodeRequest = {
      ...chainRequest(chain),
      id: 0,
      ...(payload ? { bytes: payload } : { file: (source as { file: LocalFileSpan }).file }),
      ...(target ? { target: { ...target, view: toWire(target.view) } } : {}),
    };
    this.chunksSent++;
    return this.post(request, payload ? [payload.buffer as ArrayBuffer] : []).then((reply) => {
      if ('encoded' in reply) throw floeError('STORAGE_ERROR', 'a decode worker answered with an encoded chunk');
      return reply;
    });
  }

  /** Sends `request` (its id assigned here) to the least busy worker. */
  private post(request: WorkerRequest, transfer: ArrayBuffer[]): Promise<OkReply> {
    const slot = this.pickSlot();
    const id = this.nextId++;
    slot.inFlight++;
    if (slot.inFlight === 1) slot.worker.ref();
    return new Promise<OkReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: slot });
      slot.worker.postMessage({ ...request, id }, transfer);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  /** The least busy ready worker (any worker when none is ready yet: its messages queue). */
  private pickSlot(): WorkerSlot {
    this.start();
    const ready = this.slots.filter((s) => Atomics.load(s.ready, 0) === 1);
    const candidates = ready.length > 0 ? ready : this.slots;
    let best: WorkerSlot | undefined;
    for (const s of candidates) if (!best || s.inFlight < best.inFlight) best = s;
    if (!best) throw floeError('STORAGE_ERROR', 'the decode pool has no worker to send a chunk to');
    return best;
  }

  private spawn(): WorkerSlot {
    // Shared memory where the host has it; otherwise pool-host sets it when the worker says so.
    const ready = new Int32Array(sharedOrPlainBuffer(4));
    const worker = this.createWorker({ ready, zstd: zstdChoiceForWorkers() });
    this.workersStarted++;
    const slot: WorkerSlot = { worker, inFlight: 0, ready };
    worker.unref(); // an idle pool never keeps the process alive
    worker.on('message', (msg: WorkerResponse) => this.settle(msg));
    worker.on('error', (err) => this.failAll(slot, err));
    worker.on('exit', (code) => this.failAll(slot, floeError('STORAGE_ERROR', `decode worker exited with code ${code}`)));
    return slot;
  }

  private settle(msg: WorkerResponse): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (--p.worker.inFlight === 0) p.worker.worker.unref();
    if (msg.ok) p.resolve(msg);
    else p.reject(floeError(msg.code, msg.message, { details: msg.details }));
  }

  private failAll(slot: WorkerSlot, err: unknown): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    for (const [id, p] of this.pending) {
      if (p.worker !== slot) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }
}

/** What a worker needs to rebuild `chain` (and hold it to this thread's limits). */
function chainRequest(chain: CodecChain): Omit<ChainRequest, 'id'> {
  return {
    codecs: chain.toJSON() as unknown as JsonValue,
    shape: chain.spec.shape,
    dataType: chain.spec.dataType.name,
    fillValue: chain.spec.fillValue.json,
    variableChunkBytes: resourceLimits().variableChunkBytes,
  };
}

function decodedArray(reply: DecodedReply): NdArray {
  return { data: reply.data ?? [], shape: reply.shape ?? [], stride: reply.stride ?? [] };
}

let shared: DecodePool | undefined;

/**
 * The process-wide pool (workers start lazily, on the first big read, one per core up to 4);
 * undefined where the host runs no decode workers (pool-host.browser.ts says when).
 */
export function sharedDecodePool(): DecodePool | undefined {
  const size = hostPoolSize();
  if (size === 0) return undefined;
  shared ??= new DecodePool(size);
  return shared;
}
