// Cancelling plain Zarr reads and writes: an already-aborted signal touches nothing on any local
// backend; a long read aborted midway (or by AbortSignal.timeout) rejects promptly with ABORTED,
// starts no request afterwards and leaves no decode worker busy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { DecodePool } from '../../../src/engine/decode-pool.ts';
import { ZarrGroup } from '../../../src/engine/group.ts';
import { withFaults } from '../../../src/engine/storage/faults.ts';
import { FsStorage } from '../../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { SqliteStorage } from '../../../src/engine/storage/sqlite.ts';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { wrapStorage } from '../../../src/engine/storage/wrap.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-abort-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const backends: Record<string, () => ObjectStorage> = {
  memory: () => new MemoryStorage(),
  fs: () => new FsStorage({ root: mkdtempSync(path.join(dir, 'fs-')) }),
  sqlite: () => new SqliteStorage({ file: path.join(mkdtempSync(path.join(dir, 'sqlite-')), 'db') }),
};

const abortedSignal = () => {
  const controller = new AbortController();
  controller.abort(new Error('cancelled'));
  return controller.signal;
};

/** The rejection of `promise` and how long it took to come. */
async function failure(promise: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  const err = await promise.then(() => undefined, (e: unknown) => e);
  return { err, ms: performance.now() - started };
}

async function keysOf(storage: ObjectStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of storage.list('')) keys.push(info.key);
  return keys;
}

describe.each(Object.entries(backends))('an already-aborted signal on %s', (_name, makeStorage) => {
  it('rejects every array and group operation with ABORTED and writes nothing', async () => {
    const storage = makeStorage();
    const store = new StorageStore(storage);
    const array = await ZarrArray.create(store, '/a', { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 });
    await array.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    const before = await keysOf(storage);
    const signal = abortedSignal();
    const operations: [string, () => Promise<unknown>][] = [
      ['get', () => array.get(undefined, { signal })],
      ['set', () => array.set(undefined, 9, { signal })],
      ['partial set', () => array.set([1], 9, { signal })],
      ['resize', () => array.resize([4], { signal })],
      ['setAttributes', () => array.setAttributes({ a: 1 }, { signal })],
      ['open', () => ZarrArray.open(store, '/a', { signal })],
      ['create', () => ZarrArray.create(store, '/b', { shape: [2], chunkShape: [2], dataType: 'int8' }, { signal })],
      ['group create', () => ZarrGroup.create(store, '/g', { signal })],
      ['group children', async () => (await ZarrGroup.open(store, '/')).children({ signal })],
    ];
    for (const [what, run] of operations) {
      const { err } = await failure(run());
      expect(isFloeError(err, 'ABORTED') ? err.details : err, what).toEqual({ timedOut: false, reason: 'cancelled' });
    }
    expect(await keysOf(storage)).toEqual(before);
    expect(Array.from((await array.get()).data as Int32Array)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await storage.close();
  });
});

describe('aborting a long read midway', () => {
  /** 2,000 chunks whose every read takes 10 ms: about 2.5 s at concurrency 8 if not aborted. */
  async function slowArray(): Promise<{ array: ZarrArray; gets: () => number }> {
    const memory = new MemoryStorage();
    const setup = await ZarrArray.create(new StorageStore(memory), '/a', { shape: [2000], chunkShape: [1], dataType: 'int32', fillValue: 0 });
    await setup.set(undefined, Int32Array.from({ length: 2000 }, (_, i) => i + 1));
    let gets = 0;
    const counted = wrapStorage(memory, (call, run) => (call.operation === 'get' && gets++, run()));
    const slow = withFaults(counted, (call) => (call.operation === 'get' ? { kind: 'delay', ms: 10 } : undefined));
    return { array: await ZarrArray.open(new StorageStore(slow), '/a'), gets: () => gets };
  }

  it('rejects promptly, and no chunk request starts after the abort', async () => {
    const { array, gets } = await slowArray();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { err, ms } = await failure(array.get(undefined, { signal: controller.signal }));
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(false);
    expect(ms).toBeLessThan(1500);
    const atAbort = gets();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gets()).toBe(atAbort);
    expect(atAbort).toBeLessThan(2000);
  });

  it('AbortSignal.timeout gives ABORTED with timedOut', async () => {
    const { array } = await slowArray();
    const { err, ms } = await failure(array.get(undefined, { signal: AbortSignal.timeout(80) }));
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(true);
    expect(ms).toBeLessThan(1500);
  });

  it('sees a timeout fire during a read that never waits for I/O (in-memory storage, 20,000 chunks)', async () => {
    // Every await of this read resolves as a microtask; the read must still let the timer run.
    const store = new StorageStore(new MemoryStorage());
    const array = await ZarrArray.create(store, '/a', { shape: [20_000], chunkShape: [1], dataType: 'int32', fillValue: 0 });
    await array.set(undefined, Int32Array.from({ length: 20_000 }, (_, i) => i + 1));
    const started = performance.now();
    await array.get();
    const whole = performance.now() - started;
    const { err, ms } = await failure(array.get(undefined, { signal: AbortSignal.timeout(10) }));
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut, `a whole read took ${whole.toFixed(0)} ms`).toBe(true);
    expect(ms).toBeLessThan(Math.max(whole, 50));
  });

  it('leaves no decode worker busy: the pool drains and the next read succeeds', async () => {
    // 64 zstd chunks of 512 KiB (random values: they stay over the pool's 128 KiB threshold).
    const memory = new MemoryStorage();
    const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
    const setup = await ZarrArray.create(new StorageStore(memory), '/a', { shape: [64, 65536], chunkShape: [1, 65536], dataType: 'float64', codecs });
    const values = Float64Array.from({ length: 64 * 65536 }, () => Math.random());
    await setup.set(undefined, values);
    const slow = withFaults(memory, (call) => (call.operation === 'get' ? { kind: 'delay', ms: 20 } : undefined));
    const array = await ZarrArray.open(new StorageStore(slow), '/a');
    const pool = new DecodePool(2);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 60);
      const { err } = await failure(array.get(undefined, { signal: controller.signal, decodePool: pool, concurrency: 4 }));
      expect(isFloeError(err, 'ABORTED')).toBe(true);
      for (let i = 0; i < 100 && pool.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(pool.inFlight).toBe(0);
      const whole = await array.get(undefined, { decodePool: pool });
      expect((whole.data as Float64Array).buffer).toBeInstanceOf(SharedArrayBuffer); // read on the pool
      expect(Buffer.from((whole.data as Float64Array).buffer).equals(Buffer.from(values.buffer))).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
