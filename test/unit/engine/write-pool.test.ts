// The one writer pool (src/engine/write-pool.ts): chunk writes of any number of concurrent `set`
// calls given the same pool never have more chunk puts in flight than its slots, while each call
// keeps its own `concurrency` bound; without a pool option they share the process-wide one.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { createLimiter } from '../../../src/engine/storage/limiter.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../../src/engine/storage/wrap.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { SHARED_WRITE_POOL_SIZE } from '../../../src/engine/write-pool.ts';

/** A memory store whose puts (and gets, when `slowGets`) take a few event-loop turns, counting those in flight. */
function instrumentedStore(slowGets = false) {
  const stats = { inFlight: 0, peak: 0, puts: 0 };
  const slow = async <T>(run: () => Promise<T>): Promise<T> => {
    stats.peak = Math.max(stats.peak, ++stats.inFlight);
    try {
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      return await run();
    } finally {
      stats.inFlight -= 1;
    }
  };
  const storage = wrapStorage(new MemoryStorage(), (call, run) => {
    if (call.operation === 'put') stats.puts += 1;
    return call.operation === 'put' || (slowGets && call.operation === 'get') ? slow(run) : run();
  });
  return { store: new StorageStore(storage), stats };
}

async function arraysOn(store: StorageStore, count: number) {
  return Promise.all(Array.from({ length: count }, (_, i) =>
    ZarrArray.create(store, `/a${i}`, { shape: [40], chunkShape: [2], dataType: 'int32', fillValue: 0 })));
}

const ones = () => new Int32Array(40).fill(1);

describe('the writer pool', () => {
  it('bounds the chunk puts of concurrent writes sharing it', async () => {
    const { store, stats } = instrumentedStore();
    const arrays = await arraysOn(store, 3);
    stats.peak = 0;
    stats.puts = 0;
    const pool = createLimiter(3);
    await Promise.all(arrays.map((a) => a.set(undefined, ones(), { concurrency: 8, writePool: pool })));
    expect(stats.puts).toBe(60);
    expect(stats.peak).toBe(3);
    expect(pool.active).toBe(0);
    for (const a of arrays) expect(Array.from((await a.get()).data as Int32Array)).toEqual(Array.from(ones()));
  });

  it('also bounds the reads of partly covered chunks, and a pool given when opening is the default', async () => {
    const { store, stats } = instrumentedStore(true);
    const pool = createLimiter(2);
    const arrays = (await arraysOn(store, 2)).map((a) => new ZarrArray(store, a.path, a.metadata, { writePool: pool }));
    stats.peak = 0;
    // Odd bounds: every chunk is partly covered, so each is read (slowly) before it is written.
    await Promise.all(arrays.map((a) => a.set([slice(1, 39)], 5, { concurrency: 8 })));
    expect(stats.peak).toBe(2);
  });

  it('keeps each write to its own concurrency', async () => {
    const { store, stats } = instrumentedStore();
    const [array] = await arraysOn(store, 1);
    stats.peak = 0;
    await array!.set(undefined, ones(), { concurrency: 2, writePool: createLimiter(10) });
    expect(stats.peak).toBe(2);
  });

  it('is one process-wide pool when none is given', async () => {
    const { store, stats } = instrumentedStore();
    const arrays = await arraysOn(store, 2);
    stats.peak = 0;
    // Two writes of 20 chunks at concurrency 12 each would reach 24 without the shared pool.
    await Promise.all(arrays.map((a) => a.set(undefined, ones(), { concurrency: 12 })));
    expect(SHARED_WRITE_POOL_SIZE).toBeLessThan(24);
    expect(stats.peak).toBe(SHARED_WRITE_POOL_SIZE);
  });
});
