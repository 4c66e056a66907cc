// A model of N writers committing to one branch through the repo info's compare-and-swap, on a
// virtual clock, for testing the retry policy (src/txn/retry-policy.ts) at sizes and seeds a real
// run cannot afford. It follows the commit path's steps in storage requests, each taking
// latency ± jitter: a fresh commit opens its session (reads the tip: its base) and does its own
// work, then every attempt writes its objects, reads the repo info (HEAD), and when the tip is
// still its base backs the file up and swaps it; a lost attempt learns the new tip (GET), waits
// what the policy says, and rebases (a HEAD, then one transaction log per commit it replays; the
// snapshots and manifests were loaded during the wait). Deterministic: one seeded generator per
// writer draws its latencies and its policy's randomness, and equal times resolve in a fixed order.
import type { LostRound } from '../../src/txn/retry-policy.ts';
import { seededRandom as seeded } from '../../src/format/seeded-random.ts';

export interface RaceModel {
  writers: number;
  commitsPerWriter: number;
  latencyMs: number;
  jitterMs: number;
  /** Requests of a fresh commit before its first attempt, after the session read the tip. */
  prepRequests: number;
  /** Requests of one attempt before it reads the repo info (manifests, log and snapshot). */
  buildRequests: number;
  /** Attempts per commit before it gives up (rebaseTries). */
  maxAttempts: number;
  /** The wait after a lost attempt. */
  delay: (lost: LostRound, random: () => number) => number;
  seed: number;
}

export interface CommitOutcome {
  writer: number;
  /** When its session read the tip it starts from. */
  baseReadMs: number;
  /** When its first attempt began (the commit call; its latency runs from here). */
  startedMs: number;
  landedMs: number;
  attempts: number;
  /** Total time this commit spent in the policy's waits. */
  waitedMs: number;
  /** Branch position it landed at (1 = the first commit). */
  position: number;
}

export interface RaceResult {
  commits: CommitOutcome[];
  /** When each writer finished its last commit (ms from the common start). */
  finishMs: number[];
  /** Commits that ran out of attempts. */
  gaveUp: number;
}

type Step = { kind: 'request' } | { kind: 'sleep'; ms: number };

export { seeded };

interface Branch {
  tip: number;
}

export function runRace(model: RaceModel): RaceResult {
  const branch: Branch = { tip: 0 };
  const clock = { now: 0 };
  const result: RaceResult = { commits: [], finishMs: new Array<number>(model.writers).fill(0), gaveUp: 0 };
  const writers = Array.from({ length: model.writers }, (_, w) => writerSteps(w, model, branch, clock, result));
  const due: { at: number; writer: number }[] = [];
  const randoms = Array.from({ length: model.writers }, (_, w) => seeded(model.seed * 7919 + w + 1));
  const advance = (w: number): void => {
    const writer = writers[w];
    const random = randoms[w];
    if (!writer || !random) return;
    const step = writer.next();
    if (step.done) return;
    const span = step.value.kind === 'sleep' ? step.value.ms : model.latencyMs + (2 * random() - 1) * model.jitterMs;
    insertDue(due, { at: clock.now + Math.max(0, span), writer: w });
  };
  for (let w = 0; w < model.writers; w++) advance(w);
  for (let guard = 0; due.length > 0; guard++) {
    if (guard > 50_000_000) throw new Error('race model did not finish');
    const next = due.shift();
    if (!next) break;
    clock.now = next.at;
    advance(next.writer);
  }
  return result;

  function* writerSteps(w: number, m: RaceModel, b: Branch, c: { now: number }, out: RaceResult): Generator<Step, void, void> {
    const random = seeded(m.seed * 104729 + w + 7);
    for (let k = 0; k < m.commitsPerWriter; k++) {
      yield { kind: 'request' }; // the session reads the tip
      const baseReadMs = c.now;
      let base = b.tip;
      for (let i = 0; i < m.prepRequests; i++) yield { kind: 'request' };
      const startedMs = c.now;
      let waitedMs = 0;
      for (let attempt = 1; ; attempt++) {
        const attemptStart = c.now;
        for (let i = 0; i < m.buildRequests; i++) yield { kind: 'request' };
        yield { kind: 'request' }; // HEAD of the repo info
        if (b.tip === base) {
          const seen = b.tip;
          yield { kind: 'request' }; // backup
          yield { kind: 'request' }; // compare-and-swap
          if (b.tip === seen) {
            b.tip++;
            out.commits.push({ writer: w, baseReadMs, startedMs, landedMs: c.now, attempts: attempt, waitedMs, position: b.tip });
            break;
          }
          yield { kind: 'request' }; // the lost swap's HEAD
        }
        yield { kind: 'request' }; // GET: the new tip
        const learned = b.tip;
        if (attempt >= m.maxAttempts) {
          out.gaveUp++;
          break;
        }
        const ms = m.delay({ attempt, attemptMs: c.now - attemptStart }, random);
        waitedMs += ms;
        yield { kind: 'sleep', ms };
        yield { kind: 'request' }; // the rebase's HEAD
        for (let i = base; i < learned; i++) yield { kind: 'request' }; // a transaction log per replayed commit
        base = learned;
      }
    }
    out.finishMs[w] = c.now;
  }
}

/** Keeps `due` sorted by time; equal times keep insertion order, so runs replay exactly. */
function insertDue(due: { at: number; writer: number }[], item: { at: number; writer: number }): void {
  let lo = 0;
  let hi = due.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = due[mid]?.at ?? Number.POSITIVE_INFINITY;
    if (at <= item.at) lo = mid + 1;
    else hi = mid;
  }
  due.splice(lo, 0, item);
}

export interface RaceSummary {
  commitsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxAttempts: number;
  slowestFinishMs: number;
  medianFinishMs: number;
}

export function summarize(result: RaceResult): RaceSummary {
  const latencies = result.commits.map((c) => c.landedMs - c.startedMs).sort((a, b) => a - b);
  const finish = [...result.finishMs].sort((a, b) => a - b);
  const slowest = finish[finish.length - 1] ?? 0;
  return {
    commitsPerSecond: result.commits.length / (slowest / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxAttempts: Math.max(0, ...result.commits.map((c) => c.attempts)),
    slowestFinishMs: slowest,
    medianFinishMs: percentile(finish, 50),
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at] ?? Number.NaN;
}
