// A decode worker's side of its channel to the pool (decode-worker-main.ts), on Node's
// worker_threads: requests arrive on parentPort, the start data is workerData, and readiness is
// told through shared memory. The browser build takes worker-port.browser.ts (a Web Worker).
import { parentPort, workerData } from 'node:worker_threads';
import type { DecodeWorkerData, WorkerRequest, WorkerResponse } from './decode-pool.ts';

/** Calls `handle` for each request the pool sends. */
export function onRequest(handle: (request: WorkerRequest) => void): void {
  parentPort!.on('message', handle);
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
