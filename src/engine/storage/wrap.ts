// The one place that knows every ObjectStorage method, so a wrapper (retries, timeouts, limits,
// faults) is a single function `around(call, run)` instead of a class repeating each method.
// Options, the caller's signal among them, go to the inner storage unchanged; `call.signal`
// shows the signal to the wrapper, so one that waits (retries, limits, delays) stops waiting.
import type { AbortOptions, ListOptions, ObjectInfo, ObjectStorage, PutOptions } from './types.ts';

/** The {@link ObjectStorage} methods a wrapper sees. */
export type StorageOperation = 'get' | 'head' | 'put' | 'copy' | 'list' | 'listDir' | 'delete';

/** One backend call as a wrapper sees it. */
export interface StorageCall {
  operation: StorageOperation;
  /** The key (or prefix, or first key of a batch) the call is about, for messages. */
  key: string;
  /** The caller's signal: a wrapper that waits (backoff, a slot, a delay) stops when it fires. */
  signal?: AbortSignal | undefined;
}

/** Runs one backend call; `run` may be invoked again (retries) or not at all (faults). */
export type Around = <T>(call: StorageCall, run: () => Promise<T>) => Promise<T>;

/**
 * Wraps `inner` so every call goes through `around`. A listing is one call per page in the
 * backend, but the contract hides pages, so `list` goes through `around` once per item fetch:
 * a retry of a failed listing resumes with `startAfter` the last key it yielded.
 */
export function wrapStorage(inner: ObjectStorage, around: Around): ObjectStorage {
  const putParts = inner.putParts?.bind(inner);
  return {
    kind: inner.kind,
    // A `put` to the wrapper, when the backend writes parts: a retry writes the same parts again.
    ...(putParts && { putParts: (key: string, parts: readonly Uint8Array[], options?: PutOptions) => around(callOf('put', key, options), () => putParts(key, parts, options)) }),
    get: (key, range, options) => around(callOf('get', key, options), () => inner.get(key, range, options)),
    head: (key, options) => around(callOf('head', key, options), () => inner.head(key, options)),
    put: (key, bytes, options) => around(callOf('put', key, options), () => inner.put(key, bytes, options)),
    copy: (from, to, options) => around(callOf('copy', from, options), () => inner.copy(from, to, options)),
    listDir: (prefix, options) => around(callOf('listDir', prefix, options), () => inner.listDir(prefix, options)),
    delete: (keys, options) => around(callOf('delete', keys[0] ?? '', options), () => inner.delete(keys, options)),
    list: (prefix, options) => resumableList(inner, prefix, options, around),
    close: () => inner.close(),
    [Symbol.asyncDispose]: () => inner.close(),
  };
}

function callOf(operation: StorageOperation, key: string, options: AbortOptions | undefined): StorageCall {
  return { operation, key, signal: options?.signal };
}

async function* resumableList(inner: ObjectStorage, prefix: string, options: ListOptions | undefined, around: Around): AsyncIterable<ObjectInfo> {
  let iterator: AsyncIterator<ObjectInfo> | undefined;
  let lastKey = options?.startAfter;
  const signal = options?.signal;
  const call = callOf('list', prefix, options);
  for (;;) {
    const next = await around(call, async () => {
      try {
        iterator ??= inner.list(prefix, { startAfter: lastKey, signal })[Symbol.asyncIterator]();
        return await iterator.next();
      } catch (err) {
        iterator = undefined; // a retry starts a fresh listing after `lastKey`
        throw err;
      }
    });
    if (next.done) return;
    lastKey = next.value.key;
    yield next.value;
  }
}
