// The HTTP backend as every caller uses it (Storage.newHttp, openStore('https://…')): range
// batching outermost (adjacent chunks of one object in one request), then retries honouring
// Retry-After, then one limit on requests in flight, then the backend.
import type { CoalesceOptions } from './coalesce.ts';
import { withConcurrencyLimit } from './concurrency.ts';
import { HttpStorage } from './http.ts';
import { createLimiter, HTTP_CONCURRENCY } from './limiter.ts';
import type { HttpStorageOptions } from './http-options.ts';
import { withRangeCoalescing } from './range-batching.ts';
import { withRetries, type RetryOptions } from './retries.ts';
import type { ObjectStorage } from './types.ts';

/** Options of `Storage.newHttp`: the HTTP backend's, plus its retries, request limit and range batching. */
export interface HttpStackOptions extends Omit<HttpStorageOptions, 'url'> {
  /**
   * Retries of transient failures (5xx, 429, 408, timeouts, no answer), honouring Retry-After.
   * Default `{}` (4 attempts); `false`: one attempt.
   */
  retries?: RetryOptions | false | undefined;
  /** HTTP requests in flight at once for this storage. Default 32. */
  maxConcurrentRequests?: number | undefined;
  /**
   * Ranged reads of one object that arrive together are merged: by default, gaps up to 64 KiB
   * with at most 5% overread until the link is measured, then any gap whose bytes take less time
   * to send than a round trip; options given here are used as they are; `false` sends each read as it comes.
   */
  coalesce?: CoalesceOptions | false | undefined;
}

/** The HTTP backend for `url`, wrapped as {@link HttpStackOptions} says. */
export function httpStorageStack(url: string, options: HttpStackOptions = {}): ObjectStorage {
  const { retries, maxConcurrentRequests, coalesce, ...http } = options;
  const backend = new HttpStorage({ ...http, url });
  const limiter = createLimiter(maxConcurrentRequests ?? HTTP_CONCURRENCY);
  let storage: ObjectStorage = withConcurrencyLimit(backend, limiter);
  if (retries !== false) storage = withRetries(storage, retries ?? {});
  if (coalesce !== false) {
    // Multi-range requests go through the same limit; a failed one falls back to retried single gets.
    storage = withRangeCoalescing(storage, coalesce ?? {}, {
      link: () => backend.linkEstimate(),
      multiRange: () => (backend.multiRange ? (key, ranges, options) => limiter.run(() => backend.getRanges(key, ranges, options), options?.signal) : undefined),
    });
  }
  return storage;
}
