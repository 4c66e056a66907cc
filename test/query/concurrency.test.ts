// Requests in flight stay within `concurrency`, and an aborted query (by its signal, or by the
// HTTP server's timeout) starts no further request.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore, type ByteRange } from '../../src/engine/store.ts';
import { createQueryServer } from '../../src/query/http.ts';
import { query } from '../../src/query/index.ts';
import { weatherStore } from './support.ts';

/** A store whose reads take `delayMs` each, counting requests and the most in flight at once. */
class SlowStore extends StorageStore {
  requests = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** Called as each request starts, before it waits. */
  onRequest: (n: number) => void = () => {};
  delayMs = 0;

  constructor() {
    super(new MemoryStorage());
  }

  private async slow<T>(read: () => Promise<T>): Promise<T> {
    this.requests++;
    this.onRequest(this.requests);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, this.delayMs));
      return await read();
    } finally {
      this.inFlight--;
    }
  }

  override get(key: string): Promise<Uint8Array | undefined> {
    return this.slow(() => super.get(key));
  }

  override getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.slow(() => super.getRange(key, range));
  }

  reset(delayMs: number): void {
    Object.assign(this, { requests: 0, inFlight: 0, maxInFlight: 0, delayMs, onRequest: () => {} });
  }
}

const store = new SlowStore();
await weatherStore(store);

/** Strides that touch part of every one of the 12 shards: 12 index reads and many range reads. */
const scattered = (options: Parameters<typeof query>[1]) =>
  query(store, options).from('/temperature', 'float32').stride('time', 7).stride('lat', 4).stride('lon', 5);

describe('bounded query concurrency', () => {
  it('keeps at most `concurrency` requests in flight while planning and fetching', async () => {
    store.reset(3);
    const r = await scattered({ concurrency: 2 }).execute();
    expect(r.report.fetched.shardIndex.requests).toBe(12);
    expect(r.report.fetched.data.requests).toBeGreaterThan(12);
    expect(store.maxInFlight).toBe(2);
    store.reset(3);
    await scattered({ concurrency: 5 }).execute();
    expect(store.maxInFlight).toBe(5);
  });
});

describe('aborting a query', () => {
  it('starts no request after its signal fires and rejects with ABORTED, the reason as cause', async () => {
    store.reset(2);
    const controller = new AbortController();
    const reason = new Error('enough');
    store.onRequest = (n) => n === 6 && controller.abort(reason);
    const err = await scattered({ concurrency: 3, signal: controller.signal }).execute().catch((e: unknown) => e);
    expect(isFloeError(err, 'ABORTED') ? [err.details, err.cause] : err).toEqual([{ timedOut: false, reason: 'enough' }, reason]);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.requests).toBe(6);
  });

  it('is aborted by the HTTP timeout: 504, then no more requests', async () => {
    store.reset(0);
    const whole = await scattered({ concurrency: 1 }).execute();
    const needed = store.requests;
    expect(needed).toBe(whole.report.total.requests);
    store.reset(15);
    const server = createQueryServer(store, { timeoutMs: 150, concurrency: 1 });
    const base = await server.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`${base}/query`, {
        method: 'POST',
        body: JSON.stringify({ from: '/temperature', ops: [{ stride: ['time', 7] }, { stride: ['lat', 4] }, { stride: ['lon', 5] }] }),
      });
      expect(res.status).toBe(504);
      const atTimeout = store.requests;
      await new Promise((r) => setTimeout(r, 200));
      // The request in flight at the timeout may finish; nothing starts after it.
      expect(store.requests).toBe(atTimeout);
      expect(store.requests).toBeLessThan(needed);
    } finally {
      await server.close();
    }
  });
});
