// Retries with exponential backoff and full jitter for transient failures (see transient.ts).
// A failed precondition is never retried: the caller must re-read and decide, and neither is a
// call whose signal fired: the backoff ends at once and the call rejects with ABORTED. A server's
// Retry-After (an HTTP backend's `details.retryAfterMs`) is honoured: the wait is at least that,
// and a server asking for longer than `maxRetryAfterMs` gets no retry (its error is thrown).
import { floeError, isFloeError } from '../../errors.ts';
import { abortedOr, sleepAbortably } from '../abort.ts';
import { systemClock, type Clock } from './clock.ts';
import { isTransientError } from './transient.ts';
import type { ObjectStorage } from './types.ts';
import { wrapStorage, type StorageCall } from './wrap.ts';

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 4; 1 disables retries. */
  maxAttempts?: number;
  /** Delay cap before the second attempt; doubles each time. Default 50 ms. */
  baseDelayMs?: number;
  /** Largest delay between two attempts. Default 2 000 ms. */
  maxDelayMs?: number;
  /** Longest Retry-After a retry waits for; a longer one ends the retries. Default 30 000 ms. */
  maxRetryAfterMs?: number;
  /** Which failures to retry. Default: transient STORAGE_ERROR and TIMEOUT. */
  isRetryable?: (err: unknown, call: StorageCall) => boolean;
  /** Injectable for tests. */
  random?: () => number;
  /** Waits between attempts with `clock.sleep`. Default: the system clock. */
  clock?: Clock;
  /** Called before each retry (logging, stats). */
  onRetry?: (info: { call: StorageCall; attempt: number; delayMs: number; error: unknown }) => void;
}

/**
 * Wraps a storage so transient failures are retried with exponential backoff and full jitter.
 * A failed precondition is never retried. Throws `INVALID_ARGUMENT` for a bad `maxAttempts`.
 */
export function withRetries(inner: ObjectStorage, options: RetryOptions = {}): ObjectStorage {
  const maxAttempts = options.maxAttempts ?? 4;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw floeError('INVALID_ARGUMENT', `maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  const base = options.baseDelayMs ?? 50;
  const cap = options.maxDelayMs ?? 2000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 30_000;
  const retryable = options.isRetryable ?? ((err: unknown) => isTransientError(err));
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;

  return wrapStorage(inner, async (call, run) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (call.signal?.aborted) throw abortedOr(err, call.signal, call.key);
        const asked = retryAfterOf(err);
        const giveUp = attempt >= maxAttempts || isFloeError(err, 'PRECONDITION_FAILED') || !retryable(err, call) || asked > maxRetryAfter;
        if (giveUp) throw err;
        const delayMs = Math.max(asked, Math.round(random() * Math.min(cap, base * 2 ** (attempt - 1))));
        options.onRetry?.({ call, attempt, delayMs, error: err });
        await sleepAbortably(clock, delayMs, call.signal, call.key);
      }
    }
  });
}

/** The wait a server asked for (an HTTP backend's Retry-After), 0 when none. */
function retryAfterOf(err: unknown): number {
  return isFloeError(err, 'STORAGE_ERROR') ? (err.details.retryAfterMs ?? 0) : 0;
}
