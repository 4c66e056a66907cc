// Caches for reads that plan before they fetch (the query planner): raw shard indexes, encoded
// chunk bytes (whole chunks or inner-chunk ranges), and small decoded values such as coordinate
// arrays. Each is a byte-budgeted LRU with single-flight loading (./lru.ts).
//
// Keys are store keys, optionally under a scope: a plain Zarr store is mutable, so share one
// ReadCaches only between readers of the same unchanging data (an Icechunk snapshot, a store
// nobody writes to) or give each a distinct scope, and `clear()` after writing.
import { ByteLru, type ByteLruStats } from './lru.ts';

export interface ReadCacheOptions {
  /** Budget for raw shard indexes. Default 16 MiB (a million inner-chunk entries). */
  shardIndexBytes?: number;
  /** Budget for encoded chunk bytes. Default 64 MiB. */
  chunkBytes?: number;
  /** Budget for decoded small values (coordinates). Default 16 MiB. */
  decodedBytes?: number;
}

/** A decoded value and the bytes it holds, so one LRU can budget values of any shape. */
export interface Sized<T> {
  readonly value: T;
  readonly bytes: number;
}

export interface ReadCacheStats {
  shardIndexes: ByteLruStats;
  chunks: ByteLruStats;
  decoded: ByteLruStats;
}

export class ReadCaches {
  readonly shardIndexes: ByteLru<string, Uint8Array>;
  readonly chunks: ByteLru<string, Uint8Array>;
  readonly decoded: ByteLru<string, Sized<unknown>>;

  constructor(options: ReadCacheOptions = {}) {
    this.shardIndexes = new ByteLru({ maxBytes: options.shardIndexBytes ?? 16 * 2 ** 20, sizeOf: (b) => b.byteLength });
    this.chunks = new ByteLru({ maxBytes: options.chunkBytes ?? 64 * 2 ** 20, sizeOf: (b) => b.byteLength });
    this.decoded = new ByteLru({ maxBytes: options.decodedBytes ?? 16 * 2 ** 20, sizeOf: (s) => s.bytes });
  }

  stats(): ReadCacheStats {
    return { shardIndexes: this.shardIndexes.stats(), chunks: this.chunks.stats(), decoded: this.decoded.stats() };
  }

  clear(): void {
    this.shardIndexes.clear();
    this.chunks.clear();
    this.decoded.clear();
  }
}

/** The cache key of a byte range of an object (an inner chunk of a shard). */
export function rangeCacheKey(key: string, offset: number, length: number): string {
  return `${key}#${offset}+${length}`;
}
