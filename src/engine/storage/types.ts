// The object-storage contract every backend implements (memory, local filesystem, SQLite, S3).
// Icechunk's consistency rests on it: objects are write-once except the few updated by
// compare-and-swap (`ifMatch` / `ifNoneMatch`). Keep it small; retries, caching, limits and
// fault injection are wrappers around an ObjectStorage, not methods on it.
//
// Cancellation: every request takes an optional `signal`. A request whose signal has fired
// rejects with ABORTED (src/engine/abort.ts). A backend checks it before any I/O, so an
// already-aborted request touches nothing, and between its steps; a write it knows took effect
// (the object is visible) resolves normally instead, so ABORTED from a local backend means
// nothing was written. Over a network (S3), a write aborted after it was sent may or may not
// have happened, as after a TIMEOUT.

/** A byte range of an object: from an offset (to the end, or `length` bytes), or the last N bytes. */
export type ByteRange = { offset: number; length?: number } | { suffixLength: number };

/** Opaque version token: an ETag, a generation counter, a content hash. Compare only for equality. */
export type VersionToken = string;

/** An object's bytes (or the requested range of them) and the version they were read at. */
export interface GetResult {
  bytes: Uint8Array;
  version: VersionToken;
}

/**
 * Options every request takes: `signal` cancels it (`ABORTED`). Callers pass one options object
 * per operation down to all its requests, not one per request.
 */
export interface AbortOptions {
  /** Cancels the request: it rejects with `ABORTED`; pass `AbortSignal.timeout(ms)` for a deadline. */
  signal?: AbortSignal | undefined;
}

/**
 * Options of {@link ObjectStorage.get}. `maxBytes` bounds a whole-object read (no range): an object
 * larger than that is refused with LIMIT_EXCEEDED (kind `encoded-bytes`), by backends that know the
 * size before reading (a file's size, Content-Length, S3's first part) without reading the rest.
 * Callers that pass it check the length of what they get as well.
 */
export interface ObjectGetOptions extends AbortOptions {
  /** The most bytes a whole object read may return; larger objects are refused, not read. */
  maxBytes?: number | undefined;
}

/** Options of {@link ObjectStorage.put}: preconditions (compare-and-swap) and object metadata. */
export interface PutOptions extends AbortOptions {
  /** Write only if the current version equals this token (conditional update). */
  ifMatch?: VersionToken | undefined;
  /** `'*'`: write only if the key does not exist (conditional create). */
  ifNoneMatch?: '*' | undefined;
  contentType?: string | undefined;
  metadata?: Readonly<Record<string, string>> | undefined;
}

/** What a listing or {@link ObjectStorage.head} knows about an object, without its bytes. */
export interface ObjectInfo {
  key: string;
  size: number;
  lastModified: Date;
  version?: VersionToken;
}

/** One level of an object listing ({@link ObjectStorage.listDir}). */
export interface ListDirResult {
  /** Objects directly under the prefix. */
  objects: ObjectInfo[];
  /** Child "directories": prefixes ending in '/', relative to the storage root. */
  prefixes: string[];
}

/** Options of {@link ObjectStorage.list}. */
export interface ListOptions extends AbortOptions {
  /** Only keys after this one (in key order): resumes a listing, e.g. after a failed page. */
  startAfter?: string | undefined;
}

/** Options of {@link ObjectStorage.copy}. */
export interface CopyOptions extends AbortOptions {
  /** Copy only if the source's version equals this token. */
  ifMatch?: VersionToken | undefined;
}

/** Where a local backend keeps an object: the file `key` (slash-separated) under the directory `root`. */
export interface LocalObjectFile {
  readonly root: string;
  readonly key: string;
}

/**
 * The object-storage contract every backend implements (memory, filesystem, SQLite, S3): a flat
 * key space of write-once objects, with conditional writes (`ifMatch` / `ifNoneMatch`) for the few
 * that are updated. Retries, deadlines, limits and faults are wrappers ({@link withRetries} and others).
 * Failures are {@link FloeError}s (`STORAGE_ERROR`, `PRECONDITION_FAILED`, ...).
 */
export interface ObjectStorage extends AsyncDisposable {
  /** Short backend name for messages and stats: 'memory', 'fs', 'sqlite', 's3'. */
  readonly kind: string;
  /** Bytes and version of a key (or a range of it); `null` when the key does not exist. */
  get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null>;
  /**
   * Optional fast path for local backends: reads the object (or range) into `target`, which the
   * caller reuses, and returns its length — or, when it is longer than `target`, returns that
   * length having read nothing. `null` when the key does not exist.
   */
  readInto?(key: string, target: Uint8Array, range?: ByteRange, options?: AbortOptions): Promise<number | null>;
  /**
   * Optional, for backends whose objects are plain local files: where the file holding `key`
   * lies (a root directory and the key under it), so a worker thread can read it itself, walking
   * from the root without following links as the backend does (src/engine/local-file.ts).
   * Objects are never modified in place (except unconditional puts of fs durability 'none'), so a
   * reader that opens the file sees one whole version.
   */
  localFile?(key: string): LocalObjectFile;
  /** Size, modification time and version of a key; `null` when it does not exist. */
  head(key: string, options?: AbortOptions): Promise<ObjectInfo | null>;
  /** Failed preconditions throw FloeError 'PRECONDITION_FAILED'; nothing is written then. */
  put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }>;
  /**
   * Optional, for backends that can write several buffers as one object without joining them
   * (the filesystem's `writev`): `put` of the parts' concatenation. The parts are only read, and
   * not kept once the returned promise settles.
   */
  putParts?(key: string, parts: readonly Uint8Array[], options?: PutOptions): Promise<{ version: VersionToken }>;
  /** Server-side copy; `ifMatch` guards the source's version. */
  copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }>;
  /** Every object whose key starts with `prefix`, in lexicographic key order. Paged internally. */
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo>;
  /** One level below `prefix` (which is '' or ends in '/'). */
  listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult>;
  /** Batch delete; missing keys are not an error. */
  delete(keys: readonly string[], options?: AbortOptions): Promise<void>;
  /**
   * Releases the backend's resources (files, connections); the storage is unusable afterwards.
   * Safe to call again. `[Symbol.asyncDispose]` does the same, so `await using` closes a storage.
   */
  close(): Promise<void>;
}

/** Whether `value` looks like an {@link ObjectStorage} (has its methods): the boundary's check of untyped callers. */
export function isObjectStorage(value: unknown): value is ObjectStorage {
  if (typeof value !== 'object' || value === null) return false;
  const methods = value as Partial<Record<'get' | 'put' | 'head' | 'list' | 'delete', unknown>>;
  return ['get', 'put', 'head', 'list', 'delete'].every((name) => typeof methods[name as 'get'] === 'function');
}
