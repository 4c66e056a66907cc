// Bounded concurrency for a whole storage: at most `limit` backend calls in flight, shared by
// every caller of the wrapped storage (pass a Limiter to share it across storages). A call
// whose signal fires while it waits for a slot leaves the queue (ABORTED) without running.
import { createLimiter, type Limiter } from './limiter.ts';
import type { ObjectStorage } from './types.ts';
import { wrapStorage } from './wrap.ts';

/**
 * Wraps a storage so at most `limit` backend calls are in flight; pass a {@link Limiter} to share
 * one budget across several storages.
 */
export function withConcurrencyLimit(inner: ObjectStorage, limit: number | Limiter): ObjectStorage {
  const limiter = typeof limit === 'number' ? createLimiter(limit) : limit;
  return wrapStorage(inner, (call, run) => limiter.run(run, call.signal));
}
