// A decode worker's side of its channel to the pool (decode-worker-main.ts), on Node's
// worker_threads: requests arrive on parentPort, the start data is workerData, and readiness is
// told through shared memory. The browser build takes worker-port.browser.ts (a Web Worker).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { DecodeWorkerData, WorkerRequest, WorkerResponse } from './decode-pool.ts';

/**
 * How long a worker waits after its last request into shared memory before it collects. A
 * result's SharedArrayBuffer stays allocated while any thread's heap still holds a wrapper of it,
 * and an idle worker allocates too little to ever collect: without this, each pooled read left
 * its whole result resident after the caller dropped it (1 GiB more per 1 GiB read, measured).
 */
const RELEASE_IDLE_MS = 100;

/** Calls `handle` for each request the pool sends. */
export function onRequest(handle: (request: WorkerRequest) => void): void {
  const release = sharedMemoryRelease();
  parentPort!.on('message', (request: WorkerRequest) => {
    if (holdsSharedMemory(request)) release?.();
    handle(request);
  });
}

function holdsSharedMemory(request: WorkerRequest): boolean {
  if (request.op === 'encode') return typeof SharedArrayBuffer === 'function' && request.data.buffer instanceof SharedArrayBuffer;
  return request.target !== undefined;
}

/** A debounced full collection of this worker's heap, or undefined where V8 gives no collector. */
function sharedMemoryRelease(): (() => void) | undefined {
  const collect = heapCollector();
  if (!collect) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      collect();
    }, RELEASE_IDLE_MS);
    timer.unref();
  };
}

/**
 * V8's `gc`: the global one when the process runs with --expose-gc, else taken from a fresh
 * context with the flag on just for that moment (V8 flags are process-wide, so it is put back).
 */
function heapCollector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    try {
      const collect = runInNewContext('gc') as unknown;
      return typeof collect === 'function' ? (collect as () => void) : undefined;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return undefined;
  }
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
