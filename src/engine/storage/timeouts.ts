// Per-call deadlines. A call that runs past its deadline is abandoned (its result ignored), not
// stopped: the caller's signal goes to the backend unchanged and is the way to cancel a request
// (`AbortSignal.timeout(ms)` gives a deadline that cancels, as ABORTED); the S3 backend also
// aborts its HTTP request after `requestTimeoutMs` itself.
import { floeError } from '../../errors.ts';
import type { ObjectStorage } from './types.ts';
import { wrapStorage, type StorageOperation } from './wrap.ts';

/** Options of {@link withTimeouts}. */
export interface TimeoutOptions {
  /** Deadline of one call in ms; per operation overrides. */
  timeoutMs: number;
  perOperation?: Partial<Record<StorageOperation, number>>;
}

/**
 * Wraps a storage so a call running past its deadline rejects with `TIMEOUT`. The call is abandoned,
 * not cancelled: its effect may still happen (a caller's signal, passed through, does cancel).
 */
export function withTimeouts(inner: ObjectStorage, options: TimeoutOptions): ObjectStorage {
  return wrapStorage(inner, (call, run) => {
    const ms = options.perOperation?.[call.operation] ?? options.timeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(floeError('TIMEOUT', `storage ${call.operation} of ${JSON.stringify(call.key)} took longer than ${ms} ms`, { where: call.key }));
      }, ms);
      run().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  });
}
