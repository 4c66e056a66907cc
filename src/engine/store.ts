// The Zarr v3 abstract store (core spec, "Abstract store interface"), async, and its plain
// implementation over any ObjectStorage. The method names `get`, `getRange` and `set` also make
// a store usable by zarrita.js, which passes keys with a leading '/'.
//
// Every method takes optional `{ signal }` last (zarrita passes its request options, `signal`
// included, the same way): a store passes it to its storage requests, so a fired signal rejects
// the call with ABORTED. Callers pass one options object per operation, not one per chunk.
import { DecodedChunkCache } from '../cache/decoded-chunks.ts';
import { DEFAULT_DECODED_CHUNK_BYTES } from '../cache/read-caches.ts';
import { floeError } from '../errors.ts';
import { checkConcurrency, DEFAULT_CONCURRENCY, HTTP_CONCURRENCY, mapLimit } from './storage/limiter.ts';
import type { AbortOptions, ByteRange, LocalObjectFile, ObjectGetOptions, ObjectStorage } from './storage/types.ts';

export type { AbortOptions, ByteRange } from './storage/types.ts';

/** One level of a store listing, as returned by {@link ZarrStore.listDir}. */
export interface ListDir {
  /** Keys directly under the prefix, relative to it. */
  keys: string[];
  /** Child prefixes, relative, without the trailing '/'. */
  prefixes: string[];
}

/**
 * Bytes of a value in a local file: the whole file, or `length` bytes at `offset`. The file is
 * `key` under `root`, opened by walking from the root without following links (local-file.ts).
 */
export interface LocalFileSpan extends LocalObjectFile {
  readonly offset?: number;
  readonly length?: number;
  /** The value is known to exist: a missing file is an error, not an empty chunk. */
  readonly required?: boolean;
}

/**
 * Where readers of a store keep decoded chunks: the cache, and for each chunk key a cache key that
 * names the bytes the key holds now (it changes when they change, or the store invalidates it).
 */
export interface DecodedChunkSource {
  readonly cache: DecodedChunkCache;
  /** The cache key of the chunk at `key`; undefined: do not cache it (inline bytes, say). */
  chunkIdentity(key: string, options?: AbortOptions): string | undefined | Promise<string | undefined>;
}

/**
 * The Zarr v3 abstract store: async key/value access to a node tree's metadata and chunks.
 * Keys may carry zarrita's leading '/'. Writes to a read-only store throw `READ_ONLY`.
 */
