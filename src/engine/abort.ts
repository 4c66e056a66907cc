// Cancellation. Every public async operation that does I/O takes `{ signal }` in its options and
// passes it down, unchanged, to its storage requests (one options object per operation, never one
// per chunk). Whichever layer notices first that the signal fired — before a step, while waiting
// (a lock, a retry's backoff, a limiter slot, a delay) or inside a request — throws ABORTED made
// here, so a caller sees one code however far down the cancellation was noticed, and a timeout
// (`AbortSignal.timeout(ms)`) is told apart by `details.timedOut`.
import { floeError, isFloeError, type FloeError } from '../errors.ts';
import type { Clock } from './storage/clock.ts';
import type { AbortOptions } from './storage/types.ts';
import { yieldToHost } from '../platform/host.ts';

/**
 * The options an operation passes to every storage or store call: only its signal (a caller's
 * options object holds the call's own settings too), made once per operation, none without one.
 */
export function requestOf(options: AbortOptions | undefined): AbortOptions | undefined {
  return options?.signal ? { signal: options.signal } : undefined;
}

/**
 * `options` without its signal: what an object keeps for later calls (a group's defaults for its
 * children), since a signal belongs to the one call it was passed to.
 */
export function withoutSignal<T extends AbortOptions>(options: T): Omit<T, 'signal'> {
  const { signal: _signal, ...rest } = options;
  return rest;
}

/** The `ABORTED` error for a signal that fired: its reason is the error's `cause`. */
export function abortedError(signal: AbortSignal, where?: string): FloeError<'ABORTED'> {
  const reason: unknown = signal.reason;
  const timedOut = isTimeoutReason(reason);
  const text = reasonText(reason);
  const message = timedOut ? 'the operation was aborted: its deadline passed' : 'the operation was aborted by its caller';
  return floeError('ABORTED', text ? `${message} (${text})` : message, {
    where,
    cause: reason,
    details: text ? { timedOut, reason: text } : { timedOut },
  });
}

/** How often work that never waits for I/O lets the event loop run while a signal is set. */
const YIELD_INTERVAL_MS = 20;
let lastYield = 0;

/**
 * Whether a loop with a signal should let the event loop run now (then `await yieldToEventLoop()`):
 * true at most every 20 ms. Work over synchronous local storage or in-memory stores resolves
 * every await as a microtask, and microtasks alone never let a timer, a SIGINT handler or any
 * other event fire, so without this an abort would not be seen until the work is done. Without a
 * signal it is false at once (nothing can abort: no cost on that path).
 */
export function yieldDue(signal: AbortSignal | undefined): boolean {
  if (!signal) return false;
  const now = performance.now();
  if (now - lastYield < YIELD_INTERVAL_MS) return false;
  lastYield = now;
  return true;
}

/** Resolves after the event loop ran once (timers, I/O and signal handlers included). */
export function yieldToEventLoop(): Promise<void> {
  return yieldToHost();
}

/** Throws `ABORTED` when `signal` has fired; a property read otherwise, cheap enough per chunk. */
export function throwIfAborted(signal: AbortSignal | undefined, where?: string): void {
  if (signal?.aborted) throw abortedError(signal, where);
}

/**
 * `err`, or `ABORTED` when the signal fired: a backend, the AWS SDK or a worker may fail with an
 * error of its own (an AbortError, a closed socket) because the signal fired.
 */
export function abortedOr(err: unknown, signal: AbortSignal | undefined, where?: string): unknown {
  return signal?.aborted && !isFloeError(err, 'ABORTED') ? abortedError(signal, where) : err;
}

/**
 * Settles as `promise` does, or rejects with `ABORTED` as soon as `signal` fires. The work behind
 * `promise` is not stopped, only no longer waited for: for work shared with other callers (a
 * cached load several readers joined) or that must finish once started. However many of these
 * wait on one signal (a read waiting for a hundred manifests), the signal carries one listener,
 * removed when the last of them settles.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined, where?: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined); // nobody waits for it any more
    return Promise.reject(abortedError(signal, where));
  }
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = onAbort(signal, () => reject(abortedError(signal, where)));
    promise.then(
      (value) => {
        stopWaiting();
        resolve(value);
      },
      (err: unknown) => {
        stopWaiting();
        reject(err);
      },
    );
  });
}

/** The callbacks waiting on a signal, and the one listener that calls them. */
interface AbortWaiters {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}
const waiting = new WeakMap<AbortSignal, AbortWaiters>();

/**
 * Calls `callback` once when `signal` fires, through one 'abort' listener per signal shared by
 * every caller (Node warns past 10 listeners on one signal). Returns the unsubscribe, which
 * removes the listener with the signal's last callback.
 */
function onAbort(signal: AbortSignal, callback: () => void): () => void {
  const entry = waiting.get(signal) ?? listenOnce(signal);
  const fire = () => callback(); // its own identity: one callback may wait twice
  entry.callbacks.add(fire);
  return () => {
    if (!entry.callbacks.delete(fire) || entry.callbacks.size > 0) return;
    signal.removeEventListener('abort', entry.listener);
    if (waiting.get(signal) === entry) waiting.delete(signal);
  };
}

function listenOnce(signal: AbortSignal): AbortWaiters {
  const callbacks = new Set<() => void>();
  const listener = () => {
    waiting.delete(signal);
    for (const fire of callbacks) fire();
  };
  const entry = { callbacks, listener };
  waiting.set(signal, entry);
  signal.addEventListener('abort', listener, { once: true });
  return entry;
}

/**
 * Waits `ms` of `clock`'s time, or rejects with `ABORTED` as soon as `signal` fires: the clock's
 * own abortable sleep (which clears its timer), its rejection turned into the one abort error.
 */
export async function sleepAbortably(clock: Clock, ms: number, signal: AbortSignal | undefined, where?: string): Promise<void> {
  throwIfAborted(signal, where);
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    throw abortedOr(err, signal, where);
  }
}

/**
 * Runs a load shared with other callers (single-flight caches) for a caller with `signal`: when
 * the load fails with ABORTED although this caller's signal has not fired, it was another
 * caller's abort, so the load runs once more (a new flight) for this one.
 */
export async function sharedLoad<T>(load: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isFloeError(err, 'ABORTED') || signal?.aborted) throw err;
    return load();
  }
}

function isTimeoutReason(reason: unknown): boolean {
  if (isFloeError(reason, 'TIMEOUT')) return true;
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

function reasonText(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason === 'object' && reason !== null && typeof (reason as { message?: unknown }).message === 'string') {
    return (reason as { message: string }).message || undefined;
  }
  return String(reason);
}
