// The simulated latency of bench/distributed.ts (coordinator and worker processes alike).
import type { StorageCall } from '../../src/engine/storage/wrap.ts';

/**
 * Whether a call pays the latency: every request does, but a listing is one call per item fetch
 * in wrapStorage (the same call object for one listing): it pays once per 1,000 items, as an S3
 * listing pays once per page.
 */
export function slowCall(call: StorageCall): boolean {
  if (call.operation !== 'list') return true;
  const seen = listed.get(call) ?? 0;
  listed.set(call, seen + 1);
  return seen % 1000 === 0;
}
const listed = new WeakMap<StorageCall, number>();
