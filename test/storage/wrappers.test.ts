import { describe, expect, it } from 'vitest';
import { floeError, isFloeError } from '../../src/errors.ts';
import { withConcurrencyLimit } from '../../src/engine/storage/concurrency.ts';
import { randomFaults, withFaults } from '../../src/engine/storage/faults.ts';
import { createLimiter } from '../../src/engine/storage/limiter.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { withRetries } from '../../src/engine/storage/retries.ts';
import { withTimeouts } from '../../src/engine/storage/timeouts.ts';
import { transientError } from '../../src/engine/storage/transient.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { collect, defineStorageContract, expectCode } from './contract.ts';
import { defineModelTest } from './model.ts';

const enc = (s: string) => new TextEncoder().encode(s);

/** Retries over a storage that fails 30% of calls before they act must look like a plain storage. */
const flakyButRetried = async () => ({
  storage: withRetries(withFaults(new MemoryStorage(), randomFaults(0.3, 7)), { maxAttempts: 12, clock: new FakeClock() }),
});
defineStorageContract('memory with injected faults and retries', flakyButRetried);

describe('storage wrappers', () => {
  defineModelTest('memory with injected faults and retries', flakyButRetried, { numRuns: 100, maxCommands: 40 });

  it('retries transient failures with growing, jittered delays on its clock, then gives up', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const failing = wrapStorage(new MemoryStorage(), async () => {
      calls += 1;
      throw transientError('flaky', 'k', undefined);
    });
    const s = withRetries(failing, { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300, random: () => 1, clock });
    await expectCode(s.get('k'), 'STORAGE_ERROR');
    expect(calls).toBe(5);
    expect(clock.sleeps).toEqual([100, 200, 300, 300]);
    expect(clock.nowMs()).toBe(Date.UTC(2030, 0, 1) + 900); // the waits passed on the clock, not in real time
  });

  it('never retries a failed precondition or a permanent error', async () => {
    const inner = new MemoryStorage();
    let puts = 0;
    const counting = wrapStorage(inner, async (call, run) => {
      if (call.operation === 'put') puts += 1;
      return run();
    });
    const s = withRetries(counting, { clock: new FakeClock() });
    await s.put('k', enc('1'));
    await expectCode(s.put('k', enc('2'), { ifNoneMatch: '*' }), 'PRECONDITION_FAILED');
    expect(puts).toBe(2);
    let gets = 0;
    const broken = withRetries(wrapStorage(inner, async () => {
      gets += 1;
      throw floeError('STORAGE_ERROR', 'disk on fire');
    }), { clock: new FakeClock() });
    await expectCode(broken.get('k'), 'STORAGE_ERROR');
    expect(gets).toBe(1);
  });

  it('resumes a listing that failed midway after the last key it yielded', async () => {
    const inner = new MemoryStorage();
    const keys = Array.from({ length: 50 }, (_, i) => `p/${String(i).padStart(3, '0')}`);
    for (const k of keys) await inner.put(k, enc(k));
    // Two item fetches fail before they act; the retry re-lists and skips what was yielded.
    const s = withRetries(withFaults(inner, (call, n) => (call.operation === 'list' && (n === 10 || n === 31) ? { kind: 'fail-before' } : undefined)), { clock: new FakeClock() });
    expect((await collect(s.list('p/'))).map((o) => o.key)).toEqual(keys);
  });

  it('reports a lost answer as an error although the write happened (fail-after)', async () => {
    const inner = new MemoryStorage();
    const s = withFaults(inner, (call) => (call.operation === 'put' ? { kind: 'fail-after' } : undefined));
    let error: unknown;
    await s.put('k', enc('x')).catch((err: unknown) => (error = err));
    expect(isFloeError(error, 'STORAGE_ERROR')).toBe(true);
    expect(await inner.get('k')).not.toBeNull();
  });

  it('times out slow calls with TIMEOUT', async () => {
    const slow = withFaults(new MemoryStorage(), () => ({ kind: 'delay', ms: 200 }));
    const s = withTimeouts(slow, { timeoutMs: 20, perOperation: { head: 1000 } });
    await expectCode(s.get('k'), 'TIMEOUT');
    expect(await s.head('k')).toBeNull();
  });

  it('bounds the calls in flight', async () => {
    let active = 0;
    let peak = 0;
    const tracking: ObjectStorage = wrapStorage(new MemoryStorage(), async (_call, run) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 2));
      try {
        return await run();
      } finally {
        active -= 1;
      }
    });
    const s = withConcurrencyLimit(tracking, 3);
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.put(`k${i}`, enc('x'))));
    expect(peak).toBe(3);
    expect(() => createLimiter(0)).toThrow(/positive integer/);
  });
});
