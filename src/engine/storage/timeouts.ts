// Per-call deadlines. The storage contract has no cancellation, so a call that runs past its
// deadline is abandoned (its result ignored), not stopped; backends that can cancel do so
// themselves (the S3 backend aborts its HTTP request after `requestTimeoutMs`).
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
 * not cancelled (the contract has no cancellation): its effect may still happen.
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
