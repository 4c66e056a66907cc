// The one concurrency limiter. `mapLimit` runs a known list with a fixed number of workers (the
// fast path: no promise per waiting item); `createLimiter` is a shared budget for calls that
// arrive one by one from many callers (a whole storage, see concurrency.ts). Never an unbounded
// Promise.all over user-sized lists.
import { floeError } from '../../errors.ts';
import { abortedError } from '../abort.ts';

/** Requests one operation keeps in flight when the caller sets no `concurrency`. */
export const DEFAULT_CONCURRENCY = 8;

/**
 * The same over HTTP, where each request mostly waits a round trip: 32 in flight (the HTTP
 * storage's own limit) keeps a 20 ms link busy (BENCHMARKS.md, issue 30).
 */
export const HTTP_CONCURRENCY = 32;

/** `limit` if it is a positive safe integer; otherwise INVALID_ARGUMENT naming the option. */
export function checkConcurrency(limit: number, name = 'concurrency'): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw floeError('INVALID_ARGUMENT', `${name} must be a positive integer (calls in flight at once), got ${limit}`);
  }
  return limit;
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order.
 * Rejects with the first failure, after which no new call starts (calls already running finish
 * unobserved). Throws `INVALID_ARGUMENT` unless `limit` is a positive integer.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  checkConcurrency(limit);
  const results = new Array<R>(items.length);
  // The workers share one cursor: each takes the next index synchronously, so none is run twice
  // (an index, not an iterator: no entry pair and result object per item).
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      // i < items.length: the element entries() would give (a hole reads undefined).
      const item = items[i] as T;
      try {
        results[i] = await fn(item, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A concurrency limiter made by {@link createLimiter}. */
export interface Limiter {
  readonly limit: number;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
  /**
   * Runs `task` when a slot is free (FIFO); settles as the task does. When `signal` fires while
   * it waits, it leaves the queue and rejects with `ABORTED`, never running `task`.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * A limiter running at most `limit` tasks at once, the rest waiting in FIFO order: one budget
 * shared by independent callers. For a list known up front, `mapLimit` (internal) is cheaper.
 * Throws `INVALID_ARGUMENT` unless `limit` is a positive integer.
 */
export function createLimiter(limit: number): Limiter {
  checkConcurrency(limit, 'concurrency limit');
  let active = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    active -= 1;
    const next = waiting.shift();
    if (next) {
      active += 1;
      next();
    }
  };

  return {
    limit,
    get active() {
      return active;
    },
    get pending() {
      return waiting.length;
    },
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) throw abortedError(signal);
      if (active < limit) active += 1;
      else await waitForSlot(waiting, signal); // slot handed over by release
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/** Queues `resume` until `release` hands it a slot; an abort takes it out of the queue. */
function waitForSlot(waiting: Array<() => void>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (!signal) return void waiting.push(resolve);
    const onAbort = () => {
      const at = waiting.indexOf(resume);
      if (at >= 0) waiting.splice(at, 1);
      reject(abortedError(signal));
    };
    const resume = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    waiting.push(resume);
  });
}

