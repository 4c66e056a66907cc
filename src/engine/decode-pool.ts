// Decoding chunks on worker threads. Decompression is the CPU-bound part of a read; with a pool
// the main thread keeps fetching while workers decode. Chunks travel by transfer (no copy) when
// their bytes own their whole buffer; results come back the same way.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { floeError, type ErrorCode, type ErrorDetails } from '../errors.ts';
import { copyBytes, ownsWholeBuffer } from '../format/bytes.ts';
import type { CodecChain } from '../format/codecs/pipeline.ts';
import type { JsonValue } from '../format/json.ts';
import { resourceLimits } from '../format/limits.ts';
import type { NdArray, StridedView } from '../format/zarr/ndarray.ts';
import type { ChunkProjection } from './selection.ts';
import type { LocalFileSpan } from './store.ts';

// Built JS (dist/) starts the compiled worker directly; run from TypeScript sources (tests,
// benches under tsx) the worker first registers tsx through decode-worker.mjs.
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./decode-worker.mjs', import.meta.url)
  : new URL('./decode-worker-main.js', import.meta.url);

export interface DecodeRequest {
  id: number;
  codecs: JsonValue;
  shape: readonly number[];
  dataType: string;
  fillValue: JsonValue;
  /** The encoded chunk, or `file`: local file bytes the worker reads itself (both cores do I/O). */
  bytes?: Uint8Array;
  file?: LocalFileSpan;
  /** When set, the worker copies the selected part straight into this shared-memory view. */
  target?: CopyTarget;
  /** The sender's resourceLimits().variableChunkBytes: workers hold chunks to the same limits. */
  variableChunkBytes: number;
}

/** Where a decoded chunk's selected part goes: a view over a SharedArrayBuffer. */
export interface CopyTarget {
  view: StridedView;
  projections: readonly ChunkProjection[];
}

export type DecodeResponse =
  | { id: number; ok: true; data?: NdArray['data']; shape?: number[]; stride?: number[]; missing?: boolean }
  | { id: number; ok: false; code: ErrorCode; message: string; details: ErrorDetails };

interface Pending {
  resolve: (a: NdArray & { missing?: boolean }) => void;
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
  /** One Int32 over a SharedArrayBuffer: the worker stores 1 in it once loaded. */
  readonly ready: Int32Array;
}

/** Options of a {@link DecodePool}. */
export interface DecodePoolOptions {
  /**
   * A read of at least this many result bytes starts the workers, when it is done, if they are not
   * running yet (smaller reads decode in the calling thread and leave the pool unstarted). Default 64 MiB.
   */
  startBytes?: number;
  /** Starts one worker thread; for tests, which count or replace workers. */
  createWorker?: (data: DecodeWorkerData) => Worker;
}

/** Below this many encoded bytes a chunk is decoded inline: a round trip costs more. */
export const MIN_OFFLOAD_BYTES = 128 * 1024;

/** Reads of at least this many result bytes use workers that are already running. */
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
  /** Chunks sent to workers over the pool's life. */
  chunksSent = 0;

  constructor(readonly size: number, options: DecodePoolOptions = {}) {
    this.startBytes = options.startBytes ?? 64 * 1024 * 1024;
    this.createWorker = options.createWorker ?? ((workerData) => new Worker(WORKER_ENTRY, { workerData }));
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

  /** Starts the workers that are not running (once; later calls cost nothing). */
  start(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  /** Decodes sent to workers and not yet answered (an aborted read stops adding to them). */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Decodes `bytes` with `chain` on a worker; the result is a fresh, caller-owned array. */
  decode(chain: CodecChain, bytes: Uint8Array): Promise<NdArray> {
    return this.post(chain, bytes, undefined);
  }

  /** Decodes on a worker and copies the selected part into `target` (shared memory) there. */
  async decodeInto(chain: CodecChain, bytes: Uint8Array, target: CopyTarget): Promise<void> {
    await this.post(chain, bytes, target);
  }

  /**
   * Reads a local file (or a byte range of it) on a worker, decodes it and copies the selected
   * part into `target`. Resolves false when the file does not exist.
   */
  async decodeFileInto(chain: CodecChain, file: LocalFileSpan, target: CopyTarget): Promise<boolean> {
    const reply = await this.post(chain, { file }, target);
    return !reply.missing;
  }

  private post(chain: CodecChain, source: Uint8Array | { file: LocalFileSpan }, target: CopyTarget | undefined): Promise<NdArray & { missing?: boolean }> {
    const slot = this.pickSlot();
    const id = this.nextId++;
    // Transfer when the bytes own their buffer; otherwise copy, never detach someone else's.
    const payload = source instanceof Uint8Array ? (ownsWholeBuffer(source) ? source : copyBytes(source)) : undefined;
    const request: DecodeRequest = {
      id,
      codecs: chain.toJSON() as unknown as JsonValue,
      shape: chain.spec.shape,
      dataType: chain.spec.dataType.name,
      fillValue: chain.spec.fillValue.json,
      variableChunkBytes: resourceLimits().variableChunkBytes,
      ...(payload ? { bytes: payload } : { file: (source as { file: LocalFileSpan }).file }),
      ...(target ? { target } : {}),
    };
    slot.inFlight++;
    this.chunksSent++;
    if (slot.inFlight === 1) slot.worker.ref();
    return new Promise<NdArray & { missing?: boolean }>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: slot });
      slot.worker.postMessage(request, payload ? [payload.buffer as ArrayBuffer] : []);
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
    const ready = new Int32Array(new SharedArrayBuffer(4));
    const worker = this.createWorker({ ready });
    this.workersStarted++;
    const slot: WorkerSlot = { worker, inFlight: 0, ready };
    worker.unref(); // an idle pool never keeps the process alive
    worker.on('message', (msg: DecodeResponse) => this.settle(msg));
    worker.on('error', (err) => this.failAll(slot, err));
    worker.on('exit', (code) => this.failAll(slot, floeError('STORAGE_ERROR', `decode worker exited with code ${code}`)));
    return slot;
  }

  private settle(msg: DecodeResponse): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (--p.worker.inFlight === 0) p.worker.worker.unref();
    if (msg.ok) p.resolve({ data: msg.data ?? [], shape: msg.shape ?? [], stride: msg.stride ?? [], ...(msg.missing ? { missing: true } : {}) });
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

let shared: DecodePool | undefined;

/** The process-wide pool (workers start lazily, on the first big read, one per core up to 4). */
export function sharedDecodePool(): DecodePool {
  shared ??= new DecodePool(Math.max(1, Math.min(4, availableParallelism())));
  return shared;
}
