// The decode pool's threads in the browser build (replaces pool-host.ts there): none yet, so
// every chunk decodes on the calling thread (sharedDecodePool() is undefined).
import type { Worker } from 'node:worker_threads';
import { floeError } from '../errors.ts';

/** No decode workers: reads decode where they are made. */
export function hostPoolSize(): number {
  return 0;
}

/** Never called while hostPoolSize() is 0; a pool built by hand has no threads to start here. */
export function startDecodeWorker(_workerData: object): Worker {
  throw floeError('UNSUPPORTED', 'decode workers are not available in this build: pass decodePool: false');
}
