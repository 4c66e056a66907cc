// The commit retry policy (src/txn/retry-policy.ts): the wait after a lost round shrinks with the
// rounds already lost, scaled by how long the lost attempt took on the commit's clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { ConflictDetector, Repository, type ConflictSolver, type Resolution, type SolveInput } from '../../src/txn/index.ts';
import { retryCeilingMs, retryDelayMs } from '../../src/txn/retry-policy.ts';
import { createArray, createGroup, writeChunk } from './conflict-fixtures.ts';

describe('retry policy', () => {
  it('a first retry waits at most 1/32 of the lost attempt, halving with every further loss', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryCeilingMs({ attempt, attemptMs: 3200 }));
    // 3200 / 32 = 100, then 50, 25, 12.5, 6.25, 3.125, and the 2 ms floor.
    expect(ceilings).toEqual([100, 50, 25, 12.5, 6.25, 3.125, 2]);
  });

  it('caps the first ceiling at maxMs and never goes under initialMs', () => {
    expect(retryCeilingMs({ attempt: 1, attemptMs: 60_000 })).toBe(250);
    expect(retryCeilingMs({ attempt: 2, attemptMs: 60_000 }, { maxMs: 1000 })).toBe(500);
    expect(retryCeilingMs({ attempt: 1, attemptMs: 0 })).toBe(2);
    expect(retryCeilingMs({ attempt: 1, attemptMs: 0 }, { initialMs: 5 })).toBe(5);
    expect(retryCeilingMs({ attempt: 40, attemptMs: 1e9 }, { initialMs: 1, maxMs: 64 })).toBe(1);
  });

  it('treats a clock that went backwards or a non-number as an attempt that took no time', () => {
    expect(retryCeilingMs({ attempt: 1, attemptMs: -500 })).toBe(2);
    expect(retryCeilingMs({ attempt: 1, attemptMs: Number.NaN })).toBe(2);
    expect(retryCeilingMs({ attempt: Number.POSITIVE_INFINITY, attemptMs: 400 })).toBe(2);
  });

  it('draws the delay uniformly under the ceiling with the injected random', () => {
    expect(retryDelayMs({ attempt: 1, attemptMs: 3200 }, { random: () => 0 })).toBe(0);
    expect(retryDelayMs({ attempt: 1, attemptMs: 3200 }, { random: () => 0.5 })).toBe(50);
    expect(retryDelayMs({ attempt: 2, attemptMs: 3200 }, { random: () => 1 })).toBe(50);
    // A random source outside [0, 1) is clamped rather than trusted.
    expect(retryDelayMs({ attempt: 1, attemptMs: 3200 }, { random: () => 7 })).toBe(100);
    expect(retryDelayMs({ attempt: 1, attemptMs: 3200 }, { random: () => -1 })).toBe(0);
  });

  it('never waits longer after more losses, and a commit waits at most 2·maxMs + attempts·initialMs in all', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 80 }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 5000, noNaN: true }),
        (attemptMs, initialMs, maxMs) => {
          const backoff = { initialMs, maxMs, random: () => 1 };
          let total = 0;
          attemptMs.forEach((ms, i) => {
            const ceiling = retryCeilingMs({ attempt: i + 1, attemptMs: ms }, backoff);
            const sameDurationLater = retryCeilingMs({ attempt: i + 2, attemptMs: ms }, backoff);
            expect(sameDurationLater).toBeLessThanOrEqual(ceiling);
            expect(ceiling).toBeGreaterThanOrEqual(initialMs);
            total += retryDelayMs({ attempt: i + 1, attemptMs: ms }, backoff);
          });
          expect(total).toBeLessThanOrEqual(2 * Math.max(initialMs, maxMs) + attemptMs.length * initialMs + 1e-9);
        },
      ),
      { numRuns: Number(process.env.FLOE_RETRY_POLICY_RUNS ?? 300) },
    );
  });
});

describe('the commit loop applies the policy on the repository clock', () => {
  it('measures each lost attempt on the clock and waits 1/32 of it, then half as long each round', async () => {
    const REQUEST_MS = 7;
    const clock = new FakeClock();
    // Every request takes 7 ms of this clock, so an attempt's duration is 7 ms × its requests.
    const storage = wrapStorage(new MemoryStorage(), async (_call, run) => {
      await clock.sleep(REQUEST_MS);
      return run();
    });
    const repo = await Repository.create(storage, {}, 2, {}, { clock });
    const setup = await repo.writableSession('main');
    await createGroup(setup.store, '/');
    await createArray(setup.store, '/a');
    await setup.commit('base');

    const ours = await repo.writableSession('main');
    await writeChunk(ours.store, '/a', 0, 3);
    // During every rebase another writer commits, so every attempt of ours loses its round.
    let interlopers = 0;
    const busy: ConflictSolver = {
      async solve(input: SolveInput): Promise<Resolution> {
        interlopers++;
        const s = await repo.writableSession('main');
        await writeChunk(s.store, '/a', 1, 100 + interlopers);
        await s.commit(`interloper ${interlopers}`);
        return new ConflictDetector().solve(input);
      },
    };
    const other = await repo.writableSession('main');
    await writeChunk(other.store, '/a', 1, 99);
    await other.commit('first mover');
    const before = clock.sleeps.length;
    const err = await ours.commit('ours', { rebaseWith: busy, rebaseTries: 4, retryBackoff: { random: () => 1, initialMs: 0.001, maxMs: 10_000 } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved' } });
    const backoffs = clock.sleeps.slice(before).filter((ms) => ms !== REQUEST_MS);
    expect(backoffs).toHaveLength(3);
    const [first, second, third] = backoffs as [number, number, number];
    // Each attempt is a whole number of requests, and a first retry waits 1/32 of it.
    expect(first).toBeGreaterThan(REQUEST_MS / 32);
    expect((first * 32) % REQUEST_MS).toBe(0);
    // A retry makes other requests than a first attempt (it swaps against the repo info its lost
    // round fetched, with no HEAD first), but the same as the next retry: each wait is 1/32 of a
    // whole number of requests, halved once per earlier loss, so the third is half the second.
    expect((second * 2 * 32) % REQUEST_MS).toBe(0);
    expect((third * 4 * 32) % REQUEST_MS).toBe(0);
    expect(third).toBeCloseTo(second / 2, 9);
  });
});
