// A small concurrency limiter: at most `limit` tasks run at once, the rest wait in FIFO order.
import { floeError } from '../../errors.ts';
import { abortedError } from '../abort.ts';

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
 * A limiter running at most `limit` tasks at once, the rest waiting in FIFO order.
 * Throws `INVALID_ARGUMENT` unless `limit` is a positive integer.
 */
export function createLimiter(limit: number): Limiter {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw floeError('INVALID_ARGUMENT', `concurrency limit must be a positive integer, got ${limit}`);
  }
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

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const limiter = createLimiter(limit);
  return Promise.all(items.map((item, index) => limiter.run(() => fn(item, index))));
}
