// The page-fault floor of a new output: how long writing one byte per page of a new buffer takes,
// in one thread and split between worker threads (issue 19: a full read into a new output pays
// this whatever the reader does). Run: node --expose-gc --import tsx bench/page-touch.ts [--mb 1024] [--rounds 3]
import { Worker } from 'node:worker_threads';
import { loadAverage } from './support/scale-run.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const bytes = option('mb', 1024) * 2 ** 20;
const rounds = option('rounds', 3);
const PAGE = 4096;

const TOUCH_WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const pages = new Uint8Array(workerData.buffer);
for (let i = workerData.from; i < workerData.to; i += ${PAGE}) pages[i] = 1;
parentPort.postMessage('done');`;

function touchInThread(): number {
  const started = performance.now();
  const pages = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += PAGE) pages[i] = 1;
  return performance.now() - started;
}

/** Wall ms until every worker has touched its share (worker start-up included: ~10 ms). */
async function touchInWorkers(count: number): Promise<number> {
  const buffer = new SharedArrayBuffer(bytes);
  const share = bytes / count;
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, w) => new Promise<void>((resolve, reject) => {
    const worker = new Worker(TOUCH_WORKER, { eval: true, workerData: { buffer, from: share * w, to: share * (w + 1) } });
    worker.once('message', () => void worker.terminate().then(() => resolve()));
    worker.once('error', reject);
  })));
  return performance.now() - started;
}

console.log(`new ${bytes / 2 ** 20} MiB buffer, one byte written per 4 KiB page; load ${loadAverage()}`);
for (let round = 1; round <= rounds; round++) {
  const one = touchInThread();
  (globalThis as { gc?: () => void }).gc?.();
  const two = await touchInWorkers(2);
  (globalThis as { gc?: () => void }).gc?.();
  console.log(`round ${round}: one thread ${one.toFixed(0)} ms, two workers ${two.toFixed(0)} ms`);
}
console.log(`load ${loadAverage()}`);
