// The decode pool's threads on Node: worker_threads workers running decode-worker-main (issue 31
// moved them here from decode-pool.ts). The browser build takes pool-host.browser.ts instead
// (a sibling `X.browser.ts` replaces `X.ts` there: scripts/build-browser.mjs).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

// Built JS (dist/) starts the compiled worker directly; run from TypeScript sources (tests,
// benches under tsx) the worker first registers tsx through decode-worker.mjs.
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./decode-worker.mjs', import.meta.url)
  : new URL('./decode-worker-main.js', import.meta.url);

/** Workers the process-wide pool runs: one per core, up to 4. */
export function hostPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** Starts one decode worker with its `workerData` (decode-pool.ts's DecodeWorkerData). */
export function startDecodeWorker(workerData: object): Worker {
  return new Worker(WORKER_ENTRY, { workerData });
}
