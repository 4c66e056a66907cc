// Issue 28: a writer and its worker pool use one zstd backend. The pool hands the starting
// thread's choice to each worker it starts (workerData.zstd), and a worker selects it at load.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { DecodePool, type DecodeWorkerData } from '../../../src/engine/decode-pool.ts';
import { selectZstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { ZSTD_BACKENDS } from '../../support/zstd.ts';

const pools: DecodePool[] = [];
afterAll(async () => {
  selectZstdBackend('auto');
  await Promise.all(pools.map((p) => p.close()));
});

describe('the zstd backend of pool workers', () => {
  it.each(ZSTD_BACKENDS.filter((c) => c.available).map((c) => [c.which] as const))('is this thread\'s: %s', async (which) => {
    selectZstdBackend(which);
    const started: DecodeWorkerData[] = [];
    const pool = new DecodePool(1, {
      createWorker: (data) => {
        started.push(data);
        return new Worker(
          'setInterval(() => {}, 1 << 30)',
          { eval: true, workerData: data },
        );
      },
    });
    pools.push(pool);
    pool.start();
    expect(started.map((d) => d.zstd)).toEqual([which]);
  });
});
