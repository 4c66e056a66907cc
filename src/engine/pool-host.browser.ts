// The decode pool's threads in the browser build (replaces pool-host.ts there): module Web
// Workers running the build's decode-worker.js (decode-worker-main.ts over worker-port.browser.ts).
// Chunks go to them and results come back by transfer, so no SharedArrayBuffer is needed (static
// hosts rarely send the COOP/COEP headers it takes); where the page is cross-origin isolated,
// results are shared memory and workers write into them, as on Node: kept because it measured
// 3-14% faster there than transfer (bench/browser-read.ts --isolated; BENCHMARKS.md "Issue 31"). A worker script on another
// origin than the page (floe.js from a CDN) starts through a blob: URL importing it. Without a Worker or a
// worker URL (floe/browser loaded outside a page), hostPoolSize() is 0 and reads decode inline.
import type { Worker as NodeWorker } from 'node:worker_threads';
import { floeError } from '../errors.ts';
import type { DecodeWorkerData } from './decode-pool.ts';
import { decodeWorkerUrl } from './decode-worker-url.ts';

/** The parts of a Web Worker used here (the project's lib has no DOM types). */
interface WebWorker {
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (event: { data?: unknown; message?: string }) => void): void;
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
  terminate(): void;
}
type WebWorkerConstructor = new (url: URL, options: { type: 'module'; name?: string }) => WebWorker;
const WorkerClass = (globalThis as { Worker?: WebWorkerConstructor }).Worker;
const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
const pageOrigin = (globalThis as { location?: { origin?: string } }).location?.origin;
const BlobClass = (globalThis as { Blob?: new (parts: string[], options: { type: string }) => object }).Blob;
const objectUrls = URL as unknown as { createObjectURL?: (blob: object) => string; revokeObjectURL?: (url: string) => void };

/**
 * Workers the page's pool runs: one per core, up to 4; none without Web Workers or a worker URL,
 * or when the worker script is on another origin (a CDN) and the page cannot make a blob: URL.
 */
export function hostPoolSize(): number {
  const url = decodeWorkerUrl();
  if (WorkerClass === undefined || url === undefined || (url.origin !== pageOrigin && !canWrap())) return 0;
  return Math.max(1, Math.min(4, cores));
}

const canWrap = (): boolean => BlobClass !== undefined && objectUrls.createObjectURL !== undefined;

/**
 * The URL a worker starts from: the worker script itself on the page's origin; from another origin
 * (floe.js loaded from a CDN), which browsers refuse as a worker's script, a blob: URL (the page's
 * origin) of a one-line module importing it by absolute URL (a module import from another origin
 * needs CORS, which the page's own import of floe.js needed too). `release` revokes the blob: URL.
 */
function workerStart(url: URL): { start: URL; release: () => void } {
  if (url.origin === pageOrigin || !canWrap()) return { start: url, release: () => {} };
  const wrapper = objectUrls.createObjectURL!(new BlobClass!([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' }));
  return { start: new URL(wrapper), release: () => objectUrls.revokeObjectURL?.(wrapper) };
}

type Listener = (value: unknown) => void;

/**
 * Starts one decode worker, seen by the pool as the part of Node's Worker it uses: `on` for
 * message/error/exit, `postMessage` with a transfer list, `ref`/`unref` (nothing to do in a page)
 * and `terminate`.
 */
export function startDecodeWorker(workerData: object): NodeWorker {
  const url = decodeWorkerUrl();
  if (WorkerClass === undefined || url === undefined) throw floeError('UNSUPPORTED', 'this page has no Web Workers for decoding: pass decodePool: false');
  const data = workerData as DecodeWorkerData;
  const { start, release } = workerStart(url);
  const worker = new WorkerClass(start, { type: 'module', name: 'floe-decode' });
  const listeners: Record<'message' | 'error' | 'exit', Listener[]> = { message: [], error: [], exit: [] };
  const emit = (event: 'message' | 'error' | 'exit', value: unknown): void => listeners[event].forEach((listener) => listener(value));
  // Held until the worker listens (worker-port.browser.ts): the start data first, then requests.
  let held: [unknown, ArrayBuffer[]][] | undefined = [[{ floeStart: { zstd: data.zstd } }, []]];
  worker.addEventListener('message', (event) => {
    const message = event.data;
    if (typeof message === 'object' && message !== null && 'loaded' in message) {
      release();
      for (const [m, transfer] of held ?? []) worker.postMessage(m, transfer);
      held = undefined;
    } else if (typeof message === 'object' && message !== null && 'ready' in message) Atomics.store(data.ready, 0, 1);
    else emit('message', message);
  });
  worker.addEventListener('error', (event) => emit('error', floeError('STORAGE_ERROR', `a decode worker failed: ${event.message ?? 'it did not load'}`)));
  worker.addEventListener('messageerror', () => emit('error', floeError('STORAGE_ERROR', 'a decode worker\'s message could not be read')));
  const adapter = {
    on(event: 'message' | 'error' | 'exit', listener: Listener) {
      listeners[event].push(listener);
      return adapter;
    },
    postMessage: (message: unknown, transfer: ArrayBuffer[] = []) => (held ? held.push([message, transfer]) : worker.postMessage(message, transfer)),
    ref: () => adapter,
    unref: () => adapter,
    terminate: async () => {
      worker.terminate();
      emit('exit', 0);
      return 0;
    },
  };
  return adapter as unknown as NodeWorker;
}
