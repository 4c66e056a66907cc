// A byte-budgeted LRU cache with single-flight loading: concurrent `load` calls for one key share
// one fetch, so a hundred readers opening the same snapshot cost one GET. Values are immutable
// objects (decoded snapshots, manifests), so sharing them between readers is safe.
import { LRUCache } from 'lru-cache';

export interface ByteLruOptions<V> {
  /** Total budget in bytes, > 0. An entry larger than the budget is returned but not kept. */
  maxBytes: number;
  /** Estimated bytes an entry holds in memory (at least 1). */
  sizeOf: (value: V) => number;
}

/** Counters of one byte-budgeted LRU cache. */
export interface ByteLruStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  /** Loads that joined a fetch already in flight. */
  joined: number;
  /** Entries dropped to stay within the budget (not deletes, replacements or clears). */
  evictions: number;
}

/** Shares one run of a fetch between concurrent callers of the same key; keeps nothing after. */
export class SingleFlight<K, V> {
  private readonly inFlight = new Map<K, Promise<V>>();
  /** Calls that joined a run already in flight. */
  joined = 0;

  run(key: K, fetch: () => Promise<V>): Promise<V> {
    const pending = this.inFlight.get(key);
    if (pending) {
      this.joined++;
      return pending;
    }
    const done = () => this.inFlight.delete(key);
    const promise = fetch().finally(done);
    this.inFlight.set(key, promise);
    return promise;
  }

  get size(): number {
    return this.inFlight.size;
  }
}

/** The cache operations readers use; ByteLru implements them, and so do read-only views of one. */
export interface CacheView<K extends string, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  /** The cached value, or the result of `loader`. */
  load(key: K, loader: () => Promise<V>): Promise<V>;
}

export class ByteLru<K extends string, V extends object> implements CacheView<K, V> {
  private readonly cache: LRUCache<K, V>;
  private readonly flights = new SingleFlight<K, V>();
  private readonly sizeOf: (value: V) => number;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly options: ByteLruOptions<V>) {
    if (!(Number.isFinite(options.maxBytes) && options.maxBytes > 0)) {
      throw new RangeError(`maxBytes must be a positive number of bytes, got ${options.maxBytes}`);
    }
    this.sizeOf = options.sizeOf;
    this.cache = new LRUCache<K, V>({
      maxSize: options.maxBytes,
      sizeCalculation: (value) => Math.max(1, Math.ceil(this.sizeOf(value))),
      dispose: (_value, _key, reason) => {
        if (reason === 'evict') this.evictions++;
      },
    });
  }

  get(key: K): V | undefined {
    return this.cache.get(key);
  }

  set(key: K, value: V): void {
    if (Math.max(1, this.sizeOf(value)) <= this.options.maxBytes) this.cache.set(key, value);
  }

  delete(key: K): void {
    this.cache.delete(key);
  }

  /** The cached value, or the result of `loader` (run once for all concurrent callers). */
  load(key: K, loader: () => Promise<V>): Promise<V> {
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.hits++;
      return Promise.resolve(hit);
    }
    const joinedBefore = this.flights.joined;
    // A failed load is not cached: the next caller retries.
    const promise = this.flights.run(key, async () => {
      const value = await loader();
      this.set(key, value);
      return value;
    });
    if (this.flights.joined === joinedBefore) this.misses++;
    return promise;
  }

  stats(): ByteLruStats {
    return {
      entries: this.cache.size,
      bytes: this.cache.calculatedSize,
      maxBytes: this.options.maxBytes,
      hits: this.hits,
      misses: this.misses,
      joined: this.flights.joined,
      evictions: this.evictions,
    };
  }

  clear(): void {
    this.cache.clear();
  }
}
