// A worker process of bench/distributed.ts's simulation (bundled with esbuild): runWorker on a
// local-filesystem repository behind a storage that adds `latencyMs` to every request, as a
// worker far from its object store would see it. A task writes its chunks (`chunkBytes` each,
// random, above the inline threshold) of /a. Prints `{"event":"ready"}` once it takes jobs;
// SIGTERM closes it.
import { randomFillSync } from 'node:crypto';
import { runWorker } from '../../src/distributed/index.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { sleepAbortably } from '../../src/engine/abort.ts';
import { systemClock } from '../../src/engine/storage/clock.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { slowCall } from './slow-storage.ts';
import { slice } from '../../src/engine/selection.ts';
import { Repository } from '../../src/txn/index.ts';

interface Job {
  repo: string;
  redis: string;
  queue: string;
  latencyMs: number;
  chunkBytes: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const storage = wrapStorage(new FsStorage({ root: job.repo, durable: false }), async (call, run) => {
  if (slowCall(call)) await sleepAbortably(systemClock, job.latencyMs, call.signal, call.key);
  return run();
});
const repository = await Repository.open(storage);
const worker = await runWorker<{ chunks: number[] }>({
  queue: { name: job.queue, redis: job.redis }, repository, name: `w${process.pid}`,
  async handler(task, fork, { signal }) {
    const array = await ZarrArray.open(fork.store, '/a', { signal });
    await Promise.all(task.chunks.map((c) => array.set([slice(c, c + 1), slice(0, job.chunkBytes)], randomFillSync(new Uint8Array(job.chunkBytes)), { signal })));
  },
});
process.stdout.write('{"event":"ready"}\n');
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));

