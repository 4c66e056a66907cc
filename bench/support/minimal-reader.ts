// The minimal reader's front: full reads on N worker threads (default 2) into a caller-given
// SharedArrayBuffer output; single chunks and windows inline on the calling thread.
import { Worker } from 'node:worker_threads';
import { MinimalCore, windowParts, type MinimalLayout } from './minimal-core.ts';
import type { FullReadRequest } from './minimal-worker.ts';

/** Starts a .ts worker under tsx (a plain `new Worker(file.ts)` has no TypeScript loader). */
export function tsWorker(url: URL, workerData: unknown): Worker {
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

export class MinimalReader {
  private readonly core: MinimalCore;
  private workers: Worker[] = [];

  constructor(readonly layout: MinimalLayout, private readonly threads = 2) {
    this.core = new MinimalCore(layout);
  }

  async start(): Promise<void> {
    this.workers = await Promise.all(
      Array.from({ length: this.threads }, () => new Promise<Worker>((resolve, reject) => {
        const w = tsWorker(new URL('./minimal-worker.ts', import.meta.url), this.layout);
        w.once('message', () => resolve(w));
        w.once('error', reject);
      })),
    );
  }

  /** Reads the whole array into `out` (a Float32Array over a SharedArrayBuffer). */
  async readFull(out: SharedArrayBuffer): Promise<void> {
    const [h, w] = this.layout.chunkShape;
    const gi = this.layout.shape[0] / h;
    const gj = this.layout.shape[1] / w;
    const tasks = new Int32Array(gi * gj * 2);
    for (let i = 0; i < gi; i++) for (let j = 0; j < gj; j++) tasks.set([i, j], (i * gj + j) * 2);
    const req: FullReadRequest = { out, counter: new SharedArrayBuffer(4), tasks };
    await Promise.all(this.workers.map((wk) => new Promise<void>((resolve, reject) => {
      wk.once('message', (m: { ok: boolean; message?: string }) => (m.ok ? resolve() : reject(new Error(m.message))));
      wk.postMessage(req);
    })));
  }

  /** Reads a window [r, r+h) x [c, c+w) into `out` (h*w elements), on this thread. */
  readWindow(r: number, c: number, h: number, w: number, out: Float32Array): void {
    for (const p of windowParts(this.layout, r, c, h, w)) this.core.readPart(p, out, w);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.terminate()));
  }
}
