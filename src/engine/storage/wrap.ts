// The one place that knows every ObjectStorage method, so a wrapper (retries, timeouts, limits,
// faults) is a single function `around(call, run)` instead of a class repeating each method.
import type { ListOptions, ObjectInfo, ObjectStorage } from './types.ts';

/** The {@link ObjectStorage} methods a wrapper sees. */
export type StorageOperation = 'get' | 'head' | 'put' | 'copy' | 'list' | 'listDir' | 'delete';

/** One backend call as a wrapper sees it. */
export interface StorageCall {
  operation: StorageOperation;
  /** The key (or prefix, or first key of a batch) the call is about, for messages. */
  key: string;
}

/** Runs one backend call; `run` may be invoked again (retries) or not at all (faults). */
export type Around = <T>(call: StorageCall, run: () => Promise<T>) => Promise<T>;

/**
 * Wraps `inner` so every call goes through `around`. A listing is one call per page in the
 * backend, but the contract hides pages, so `list` goes through `around` once per item fetch:
 * a retry of a failed listing resumes with `startAfter` the last key it yielded.
 */
export function wrapStorage(inner: ObjectStorage, around: Around): ObjectStorage {
  return {
    kind: inner.kind,
    get: (key, range) => around({ operation: 'get', key }, () => inner.get(key, range)),
    head: (key) => around({ operation: 'head', key }, () => inner.head(key)),
    put: (key, bytes, options) => around({ operation: 'put', key }, () => inner.put(key, bytes, options)),
    copy: (from, to, options) => around({ operation: 'copy', key: from }, () => inner.copy(from, to, options)),
    listDir: (prefix) => around({ operation: 'listDir', key: prefix }, () => inner.listDir(prefix)),
    delete: (keys) => around({ operation: 'delete', key: keys[0] ?? '' }, () => inner.delete(keys)),
    list: (prefix, options) => resumableList(inner, prefix, options, around),
    close: () => inner.close(),
  };
}

async function* resumableList(inner: ObjectStorage, prefix: string, options: ListOptions | undefined, around: Around): AsyncIterable<ObjectInfo> {
  let iterator: AsyncIterator<ObjectInfo> | undefined;
  let lastKey = options?.startAfter;
  for (;;) {
    const next = await around({ operation: 'list', key: prefix }, async () => {
      try {
        iterator ??= inner.list(prefix, lastKey === undefined ? {} : { startAfter: lastKey })[Symbol.asyncIterator]();
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
