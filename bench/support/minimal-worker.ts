// Worker of the minimal reader (see minimal-core.ts): takes whole chunks/shards from a shared
// counter and decodes them straight into the shared output.
import { parentPort, workerData } from 'node:worker_threads';
import { MinimalCore, type MinimalLayout } from './minimal-core.ts';

export interface FullReadRequest {
  out: SharedArrayBuffer;
  /** Int32Array(1) over a SharedArrayBuffer: the next task number. */
  counter: SharedArrayBuffer;
  /** Flat [ci, cj, ci, cj, ...] of the objects to read. */
  tasks: Int32Array;
}

const layout = workerData as MinimalLayout;
const core = new MinimalCore(layout);
const [h, w] = layout.chunkShape;
const outCols = layout.shape[1];

parentPort!.on('message', (req: FullReadRequest) => {
  try {
    const out = new Float32Array(req.out);
    const counter = new Int32Array(req.counter);
    const n = req.tasks.length / 2;
    for (;;) {
      const t = Atomics.add(counter, 0, 1);
      if (t >= n) break;
      const ci = req.tasks[2 * t]!;
      const cj = req.tasks[2 * t + 1]!;
      core.readPart({ ci, cj, r0: 0, r1: h, c0: 0, c1: w, outRow: ci * h, outCol: cj * w }, out, outCols);
    }
    parentPort!.postMessage({ ok: true });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
parentPort!.postMessage({ ready: true });
