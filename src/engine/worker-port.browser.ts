// A decode worker's side of its channel to the pool in the browser build (replaces
// worker-port.ts there): a module Web Worker. A message that reaches a module worker before its
// listeners exist is lost (its modules may still await), so the worker speaks first: `{ loaded:
// true }` once it listens; pool-host.browser.ts holds messages until then and sends the start data
// first (a Worker has no workerData); the worker answers `{ ready: true }` (the pool marks the
// slot ready, as shared memory does on Node) and takes requests.
import type { DecodeWorkerData, WorkerRequest, WorkerResponse } from './decode-pool.ts';

/** The parts of a worker's global scope used here (the project's lib has no DOM or WebWorker types). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
}
const scope = globalThis as unknown as WorkerScope;

/** The start message pool-host.browser.ts sends first. */
export interface WorkerStart {
  readonly floeStart: Omit<DecodeWorkerData, 'ready'>;
}

const isStart = (data: unknown): data is WorkerStart => typeof data === 'object' && data !== null && 'floeStart' in data;

export function onRequest(handle: (request: WorkerRequest) => void): void {
  scope.addEventListener('message', (event) => {
    if (!isStart(event.data)) handle(event.data as WorkerRequest);
  });
}

export function reply(message: WorkerResponse, transfer: ArrayBuffer[] = []): void {
  scope.postMessage(message, transfer);
}

export function started(init: (data: DecodeWorkerData | undefined) => void): void {
  scope.addEventListener('message', (event) => {
    if (!isStart(event.data)) return;
    init({ ...event.data.floeStart, ready: new Int32Array(1) });
    scope.postMessage({ ready: true });
  });
  scope.postMessage({ loaded: true });
}
