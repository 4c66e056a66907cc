// One memory budget shared by every request a server answers. A request reserves what it is
// estimated to hold (from the plan's counts, before anything is enumerated or fetched) and gives
// it back when its response is done; past the budget requests wait in arrival order for a short
// time, then are turned away ('busy': the server answers 503 with Retry-After). One request
// larger than the whole budget can never run ('too-large': 413).
import type { PlanEstimate } from './plan/plan-limits.ts';

export type Reservation =
  | { readonly kind: 'granted'; readonly release: () => void }
  | { readonly kind: 'busy' }
  | { readonly kind: 'too-large' };

interface Waiter {
  readonly bytes: number;
  readonly grant: () => void;
}

export class MemoryBudget {
  #reserved = 0;
  readonly #queue: Waiter[] = [];

  /** `totalBytes`: what all requests together may hold. */
  constructor(readonly totalBytes: number) {}

  /** Bytes held by requests now. */
  get reservedBytes(): number {
    return this.#reserved;
  }

  /** Reserves `bytes`, waiting up to `waitMs` behind earlier requests; a signal that fires stops the wait. */
  reserve(bytes: number, waitMs: number, signal?: AbortSignal): Promise<Reservation> {
    if (bytes > this.totalBytes) return Promise.resolve({ kind: 'too-large' });
    if (signal?.aborted) return Promise.resolve({ kind: 'busy' });
    if (this.#queue.length === 0 && this.#reserved + bytes <= this.totalBytes) return Promise.resolve(this.#take(bytes));
    return new Promise((resolve) => {
      const finish = (answer: Reservation) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(answer);
      };
      const giveUp = () => {
        this.#leaveQueue(waiter);
        finish({ kind: 'busy' });
      };
      const waiter: Waiter = { bytes, grant: () => finish(this.#take(bytes)) };
      const timer = setTimeout(giveUp, waitMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** A waiter that gave up; a large one leaving may unblock smaller ones behind it. */
  #leaveQueue(waiter: Waiter): void {
    const at = this.#queue.indexOf(waiter);
    if (at >= 0) this.#queue.splice(at, 1);
    this.#grantWaiting();
  }

  #take(bytes: number): Reservation {
    this.#reserved += bytes;
    let released = false;
    return {
      kind: 'granted',
      release: () => {
        if (released) return;
        released = true;
        this.#reserved -= bytes;
        this.#grantWaiting();
      },
    };
  }

  /** Grants waiters in arrival order while the first one fits (no overtaking: no starvation). */
  #grantWaiting(): void {
    for (let first = this.#queue[0]; first && this.#reserved + first.bytes <= this.totalBytes; first = this.#queue[0]) {
      this.#queue.shift();
      first.grant();
    }
  }
}

/**
 * Bytes per chunk (or box) of planning and execution bookkeeping: the chunk map, fetch jobs,
 * planned requests and spans. Measured about 570 B per chunk after planning and 1.4 KB after
 * execution (a [1, 1]-chunked array, 200,000 chunks); rounded up.
 */
export const BOOKKEEPING_BYTES_PER_UNIT = 2048;

/** JSON results: the JS array of values and its text, per element (numbers print to ~20 characters). */
export const JSON_BYTES_PER_ELEMENT = 48;

/**
 * What a query holds at its peak, estimated from its counts: the result (and its CF-decoded copy), the fetched bytes
 * (about a decoded unit each: encoded chunks are rarely larger), the units being decoded at
 * once, shard indexes, bookkeeping, and the JSON text when the answer is JSON.
 */
export function queryMemory(estimate: PlanEstimate, options: { readonly concurrency: number; readonly json: boolean }): number {
  let bytes = 0;
  for (const a of estimate.arrays) {
    const fetched = a.units * a.unitBytes;
    const decoding = Math.min(a.units, options.concurrency) * a.unitBytes;
    const json = options.json ? a.elements * JSON_BYTES_PER_ELEMENT : 0;
    bytes += a.resultBytes + a.decodedBytes + fetched + decoding + a.indexBytes + (a.units + a.boxes) * BOOKKEEPING_BYTES_PER_UNIT + json;
  }
  return bytes;
}

/** What planning alone holds (explain): shard indexes and bookkeeping. */
export function planningMemory(estimate: PlanEstimate): number {
  return estimate.arrays.reduce((n, a) => n + a.indexBytes + (a.units + a.boxes) * BOOKKEEPING_BYTES_PER_UNIT, 0);
}
