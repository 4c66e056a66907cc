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
}

/** Below this many encoded bytes a chunk is decoded inline: a round trip costs more. */
export const MIN_OFFLOAD_BYTES = 128 * 1024;

export class DecodePool {
  private readonly slots: WorkerSlot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(readonly size: number) {}

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
    if (slot.inFlight === 1) slot.worker.ref();
    return new Promise<NdArray & { missing?: boolean }>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: slot });
      slot.worker.postMessage(request, payload ? [payload.buffer as ArrayBuffer] : []);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private pickSlot(): WorkerSlot {
    if (this.slots.length < this.size) {
      const slot = this.spawn();
      this.slots.push(slot);
      return slot;
    }
    return this.slots.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  }

  private spawn(): WorkerSlot {
    const worker = new Worker(WORKER_ENTRY);
    const slot: WorkerSlot = { worker, inFlight: 0 };
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

/** The process-wide pool (workers start lazily, one per core up to 4). */
export function sharedDecodePool(): DecodePool {
  shared ??= new DecodePool(Math.max(1, Math.min(4, availableParallelism())));
  return shared;
}