export interface ZarrStore {
  readonly readOnly: boolean;
  /**
   * True when no write is visible to other readers before a commit makes them all visible at once
   * (a repository session). Writers that must order their writes for readers' sake (overwrite)
   * need not, then.
   */
  readonly transactional?: boolean;
  /**
   * Requests a read of this store keeps in flight when its caller sets no `concurrency`: higher
   * for stores behind a round trip (HTTP: 32) than for local ones (8, the default when absent).
   */
  readonly readConcurrency?: number;
  /**
   * Bytes of a key; `undefined` when absent (zarrita's contract). `maxBytes` may refuse a larger
   * value (LIMIT_EXCEEDED) before reading it; callers check what they get all the same.
   */
  get(key: string, options?: ObjectGetOptions): Promise<Uint8Array | undefined>;
  /** Bytes of part of a key's value; `undefined` when the key is absent. */
  getRange(key: string, range: ByteRange, options?: AbortOptions): Promise<Uint8Array | undefined>;
  /**
   * Optional: reads a value into a caller-owned buffer and returns its length (reading nothing
   * when it is longer than `target`); `undefined` when absent. Lets readers reuse buffers.
   */
  getInto?(key: string, target: Uint8Array, options?: AbortOptions): Promise<number | undefined>;
  /** Optional: a value's size in bytes without reading it; `undefined` when absent. */
  size?(key: string, options?: AbortOptions): Promise<number | undefined>;
  /** Batched reads of whole values (range `undefined`) or ranges, in request order. */
  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[], options?: AbortOptions): Promise<(Uint8Array | undefined)[]>;
  /**
   * Optional, for stores over local files: where a value's bytes lie, so decode workers can read
   * them themselves. `null` when the key has no value; `undefined` when it is not in a local file.
   */
  localFile?(key: string, options?: AbortOptions): Promise<LocalFileSpan | null | undefined>;
  /** Optional: the decoded-chunk cache its readers share (see {@link DecodedChunkSource}). */
  readonly decodedChunks?: DecodedChunkSource | undefined;
  /** Writes (replaces) a key's value. */
  set(key: string, value: Uint8Array, options?: AbortOptions): Promise<void>;
  /**
   * Optional, for stores that write several buffers as one value without joining them (local
   * files): `set` of the parts' concatenation. Parts are only read, and not kept once it settles,
   * so they may be views of the caller's memory.
   */
  setParts?(key: string, parts: readonly Uint8Array[], options?: AbortOptions): Promise<void>;
  /** Writes `bytes` at `offset` of existing values (a read-modify-write on object storage). */
  setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[], options?: AbortOptions): Promise<void>;
  /** Deletes a key; deleting an absent key is not an error. */
  erase(key: string, options?: AbortOptions): Promise<void>;
  /** Deletes several keys. */
  eraseValues(keys: readonly string[], options?: AbortOptions): Promise<void>;
  /** Deletes every key under a prefix (a node and all its descendants). */
  erasePrefix(prefix: string, options?: AbortOptions): Promise<void>;
  /** Every key in the store. */
  list(options?: AbortOptions): AsyncIterable<string>;
  /** Every key that starts with `prefix`, full keys. */
  listPrefix(prefix: string, options?: AbortOptions): AsyncIterable<string>;
  /** Keys and child prefixes directly under a prefix (one level, like a directory listing). */
  listDir(prefix: string, options?: AbortOptions): Promise<ListDir>;
}

/** Drops zarrita's leading '/' so both conventions address the same key. */
export function normalizeKey(key: string): string {
  return key.startsWith('/') ? key.slice(1) : key;
}

/** A store's `getPartialValues` as `get`/`getRange` calls, at most `limit` in flight (a caller may pass thousands). */
export function readPartialValues(
  store: Pick<ZarrStore, 'get' | 'getRange'>,
  requests: readonly (readonly [string, ByteRange | undefined])[],
  limit: number,
  options?: AbortOptions,
): Promise<(Uint8Array | undefined)[]> {
  return mapLimit(requests, limit, ([key, range]) => (range ? store.getRange(key, range, options) : store.get(key, options)));
}

/** Options of {@link StorageStore}. */
export interface StorageStoreOptions {
  readOnly?: boolean;
  /** Key prefix inside the storage ('' or 'a/b/'). */
  prefix?: string;
  /**
   * Storage requests one read keeps in flight (`getPartialValues`, and arrays' reads that set no
   * `concurrency`). Default 8, or 32 over HTTP (where each request waits a round trip).
   */
  concurrency?: number;
  /**
   * Budget in bytes for decoded chunks that small reads (cutouts) keep, so a burst of windows
   * over the same compressed chunks decodes each once. Default: one cache of 128 MiB shared by
   * every plain store of the process that sets none (each store's keys apart); a number gives this
   * store a cache of its own; 0 keeps none. Writes through this store forget what they replace;
   * a store whose objects others change meanwhile (another process) should pass 0.
   */
  decodedChunkBytes?: number;
}

let sharedDecodedChunks: DecodedChunkCache | undefined;
let storeScopes = 0;

/**
 * The decoded chunks of a plain store: cache keys are its own keys under a scope of its own (a
 * plain store's keys name no particular bytes: writes through it invalidate them).
 */
class PlainDecodedChunks implements DecodedChunkSource {
  private readonly scope = `store${++storeScopes}:`;

  constructor(readonly cache: DecodedChunkCache) {}

  chunkIdentity(key: string): string {
    return this.scope + normalizeKey(key);
  }
}

