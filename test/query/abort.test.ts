// Cancelling queries: the signal goes with every request, so a request in flight is cancelled (not
// waited out), explain and execute reject with ABORTED, a query on a session stops the same way,
// and a query that shares in-flight fetches with an aborted one still completes.
import { describe, expect, it } from 'vitest';
import { ReadCaches } from '../../src/cache/read-caches.ts';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { expectedBox, range, weatherStore } from './support.ts';

const memory = new MemoryStorage();
await weatherStore(new StorageStore(memory));

/** The weather store read through a backend whose every read waits `ms` (abortably), counting reads. */
function slowStore(ms: number): { store: StorageStore; gets: () => number } {
  let gets = 0;
  const counted = wrapStorage(memory, (call, run) => (call.operation === 'get' && gets++, run()));
  const slow = withFaults(counted, (call) => (call.operation === 'get' ? { kind: 'delay', ms } : undefined));
  return { store: new StorageStore(slow, { readOnly: true }), gets: () => gets };
}

const scattered = (source: Parameters<typeof query>[0], options: Parameters<typeof query>[1]) =>
  query(source, options).from('/temperature', 'float32').stride('time', 7).stride('lat', 4).stride('lon', 5);
const expected = expectedBox(range(0, 48, 7), range(0, 19, 4), range(0, 36, 5));

/** The rejection of `promise` and how long it took to come. */
async function failure(promise: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  const err = await promise.then(() => undefined, (e: unknown) => e);
  return { err, ms: performance.now() - started };
}

describe('aborting a query', () => {
  it('cancels the request in flight: AbortSignal.timeout gives ABORTED (timedOut) long before the request would end', async () => {
    const { store } = slowStore(5000);
    const { err, ms } = await failure(scattered(store, { signal: AbortSignal.timeout(100) }).execute());
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(true);
    expect(ms).toBeLessThan(3000);
  });

  it('explain with a fired signal rejects with ABORTED before any request', async () => {
    const { store, gets } = slowStore(0);
    const controller = new AbortController();
    controller.abort(new Error('no'));
    const { err } = await failure(scattered(store, { signal: controller.signal }).explain());
    expect(isFloeError(err, 'ABORTED') ? err.details : err).toEqual({ timedOut: false, reason: 'no' });
    expect(gets()).toBe(0);
  });

  it('stops a query on a session midway; the session then answers the same query', async () => {
    const backend = new MemoryStorage();
    const repo = await Repository.create(Storage.fromObjectStorage(backend), {}, 2, {}, { chunkPacking: false });
    const session = await repo.writableSession('main');
    await weatherStore(session.store);
    await session.commit('weather');
    let gets = 0;
    const slow = withFaults(wrapStorage(backend, (call, run) => (call.operation === 'get' && gets++, run())), (call) =>
      call.operation === 'get' ? { kind: 'delay', ms: 30 } : undefined);
    const reader = await (await Repository.open(Storage.fromObjectStorage(slow))).readonlySession();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 60);
    const { err } = await failure(scattered(reader, { signal: controller.signal, concurrency: 2 }).execute());
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    const atAbort = gets;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gets).toBe(atAbort);
    const result = await scattered(reader, {}).execute();
    expect(Array.from(result.data)).toEqual(expected);
  });

  it("a query that joined an aborted query's shared loads still completes", async () => {
    // Reads take 100 ms: A reads metadata (0-100 ms), then its shard indexes (from 100 ms); B,
    // started at 50 ms, asks for the same indexes at 150 ms and joins A's loads; A is aborted at
    // 170 ms, while they are in flight.
    const { store } = slowStore(100);
    const caches = new ReadCaches();
    const controller = new AbortController();
    const aborted = failure(scattered(store, { caches, signal: controller.signal }).execute());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = scattered(store, { caches }).execute();
    await new Promise((resolve) => setTimeout(resolve, 120));
    controller.abort();
    expect(isFloeError((await aborted).err, 'ABORTED')).toBe(true);
    expect(Array.from((await other).data)).toEqual(expected);
  });
});
