// A small concurrency limiter: at most `limit` tasks run at once, the rest wait in FIFO order.
import { floeError } from '../../errors.ts';

/** A concurrency limiter made by {@link createLimiter}. */
export interface Limiter {
  readonly limit: number;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
  /** Runs `task` when a slot is free (FIFO); settles as the task does. */
  run<T>(task: () => Promise<T>): Promise<T>;
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
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < limit) active += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve)); // slot handed over by release
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const limiter = createLimiter(limit);
  return Promise.all(items.map((item, index) => limiter.run(() => fn(item, index))));
}
