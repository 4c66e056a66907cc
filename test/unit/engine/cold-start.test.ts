// The read decides from its size whether to start decode workers: small reads decode in the
// calling thread and create none; a read big enough to repay them decodes in its own thread too
// (start-up never competes with it) and starts them when done; reads go on decoding in-thread until
// a worker reports ready. Observed through a pool whose worker factory is counted and whose
// workers never get ready (an idle eval worker).
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { DecodePool } from '../../../src/engine/decode-pool.ts';
import { slice } from '../../../src/engine/selection.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';

const N = 2048; // 16 MiB of float32: past the 8 MiB from which reads use running workers
const values = Float32Array.from({ length: N * N }, (_, i) => Math.sin(i / 1001));
const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
const pools: DecodePool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** A pool starting for reads of 2 MiB and more whose workers never get ready. */
function observedPool() {
  const created: unknown[] = [];
  const pool = new DecodePool(2, {
    startBytes: 2 << 20,
    createWorker: (data) => {
      created.push(data);
      return new Worker('setInterval(() => {}, 1 << 30)', { eval: true });
    },
  });
  pools.push(pool);
  return { pool, created };
}

async function zstdArray() {
  const store = new StorageStore(new MemoryStorage(), { decodedChunkBytes: 0 });
  const array = await ZarrArray.create(store, '/a', { shape: [N, N], chunkShape: [512, 512], dataType: 'float32', codecs } as never);
  await array.set(undefined, values);
  return array;
}

const same = (a: unknown) => Buffer.from((a as Float32Array).buffer).equals(Buffer.from(values.buffer));

describe('cold start: in-thread or workers, by the size of the read', () => {
  it('a small read decodes in the calling thread and creates no worker', async () => {
    const { pool, created } = observedPool();
    const array = await zstdArray();
    const part = await array.get([null, slice(0, 128)], { decodePool: pool }); // 1 MiB
    expect(part.shape).toEqual([N, 128]);
    expect(created).toHaveLength(0);
    expect(pool.workersStarted).toBe(0);
    expect(pool.started).toBe(false);
    expect(pool.planFor(1 << 20)).toBe('inline');
  });

  it('a big read decodes in its own thread and starts the workers when done, once', async () => {
    const { pool, created } = observedPool();
    const array = await zstdArray();
    expect(pool.planFor(N * N * 4)).toBe('inline-then-start');
    const first = await array.get(undefined, { decodePool: pool });
    expect(same(first.data)).toBe(true);
    expect(pool.chunksSent).toBe(0); // nothing went to a worker during the read
    expect(created).toHaveLength(2); // started after it, for the next one
    // Workers started but not ready: the next big read uses the pool (shared result) yet decodes
    // every chunk in this thread rather than wait for them.
    const second = await array.get(undefined, { decodePool: pool });
    expect((second.data as Float32Array).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(same(second.data)).toBe(true);
    expect(pool.chunksSent).toBe(0);
    expect(pool.workersStarted).toBe(2); // started once
  });
});
