// A decode worker's side of its channel to the pool (decode-worker-main.ts), on Node's
// worker_threads: requests arrive on parentPort, the start data is workerData, and readiness is
// told through shared memory. The browser build takes worker-port.browser.ts (a Web Worker).
import { parentPort, workerData } from 'node:worker_threads';
import { heapCollector } from '../platform/heap-collector.ts';
import { isSharedMemory } from '../platform/host.ts';
import type { DecodeWorkerData, WorkerRequest, WorkerResponse } from './decode-pool.ts';

/** How long a worker waits after its last request into shared memory before it collects. */
const RELEASE_IDLE_MS = 100;

/** Calls `handle` for each request the pool sends. */
export function onRequest(handle: (request: WorkerRequest) => void): void {
  const release = sharedMemoryRelease();
  parentPort!.on('message', (request: WorkerRequest) => {
    handle(request);
    if (release) releaseAfter(request, release);
  });
}

function releaseAfter(request: WorkerRequest, release: (bufferId: number | undefined) => void): void {
  if (request.op === 'encode') {
    if (isSharedMemory(request.data.buffer)) release(undefined);
  } else if (request.target) {
    release(request.target.view.data.bufferId);
  }
}

/**
 * A result's SharedArrayBuffer stays allocated while this thread's heap holds a wrapper of it,
 * and a worker allocates too little to collect on its own (platform/heap-collector.ts): without
 * this, every pooled read left its whole result resident after the caller dropped it. So a worker
 * collects when a request names a newer result buffer than any before (the reads before it are
 * mostly done with theirs; each message brings a new wrapper, so buffers are told apart by the
 * increasing id the pool gives them),
 * and when it has been idle RELEASE_IDLE_MS after a request into shared memory.
 */
function sharedMemoryRelease(): ((bufferId: number | undefined) => void) | undefined {
  const collect = heapCollector();
  if (!collect) return undefined;
  let newestId: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (bufferId) => {
    // Ids grow with each result, so reads running side by side cost one collection each, not one
    // per alternation.
    if (bufferId !== undefined && (newestId === undefined || bufferId > newestId)) {
      if (newestId !== undefined) collect();
      newestId = bufferId;
    }
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      collect();
    }, RELEASE_IDLE_MS);
    timer.unref();
  };
}

/** Sends a reply, moving the buffers in `transfer`. */
export function reply(message: WorkerResponse, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

/** Runs `init` on the start data, then tells the pool this worker is ready. */
export function started(init: (data: DecodeWorkerData | undefined) => void): void {
  const data = workerData as DecodeWorkerData | undefined;
  init(data);
  // Through shared memory, which the pool's thread reads between chunks without waiting for the
  // event loop (a read in progress may not give it a turn).
  if (data?.ready) Atomics.store(data.ready, 0, 1);
}
