// Shared by the cancellation tests: a signal aborted before the call, how a rejection came, and
// what a storage holds afterwards (an aborted operation must have written nothing).
import type { ObjectStorage } from '../../src/engine/storage/types.ts';

export const abortedSignal = (): AbortSignal => {
  const controller = new AbortController();
  controller.abort(new Error('cancelled'));
  return controller.signal;
};

/** The rejection of `promise` and how long it took to come. */
export async function failure(promise: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  const err = await promise.then(() => undefined, (e: unknown) => e);
  return { err, ms: performance.now() - started };
}

/** Every key in a storage, in listing order. */
export async function keysOf(storage: ObjectStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of storage.list('')) keys.push(info.key);
  return keys;
}
