// How long a commit that lost a compare-and-swap round waits before it tries again. Writers may be
// separate processes over S3 or a filesystem, so there is no queue to join; what fairness there is
// lies in each writer's own waits. The rule: the more rounds a commit has already lost, the sooner
// it retries. A first retry waits at most 1/32 of the attempt it lost (the attempt's duration
// scales the wait to the storage's latency); each further loss halves that ceiling, down to
// `initialMs`, so a commit that has lost a few rounds retries at once. The exponential backoff this
// replaces grew with attempts, so the commits that had waited longest were the latest to retry and
// every round took longer (64 writers: one commit lost 114 rounds, rounds ~0.57 s). Jitter stays,
// so writers that lost the same round do not retry in lockstep.
//
// Why so short a first wait: a longer one (a whole attempt, or an eighth of it) would let older
// commits through first, but in the race model (test/support/commit-race-model.ts) it bought
// nothing at 8–64 writers and cost 2-writer races 16–43% on p99: with two writers the loser's
// rival is the winner's next commit, and waiting only hands it that round too. What helps is
// that nobody who lost waits long: rounds get shorter, so every queue drains sooner.

/**
 * Waits between commit attempts ("seniority backoff"): after attempt `a` lost, a random delay in
 * [0, max(initialMs, min(maxMs, attemptMs / 32) / 2^(a−1))], `attemptMs` being how long the attempt
 * that lost took. The ceiling shrinks as attempts grow, so commits that lost more rounds retry sooner.
 */
export interface RetryBackoff {
  /** Smallest ceiling, ms: what a commit that lost many rounds waits at most. Default 2. */
  initialMs?: number;
  /** Largest ceiling, ms: a first retry waits at most this. Default 250. */
  maxMs?: number;
  /** Injectable for tests; default Math.random. The waits run on the repository's clock. */
  random?: () => number;
}

/** What the wait depends on: attempts made so far (≥ 1) and how long the last one took. */
export interface LostRound {
  attempt: number;
  /** Milliseconds from the start of the attempt that lost to its failure, on the commit's clock. */
  attemptMs: number;
}

export const DEFAULT_INITIAL_MS = 2;
export const DEFAULT_MAX_MS = 250;
/** The share of the lost attempt's duration a first retry waits at most. */
export const FIRST_RETRY_SHARE = 1 / 32;

/** The largest wait after `lost`: the random delay is uniform in [0, this]. */
export function retryCeilingMs(lost: LostRound, backoff: RetryBackoff = {}): number {
  const floor = Math.max(0, backoff.initialMs ?? DEFAULT_INITIAL_MS);
  const cap = Math.max(floor, backoff.maxMs ?? DEFAULT_MAX_MS);
  const first = Math.min(cap, Math.max(floor, finiteOrZero(lost.attemptMs) * FIRST_RETRY_SHARE));
  const halvings = Math.min(60, Math.max(0, Math.floor(lost.attempt) - 1));
  return Math.max(floor, first / 2 ** halvings);
}

/** The wait before the next attempt after `lost`. */
export function retryDelayMs(lost: LostRound, backoff: RetryBackoff = {}): number {
  const random = (backoff.random ?? Math.random)();
  return Math.min(1, Math.max(0, random)) * retryCeilingMs(lost, backoff);
}

const finiteOrZero = (x: number): number => (Number.isFinite(x) ? x : 0);