function plainDecodedChunks(budget: number | undefined): PlainDecodedChunks | undefined {
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 0)) {
    throw floeError('INVALID_ARGUMENT', `decodedChunkBytes must be a number of bytes >= 0 (0 keeps no decoded chunks), got ${budget}`);
  }
  if (budget === 0) return undefined;
  return new PlainDecodedChunks(budget === undefined ? (sharedDecodedChunks ??= new DecodedChunkCache(DEFAULT_DECODED_CHUNK_BYTES)) : new DecodedChunkCache(budget));
}

/** A plain (untracked) Zarr store: keys map one-to-one onto objects. */
export class StorageStore implements ZarrStore {
  readonly readOnly: boolean;
  /** The decoded chunks its small reads keep (`decodedChunkBytes`); undefined when 0. */
  readonly decodedChunks: DecodedChunkSource | undefined;
  private readonly plainChunks: PlainDecodedChunks | undefined;
  private readonly prefix: string;
  private readonly concurrency: number;
  /** See {@link ZarrStore.readConcurrency}. */
  readonly readConcurrency: number;
  /** Present when the storage writes parts without joining them (`ObjectStorage.putParts`). */
  readonly setParts?: (key: string, parts: readonly Uint8Array[], options?: AbortOptions) => Promise<void>;

  constructor(
    readonly storage: ObjectStorage,
    options: StorageStoreOptions = {},
  ) {
    this.readOnly = options.readOnly ?? false;
    this.concurrency = checkConcurrency(options.concurrency ?? (storage.kind === 'http' ? HTTP_CONCURRENCY : DEFAULT_CONCURRENCY));
    this.readConcurrency = this.concurrency;
    this.prefix = options.prefix ?? '';
    if (this.prefix !== '' && !this.prefix.endsWith('/')) this.prefix += '/';
    const putParts = storage.putParts?.bind(storage);
    if (putParts) {
      this.setParts = async (key, parts, options) => {
        this.assertWritable(key);
        try {
          await putParts(this.full(key), parts, options);
        } finally {
          this.forget(key); // as set: no decoded copy of the old bytes outlives the write
        }
      };
    }
    this.plainChunks = plainDecodedChunks(options.decodedChunkBytes);
    this.decodedChunks = this.plainChunks;
  }

  private full(key: string): string {
    return this.prefix + normalizeKey(key);
  }

  async get(key: string, options?: ObjectGetOptions): Promise<Uint8Array | undefined> {
    return (await this.storage.get(this.full(key), undefined, options))?.bytes;
  }

  async getRange(key: string, range: ByteRange, options?: AbortOptions): Promise<Uint8Array | undefined> {
    return (await this.storage.get(this.full(key), range, options))?.bytes;
  }

  async getInto(key: string, target: Uint8Array, options?: AbortOptions): Promise<number | undefined> {
    if (this.storage.readInto) return (await this.storage.readInto(this.full(key), target, undefined, options)) ?? undefined;
    const bytes = await this.get(key, options);
    if (bytes && bytes.length <= target.length) target.set(bytes);
    return bytes?.length;
  }

  async size(key: string, options?: AbortOptions): Promise<number | undefined> {
    return (await this.storage.head(this.full(key), options))?.size;
  }

