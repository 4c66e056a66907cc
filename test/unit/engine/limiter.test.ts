// The one concurrency limiter (src/engine/storage/limiter.ts): mapLimit's bound, result order,
// stop on first failure and limit validation, and createLimiter's shared FIFO budget. Work is
// simulated with microtask yields, not timers, so the interleavings are deterministic.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { checkConcurrency, createLimiter, mapLimit } from '../../../src/engine/storage/limiter.ts';

/** Lets `turns` rounds of other promise callbacks run. */
async function yieldTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

const BAD_LIMITS = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];

describe('mapLimit', () => {
  it('keeps exactly min(limit, n) calls in flight and returns results in input order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(6), { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), async (turns, limit) => {
        let active = 0;
        let peak = 0;
        const results = await mapLimit(turns, limit, async (t, i) => {
          peak = Math.max(peak, ++active);
          await yieldTurns(t);
          active--;
          return i * 10 + t;
        });
        expect(results).toEqual(turns.map((t, i) => i * 10 + t));
        expect(peak).toBe(Math.min(limit, turns.length));
        expect(active).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('runs each item once, even when items finish out of order', async () => {
    const seen: number[] = [];
    await mapLimit([5, 0, 3, 1, 4, 2], 3, async (t, i) => {
      await yieldTurns(t);
      seen.push(i);
    });
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seen).not.toEqual([0, 1, 2, 3, 4, 5]); // the order of completion really differed
  });

  it('rejects with the first failure and starts no call once it has seen it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 8 }), fc.nat(29), async (n, limit, failAtRaw) => {
        const failAt = failAtRaw % n;
        let failed = false;
        let startedAfterFailure = 0;
        const run = mapLimit(Array.from({ length: n }, (_, i) => i), limit, async (i) => {
          if (failed) startedAfterFailure++;
          await yieldTurns(1 + (i % 3));
          if (i === failAt) {
            failed = true;
            throw new Error(`item ${i}`);
          }
          return i;
        });
        await expect(run).rejects.toThrow(`item ${failAt}`);
        await yieldTurns(10); // calls still running finish
        // A worker whose call settled in the same turn as the failing one may take one more item
        // before the failure reaches mapLimit; nothing starts after that.
        expect(startedAfterFailure).toBeLessThanOrEqual(limit - 1);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves the rest of a long list alone after an early failure', async () => {
    let started = 0;
    const run = mapLimit(Array.from({ length: 100 }, (_, i) => i), 4, async (i) => {
      started++;
      await yieldTurns(i === 0 ? 1 : 5);
      if (i === 0) throw new Error('first item failed');
    });
    await expect(run).rejects.toThrow('first item failed');
    await yieldTurns(20);
    expect(started).toBe(4); // the four first calls; the other 96 never start
  });

  it('calls nothing for an empty list', async () => {
    let calls = 0;
    expect(await mapLimit([], 4, async () => ++calls)).toEqual([]);
    expect(calls).toBe(0);
  });

  it('refuses a limit that is not a positive integer, before any call', async () => {
    for (const limit of BAD_LIMITS) {
      let calls = 0;
      const err = await mapLimit([1, 2], limit, async () => ++calls).catch((e: unknown) => e);
      expect(isFloeError(err, 'INVALID_ARGUMENT'), String(limit)).toBe(true);
      expect((err as Error).message).toContain('positive integer');
      expect(calls).toBe(0);
    }
  });
});

describe('createLimiter', () => {
  it('shares one budget between independent callers and serves waiters first in, first out', async () => {
    const limiter = createLimiter(2);
    const order: string[] = [];
    let peak = 0;
    const task = (name: string, turns: number) =>
      limiter.run(async () => {
        peak = Math.max(peak, limiter.active);
        order.push(name);
        await yieldTurns(turns);
        return name;
      });
    const runs = [task('a', 6), task('b', 1), task('c', 1), task('d', 1)];
    expect(limiter.active).toBe(2);
    expect(limiter.pending).toBe(2);
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    expect(peak).toBe(2);
    expect([limiter.active, limiter.pending]).toEqual([0, 0]);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.active).toBe(0);
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const limit of BAD_LIMITS) {
      expect(() => createLimiter(limit), String(limit)).toThrow(/concurrency limit must be a positive integer/);
    }
    expect(checkConcurrency(3, 'markConcurrency')).toBe(3);
    expect(() => checkConcurrency(0, 'markConcurrency')).toThrow(/markConcurrency must be a positive integer/);
  });
});
