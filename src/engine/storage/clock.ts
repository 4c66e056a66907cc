// The one source of time: every decision that depends on the wall clock (timestamps written,
// lock staleness, cutoffs, deadlines) and every wait that shapes behaviour (retry backoff, lock
// polling) goes through a Clock passed in options, so tests drive time instead of sleeping.

/**
 * Injected time. Storages, wrappers and repositories take one in their options (default
 * {@link systemClock}); `FakeClock` from `floe/testing` is a virtual one for tests.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
  /**
   * Resolves after `ms` milliseconds of this clock's time. When `signal` aborts first it rejects
   * with `signal.reason` (at once if it is already aborted).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  sleep: (ms, signal) => {
    if (!signal) return new Promise<void>((resolve) => setTimeout(resolve, ms));
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
};
