// A virtual clock for tests: time moves only when the test (or a sleep) moves it, so lock
// staleness, retry backoff, GC cutoffs and deadlines are tested without real waiting.
import { floeError } from '../errors.ts';
import type { Clock } from '../engine/storage/clock.ts';

/** Options of {@link FakeClock}. */
export interface FakeClockOptions {
  /** The initial time, ms since the epoch. Default 2030-01-01T00:00:00Z. */
  startMs?: number;
  /**
   * true (default): `sleep(ms)` moves the clock forward by `ms` and resolves at once, so code that
   * waits runs through its waits instantly. false: a sleep resolves only when {@link FakeClock.advance}
   * reaches its end.
   */
  autoAdvance?: boolean;
}

interface Sleeper {
  dueMs: number;
  resolve(): void;
}

/**
 * A {@link Clock} that only moves when told: pass it as the `clock` option of a storage, a
 * wrapper or a repository. It records every sleep it was asked for (`sleeps`), so a test can check
 * a backoff schedule. A filesystem storage compares its clock with mtimes the OS sets: give such
 * a storage a FakeClock starting at `Date.now()`.
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const repo = await Repository.create(Storage.newInMemory(), {}, 2, {}, { clock });
 * clock.advance(60_000); // a minute passes
 * ```
 */
export class FakeClock implements Clock {
  /** Every sleep asked for, in ms, in call order. */
  readonly sleeps: number[] = [];
  private now: number;
  private readonly autoAdvance: boolean;
  private waiting: Sleeper[] = [];

  constructor(options: FakeClockOptions = {}) {
    this.now = options.startMs ?? Date.UTC(2030, 0, 1);
    this.autoAdvance = options.autoAdvance ?? true;
  }

  nowMs(): number {
    return this.now;
  }

  /** Sleeps not yet resolved (only with `autoAdvance: false`). */
  get pendingSleeps(): number {
    return this.waiting.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const span = Number.isFinite(ms) && ms > 0 ? ms : 0; // as setTimeout treats them
    this.sleeps.push(span);
    if (this.autoAdvance) {
      this.now += span;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        dueMs: this.now + span,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.waiting = this.waiting.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(sleeper);
    });
  }

  /** Moves time forward by `ms` and wakes, in order, every sleep that ends by then. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw floeError('INVALID_ARGUMENT', `FakeClock.advance takes a finite number of ms >= 0, got ${ms}; a clock does not run backwards`);
    }
    this.setTime(this.now + ms);
  }

  /** Sets the time, backwards too (a wall clock can be stepped back); wakes every sleep that ends by then. */
  setTime(ms: number): void {
    if (!Number.isFinite(ms)) throw floeError('INVALID_ARGUMENT', `FakeClock.setTime takes a finite time in ms, got ${ms}`);
    this.now = ms;
    // A stable sort keeps sleeps with the same end in the order they began.
    const due = this.waiting.filter((s) => s.dueMs <= this.now).sort((a, b) => a.dueMs - b.dueMs);
    this.waiting = this.waiting.filter((s) => s.dueMs > this.now);
    for (const sleeper of due) sleeper.resolve();
  }
}