  async localFile(key: string): Promise<LocalFileSpan | undefined> {
    return this.storage.localFile?.(this.full(key));
  }

  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[], options?: AbortOptions): Promise<(Uint8Array | undefined)[]> {
    return readPartialValues(this, requests, this.concurrency, options);
  }

  async set(key: string, value: Uint8Array, options?: AbortOptions): Promise<void> {
    this.assertWritable(key);
    try {
      await this.storage.put(this.full(key), value, options);
    } finally {
      this.forget(key); // after the write (failed ones too): no read of the old bytes is kept
    }
  }

  async setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[], options?: AbortOptions): Promise<void> {
    for (const [key, offset, bytes] of requests) {
      this.assertWritable(key);
      const current = (await this.get(key, options)) ?? new Uint8Array(0);
      const next = new Uint8Array(Math.max(current.length, offset + bytes.length));
      next.set(current);
      next.set(bytes, offset);
      await this.set(key, next, options);
    }
  }

  async erase(key: string, options?: AbortOptions): Promise<void> {
    await this.eraseValues([key], options);
  }

  async eraseValues(keys: readonly string[], options?: AbortOptions): Promise<void> {
    keys.forEach((k) => this.assertWritable(k));
    try {
      if (keys.length > 0) await this.storage.delete(keys.map((k) => this.full(k)), options);
    } finally {
      keys.forEach((k) => this.forget(k));
    }
  }

  async erasePrefix(prefix: string, options?: AbortOptions): Promise<void> {
    this.assertWritable(prefix);
    try {
      const batch: string[] = [];
      for await (const info of this.storage.list(this.full(prefix), options)) {
        batch.push(info.key);
        if (batch.length === 1000) await this.storage.delete(batch.splice(0), options);
      }
      if (batch.length > 0) await this.storage.delete(batch, options);
    } finally {
      const source = this.plainChunks;
      source?.cache.invalidatePrefix(source.chunkIdentity(prefix));
    }
  }

  /** Drops the decoded chunk (and inner chunks) cached for `key`. */
  private forget(key: string): void {
    const source = this.plainChunks;
    source?.cache.invalidate(source.chunkIdentity(key));
  }

  list(options?: AbortOptions): AsyncIterable<string> {
    return this.listPrefix('', options);
  }

  async *listPrefix(prefix: string, options?: AbortOptions): AsyncIterable<string> {
    const cut = this.prefix.length;
    for await (const info of this.storage.list(this.full(prefix), options)) yield info.key.slice(cut);
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDir> {
    const p = normalizeKey(prefix);
    const dir = p === '' || p.endsWith('/') ? p : p + '/';
    const full = this.full(dir);
    const result = await this.storage.listDir(full, options);
    return {
      keys: result.objects.map((o) => o.key.slice(full.length)),
      prefixes: result.prefixes.map((q) => q.slice(full.length).replace(/\/$/, '')),
    };
  }

  private assertWritable(key: string): void {
    if (this.readOnly) throw floeError('READ_ONLY', `cannot modify ${JSON.stringify(key)}: the store is read-only`, { where: key });
  }
}

/**
 * Base for stores that only read (views, wrappers): every write is refused with READ_ONLY, so
 * subclasses implement only the read half of the contract.
 */
export abstract class ReadOnlyZarrStore implements ZarrStore {
  readonly readOnly = true;

  abstract get(key: string, options?: ObjectGetOptions): Promise<Uint8Array | undefined>;
  abstract getRange(key: string, range: ByteRange, options?: AbortOptions): Promise<Uint8Array | undefined>;
  abstract list(options?: AbortOptions): AsyncIterable<string>;
  abstract listPrefix(prefix: string, options?: AbortOptions): AsyncIterable<string>;
  abstract listDir(prefix: string, options?: AbortOptions): Promise<ListDir>;

  /** Reads through this store's `get` and `getRange`, {@link DEFAULT_CONCURRENCY} in flight. */
  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[], options?: AbortOptions): Promise<(Uint8Array | undefined)[]> {
    return readPartialValues(this, requests, DEFAULT_CONCURRENCY, options);
  }

  set(key: string): Promise<void> {
    return this.refuse(key);
  }
  setPartialValues(): Promise<void> {
    return this.refuse('(partial values)');
  }
  erase(key: string): Promise<void> {
    return this.refuse(key);
  }
  eraseValues(): Promise<void> {
    return this.refuse('(values)');
  }
  erasePrefix(prefix: string): Promise<void> {
    return this.refuse(prefix);
  }

  /** The refusal; override to say which kind of store this is. */
  protected refuse(key: string): Promise<never> {
    return Promise.reject(floeError('READ_ONLY', `this store is read-only; cannot modify ${JSON.stringify(key)}`, { where: key }));
  }
}

