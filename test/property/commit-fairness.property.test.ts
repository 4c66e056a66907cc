// No writer starves: N writers committing C times each to one branch, in the race model
// (test/support/commit-race-model.ts) with the commit path's retry policy.
//
// The bound on attempts, derived: an attempt loses only when another commit landed between its
// read of the tip and its compare-and-swap; after losing, the commit rebases onto the tip it
// learned, so its next loss needs a landing it has not seen yet. Each lost round is therefore a
// distinct commit of another writer (a writer's own commits run one after another), landed while
// this commit was running — at most (N − 1)·C of them. So a commit needs at most (N − 1)·C + 1
// attempts, whatever the timing: with that as the attempt limit no commit may ever give up.
// The policy adds a bound on waiting: each ceiling is at most max(initialMs, maxMs·2^(1−a)), so a
// commit sleeps at most 2·maxMs + attempts·initialMs in all; the rest of its time is other
// writers' progress.
//
// Fairness is compared with the policy this replaced (full jitter growing 2, 4, … 250 ms with
// attempts) on the same seeds: losers no longer wait longer than fresh commits, so rounds are
// shorter (commits/s up), the slowest commits finish sooner (p99 down) and the slowest writer is
// closer to the median one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INITIAL_MS, DEFAULT_MAX_MS, retryDelayMs, type LostRound } from '../../src/txn/retry-policy.ts';
import { runRace, summarize, type RaceModel, type RaceSummary } from '../support/commit-race-model.ts';

const RUNS = Number(process.env.FLOE_COMMIT_FAIRNESS_RUNS ?? 60);

const policy = (lost: LostRound, random: () => number) => retryDelayMs(lost, { random });
/** The exponential backoff of before: full jitter up to min(250, 2·2^(attempt−1)) ms. */
const growingBackoff = (lost: LostRound, random: () => number) => random() * Math.min(250, 2 * 2 ** Math.min(30, lost.attempt - 1));

/** 50 ± 10 ms per request, a session write of 4 chunks: bench/scale-writers.ts's set-up. */
const benchLike = (writers: number, seed: number, delay: RaceModel['delay']): RaceModel => ({
  writers, commitsPerWriter: 2, latencyMs: 50, jitterMs: 10, prepRequests: 4, buildRequests: 2, maxAttempts: 1000, delay, seed,
});

function mean(writers: number, delay: RaceModel['delay'], seeds: number): RaceSummary & { finishRatio: number } {
  const runs = Array.from({ length: seeds }, (_, i) => summarize(runRace(benchLike(writers, i + 1, delay))));
  const avg = (f: (s: RaceSummary) => number) => runs.reduce((sum, s) => sum + f(s), 0) / runs.length;
  return {
    commitsPerSecond: avg((s) => s.commitsPerSecond),
    p50Ms: avg((s) => s.p50Ms),
    p99Ms: avg((s) => s.p99Ms),
    maxAttempts: Math.max(...runs.map((s) => s.maxAttempts)),
    slowestFinishMs: avg((s) => s.slowestFinishMs),
    medianFinishMs: avg((s) => s.medianFinishMs),
    finishRatio: avg((s) => s.slowestFinishMs / s.medianFinishMs),
  };
}

describe('commit fairness (race model)', () => {
  it('every commit lands within (N − 1)·C + 1 attempts and waits at most 2·maxMs + attempts·initialMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 0, max: 6 }),
        (writers, commitsPerWriter, seed, latencyMs, prepRequests) => {
          const bound = (writers - 1) * commitsPerWriter + 1;
          const result = runRace({
            writers, commitsPerWriter, latencyMs, jitterMs: latencyMs / 4, prepRequests, buildRequests: 2, maxAttempts: bound, delay: policy, seed,
          });
          expect(result.gaveUp).toBe(0);
          expect(result.commits).toHaveLength(writers * commitsPerWriter);
          // Every landing took the next position: nothing was lost or landed twice.
          expect(result.commits.map((c) => c.position)).toEqual(Array.from({ length: writers * commitsPerWriter }, (_, i) => i + 1));
          for (const c of result.commits) {
            const othersMeanwhile = result.commits.filter((o) => o.writer !== c.writer && o.landedMs > c.baseReadMs && o.landedMs <= c.landedMs).length;
            expect(c.attempts - 1).toBeLessThanOrEqual(othersMeanwhile);
            expect(c.waitedMs).toBeLessThanOrEqual(2 * DEFAULT_MAX_MS + c.attempts * DEFAULT_INITIAL_MS);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the bound is tight: some commit does need (N − 1)·C + 1 attempts, so a lower limit would fail a writer', () => {
    const writers = 16;
    const worst = Math.max(...Array.from({ length: 5 }, (_, i) => summarize(runRace(benchLike(writers, i + 1, policy))).maxAttempts));
    expect(worst).toBeLessThanOrEqual((writers - 1) * 2 + 1);
    expect(worst).toBeGreaterThanOrEqual((writers - 1) * 2 - 1);
  });

  it('at 16–64 writers: more commits/s, a lower p99 and a slowest writer nearer the median than growing backoff', () => {
    for (const writers of [16, 64]) {
      const before = mean(writers, growingBackoff, 5);
      const after = mean(writers, policy, 5);
      expect(after.commitsPerSecond).toBeGreaterThan(before.commitsPerSecond * 1.08);
      expect(after.p99Ms).toBeLessThan(before.p99Ms * 0.9);
      expect(after.slowestFinishMs).toBeLessThan(before.slowestFinishMs * 0.92);
      expect(after.finishRatio).toBeLessThan(before.finishRatio - 0.2);
    }
  });

  it('at 2–4 writers: no worse than growing backoff (within the spread of eight seeds)', () => {
    for (const writers of [2, 4]) {
      const before = mean(writers, growingBackoff, 8);
      const after = mean(writers, policy, 8);
      expect(after.commitsPerSecond).toBeGreaterThan(before.commitsPerSecond * 0.97);
      expect(after.p99Ms).toBeLessThan(before.p99Ms * 1.05);
    }
  });

  it('replays exactly: one seed, one outcome', () => {
    const a = runRace(benchLike(12, 42, policy));
    const b = runRace(benchLike(12, 42, policy));
    expect(b).toEqual(a);
  });
});
