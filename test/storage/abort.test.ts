// Cancellation in the storage layer: wrappers forward the caller's signal and stop waiting when
// it fires (retry backoff, a limiter slot, an injected delay), and the filesystem backend never
// leaves a temp file behind an aborted write. (The per-backend "already aborted" cases are in the
// contract, contract.ts, which every backend runs.)
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { withConcurrencyLimit } from '../../src/engine/storage/concurrency.ts';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { createLimiter } from '../../src/engine/storage/limiter.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';
import { transientError } from '../../src/engine/storage/transient.ts';
import type { AbortOptions } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';

const enc = (s: string) => new TextEncoder().encode(s);

/** The rejection of `promise` and how long it took to come. */
async function failure(promise: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  const err = await promise.then(() => undefined, (e: unknown) => e);
  return { err, ms: performance.now() - started };
}

describe('storage wrappers and a caller signal', () => {
  it('forward the signal to the backend with every request', async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const inner = new MemoryStorage();
    const recording = Object.assign(Object.create(inner) as MemoryStorage, {
      get: (key: string, range: undefined, options?: AbortOptions) => (seen.push(options?.signal), inner.get(key, range, options)),
      head: (key: string, options?: AbortOptions) => (seen.push(options?.signal), inner.head(key, options)),
      listDir: (prefix: string, options?: AbortOptions) => (seen.push(options?.signal), inner.listDir(prefix, options)),
    });
    const signal = new AbortController().signal;
    const wrapped = withRetries(withConcurrencyLimit(wrapStorage(recording, (_call, run) => run()), 2));
    await wrapped.get('a', undefined, { signal });
    await wrapped.head('a', { signal });
    await wrapped.listDir('', { signal });
    expect(seen).toEqual([signal, signal, signal]);
  });

  it('retries stop at once when the signal fires during a backoff', async () => {
    let attempts = 0;
    const failing = wrapStorage(new MemoryStorage(), async () => {
      attempts += 1;
      throw transientError('flaky', 'k', undefined);
    });
    // A 5 s backoff, aborted after 30 ms.
    const s = withRetries(failing, { maxAttempts: 10, baseDelayMs: 5000, maxDelayMs: 5000, random: () => 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const { err, ms } = await failure(s.get('k', undefined, { signal: controller.signal }));
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(ms).toBeLessThan(2000);
    expect(attempts).toBe(1);
  });

  it('retries do not retry a call whose signal fired while it ran', async () => {
    const controller = new AbortController();
    let attempts = 0;
    const failing = wrapStorage(new MemoryStorage(), async () => {
      attempts += 1;
      controller.abort();
      throw transientError('reset', 'k', undefined);
    });
    const { err } = await failure(withRetries(failing, { clock: new FakeClock() }).head('k', { signal: controller.signal }));
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(attempts).toBe(1);
  });

  it('a limiter drops a waiting task from its queue when its signal fires, never running it', async () => {
    const limiter = createLimiter(1);
    let release!: () => void;
    const blocker = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => void (ran = true), controller.signal);
    expect(limiter.pending).toBe(1);
    controller.abort();
    const { err } = await failure(waiting);
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(limiter.pending).toBe(0);
    release();
    await blocker;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
    // The slot it would have taken is free for the next task.
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('a storage with a concurrency limit rejects a call waiting for a slot', async () => {
    const slow = withFaults(new MemoryStorage(), () => ({ kind: 'delay', ms: 300 }));
    const limited = withConcurrencyLimit(slow, 1);
    const busy = limited.head('a');
    const controller = new AbortController();
    const waiting = limited.head('b', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const { err, ms } = await failure(waiting);
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(ms).toBeLessThan(250); // before the busy call ends
    expect(await busy).toBeNull();
  });

  it('an injected delay ends when the signal fires', async () => {
    const slow = withFaults(new MemoryStorage(), () => ({ kind: 'delay', ms: 10_000 }));
    const { err, ms } = await failure(slow.get('k', undefined, { signal: AbortSignal.timeout(50) }));
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(true);
    expect(ms).toBeLessThan(2000);
  });
});

describe('the filesystem backend and an aborted write', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  /** Every file under `dir`, relative, sorted. */
  const filesUnder = (dir: string): string[] =>
    (readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
      .filter((e) => e.isFile())
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
      .sort();

  it('aborted after its temp file was opened: the temp file is removed, nothing is written', async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-abort-'));
    const s = new FsStorage({ root });
    await s.put('d/k', enc('old'));
    const controller = new AbortController();
    // put runs synchronously up to opening its temp file; the abort lands before the first write.
    const write = s.put('d/k', enc('new'), { signal: controller.signal });
    controller.abort();
    const { err } = await failure(write);
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(filesUnder(root)).toEqual(['d/k']);
    const kept = await s.get('d/k');
    expect(kept && new TextDecoder().decode(kept.bytes)).toBe('old');
  });

  it('aborted while waiting for the key lock: rejects within a poll, no temp file left', async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-abort-'));
    const s = new FsStorage({ root, lock: { timeoutMs: 10_000 } });
    await s.put('k', enc('old'));
    // Another writer holds the key's lock (a fresh lock is never judged stale).
    writeFileSync(path.join(root, '.floe-lock.k'), '{}');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { err, ms } = await failure(s.put('k', enc('new'), { signal: controller.signal }));
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(ms).toBeLessThan(2000);
    expect(filesUnder(root)).toEqual(['.floe-lock.k', 'k']);
    const kept = await s.get('k');
    expect(kept && new TextDecoder().decode(kept.bytes)).toBe('old');
  });

  it("waiting for the key lock on the storage's clock: the abort ends the clock's sleep, which no time would end", async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-abort-'));
    const clock = new FakeClock({ startMs: Date.now(), autoAdvance: false }); // time stands still
    const s = new FsStorage({ root, clock, lock: { timeoutMs: 10_000 } });
    await s.put('k', enc('old'));
    writeFileSync(path.join(root, '.floe-lock.k'), '{}');
    const controller = new AbortController();
    const write = s.put('k', enc('new'), { signal: controller.signal });
    for (let i = 0; i < 100 && clock.pendingSleeps === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.pendingSleeps).toBe(1); // polling the lock, on the fake clock
    controller.abort('stop');
    const settled = await Promise.race([failure(write), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 2000))]);
    expect(settled !== 'hung' && isFloeError(settled.err, 'ABORTED') ? settled.err.details : settled).toEqual({ timedOut: false, reason: 'stop' });
    expect(clock.pendingSleeps).toBe(0);
    expect(filesUnder(root)).toEqual(['.floe-lock.k', 'k']);
  });

  it('a new object aborted midway leaves no directory behind', async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-abort-'));
    const s = new FsStorage({ root });
    const controller = new AbortController();
    const write = s.put('fresh/dir/k', enc('new'), { signal: controller.signal });
    controller.abort();
    expect(isFloeError((await failure(write)).err, 'ABORTED')).toBe(true);
    expect(readdirSync(root)).toEqual([]);
  });
});
