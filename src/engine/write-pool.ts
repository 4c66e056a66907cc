// The one writer pool. Every chunk a plain-array write prepares (reads, merges, encodes) and
// stores takes a slot of one limiter shared by the whole process, so any number of concurrent
// writes (several arrays, a server's requests) together hold at most its limit of chunks in
// memory and in flight; each write's own `concurrency` still bounds that write. Arrays take it
// from their options (`writePool`), this shared one by default.
import { createLimiter, type Limiter } from './storage/limiter.ts';

/**
 * Slots of the shared pool. Twice the default per-write concurrency, so one write runs at its
 * full default width while another starts; local disks gain nothing past the thread pool's 4
 * writers, and object stores that want more in flight take a larger pool of their own.
 */
export const SHARED_WRITE_POOL_SIZE = 16;

let shared: Limiter | undefined;

/** The process-wide writer pool (created on first use). */
export function sharedWritePool(): Limiter {
  shared ??= createLimiter(SHARED_WRITE_POOL_SIZE);
  return shared;
}
