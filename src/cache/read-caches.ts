// Caches for reads that plan before they fetch (the query planner): raw shard indexes, encoded
// chunk bytes (whole chunks or inner-chunk ranges), decoded chunks, and coordinate arrays. Each
// is a byte-budgeted LRU with single-flight loading (./lru.ts); `share` lets concurrent queries
// issue one request for the same bytes.
//
// Keys are store keys, optionally under a scope: a plain Zarr store is mutable, so share one
// ReadCaches only between readers of the same unchanging data (an Icechunk snapshot, a store
// nobody writes to) or give each a distinct scope, and `clear()` after writing. A repository owns
// one for all its sessions, scoped by snapshot id.
import type { NdArray } from '../format/zarr/ndarray.ts';
import { DecodedChunkCache, type DecodedChunkStats } from './decoded-chunks.ts';
import { ByteLru, SingleFlight, type ByteLruStats, type CacheView } from './lru.ts';

/** Byte budgets of a {@link ReadCaches}. */
export interface ReadCacheOptions {
  /** Budget for raw shard indexes. Default 16 MiB (a million inner-chunk entries). */
  shardIndexBytes?: number;
  /** Budget for encoded chunk bytes. Default 64 MiB. */
  chunkBytes?: number;
  /**
   * Budget for decoded chunks (inner chunks of shards), by decoded size: the chunks queries
   * decode, and those small array reads (cutouts) decode, so a burst of windows over one chunk
   * decodes it once. Default 128 MiB. Only chunks up to an eighth of it are kept,
   * so one big read cannot flush the hot small ones.
   */
  decodedChunkBytes?: number;
  /** Budget for decoded coordinate arrays. Default 16 MiB. */
  coordinateBytes?: number;
}

/** A decoded value and the bytes it holds, so one LRU can budget values of any shape. */
export interface Sized<T> {
  readonly value: T;
  readonly bytes: number;
}

/** Counters of a {@link ReadCaches}, from {@link ReadCaches.stats}. */
export interface ReadCacheStats {
  shardIndexes: ByteLruStats;
  chunks: ByteLruStats;
  decodedChunks: DecodedChunkStats;
  coordinates: ByteLruStats;
  /** Requests that joined an identical one already in flight (from another query). */
  sharedRequests: number;
}

/** What a query reads through: a ReadCaches, or a view of one that never stores (see readOnlyView). */
export interface QueryCaches {
  readonly shardIndexes: CacheView<string, Uint8Array>;
  readonly chunks: CacheView<string, Uint8Array>;
  readonly decodedChunks: CacheView<string, NdArray>;
  readonly coordinates: CacheView<string, Sized<unknown>>;
  /** Largest decoded chunk worth keeping, in bytes. */
  readonly maxDecodedChunkBytes: number;
  /** Runs `fetch` once for concurrent callers of the same key. */
  share<T extends Uint8Array | undefined>(key: string, fetch: () => Promise<T>): Promise<T>;
}

const MiB = 2 ** 20;

/** The default budget of decoded chunks: of a repository, and of all plain stores of a process. */
export const DEFAULT_DECODED_CHUNK_BYTES = 128 * MiB;

/**
 * Byte-budgeted LRU caches for query reads: raw shard indexes, encoded chunks, decoded chunks and
 * coordinate arrays, with concurrent identical requests joined into one. A repository owns one for
 * all its sessions (scoped by snapshot). Share one between readers of a plain store only while
 * nobody writes to it, or `clear()` after writing.
 */
export class ReadCaches implements QueryCaches {
  readonly shardIndexes: ByteLru<string, Uint8Array>;
  readonly chunks: ByteLru<string, Uint8Array>;
  readonly decodedChunks: DecodedChunkCache;
  readonly coordinates: ByteLru<string, Sized<unknown>>;
  readonly maxDecodedChunkBytes: number;
  private readonly requests = new SingleFlight<string, Uint8Array | undefined>();

  constructor(options: ReadCacheOptions = {}) {
    this.shardIndexes = new ByteLru({ maxBytes: options.shardIndexBytes ?? 16 * MiB, sizeOf: (b) => b.byteLength });
    this.chunks = new ByteLru({ maxBytes: options.chunkBytes ?? 64 * MiB, sizeOf: (b) => b.byteLength });
    this.decodedChunks = new DecodedChunkCache(options.decodedChunkBytes ?? DEFAULT_DECODED_CHUNK_BYTES);
    this.coordinates = new ByteLru({ maxBytes: options.coordinateBytes ?? 16 * MiB, sizeOf: (s) => s.bytes });
    this.maxDecodedChunkBytes = this.decodedChunks.maxEntryBytes;
  }

  share<T extends Uint8Array | undefined>(key: string, fetch: () => Promise<T>): Promise<T> {
    return this.requests.run(key, fetch) as Promise<T>;
  }

  /**
   * Reads these caches but stores nothing and shares no request: for a reader whose bytes may
   * not be the snapshot's (a writable session), which may still use what others cached.
   */
  readOnlyView(): QueryCaches {
    return {
      shardIndexes: lookupOnly(this.shardIndexes),
      chunks: lookupOnly(this.chunks),
      decodedChunks: lookupOnly(this.decodedChunks),
      coordinates: lookupOnly(this.coordinates),
      maxDecodedChunkBytes: this.maxDecodedChunkBytes,
      share: (_key, fetch) => fetch(),
    };
  }

  /** Hits, misses and bytes held of each cache, and how many requests joined one in flight. */
  stats(): ReadCacheStats {
    return {
      shardIndexes: this.shardIndexes.stats(),
      chunks: this.chunks.stats(),
      decodedChunks: this.decodedChunks.stats(),
      coordinates: this.coordinates.stats(),
      sharedRequests: this.requests.joined,
    };
  }

  /** Empties every cache. */
  clear(): void {
    this.shardIndexes.clear();
    this.chunks.clear();
    this.decodedChunks.clear();
    this.coordinates.clear();
  }
}

function lookupOnly<V extends object>(lru: Pick<CacheView<string, V>, 'get'>): CacheView<string, V> {
  return {
    get: (key) => lru.get(key),
    set: () => {},
    delete: () => {},
    load: async (key, loader) => lru.get(key) ?? loader(),
  };
}

/** The cache key of a byte range of an object (an inner chunk of a shard). */
export function rangeCacheKey(key: string, offset: number, length: number): string {
  return `${key}#${offset}+${length}`;
}
