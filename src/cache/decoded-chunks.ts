// A byte-budgeted LRU of decoded chunks with request coalescing, for a burst of small reads over
// the same compressed chunks (cutouts): a chunk is fetched and decoded once, however many windows
// ask for it at once or one after another.
//
// Readers borrow a chunk (`lend`): their `use` runs synchronously with the chunk and must not keep
// it, so a buffer the cache decoded into can be reused for the next decode once its entry is
// evicted, and a burst of misses does not fault in fresh memory per chunk. `get`/`load` hand the
// chunk out to keep (the query layer pins chunks while it plans); such an entry's buffer is never
// reused.
//
// Concurrent `lend` calls for one key share one load. The load runs with a signal of its own,
// aborted only when every caller waiting for it gave up: one caller's abort never fails another.
// `invalidate` detaches a load in flight, so bytes read before a write never land in the cache.
import { LRUCache } from 'lru-cache';
import { floeError } from '../errors.ts';
import type { NdArray } from '../format/zarr/ndarray.ts';
import type { ByteLruStats, CacheView } from './lru.ts';

/** What a load produced: the decoded chunk, and the cache-provided buffer it decoded into, if any. */
export interface LoadedChunk {
  readonly chunk: NdArray;
  /** A buffer from `takeBuffer` that `chunk` lives in: reused after eviction. */
  readonly own?: Uint8Array | undefined;
}

/** Loads a chunk for the cache: undefined when it does not exist (readers fill it). */
export type ChunkLoader = (signal: AbortSignal) => Promise<LoadedChunk | undefined>;

export interface LendOptions {
  /** Store the chunk once loaded (a small read); when false, only a cached chunk is used. */
  readonly admit: boolean;
  readonly signal?: AbortSignal | undefined;
  /** The error a caller whose signal fired is rejected with. */
  readonly abortError?: (signal: AbortSignal) => unknown;
}

/** Counters of a decoded-chunk cache (`ReadCacheStats.decodedChunks`). */
export interface DecodedChunkStats extends ByteLruStats {
  /** Loads run (each one fetch and decode). */
  loads: number;
  /** Decodes into a buffer reused from an evicted entry. */
  reusedBuffers: number;
}

interface Entry {
  readonly chunk: NdArray;
  readonly bytes: number;
  readonly own: Uint8Array | undefined;
  /** Handed out to keep (get/load): its buffer is never reused. */
  escaped: boolean;
}

interface Waiter {
  readonly use: (chunk: NdArray) => void;
  readonly resolve: (found: boolean) => void;
  readonly reject: (err: unknown) => void;
}

interface Flight {
  readonly waiters: Set<Waiter>;
  readonly controller: AbortController;
  readonly admit: boolean;
}

/** Buffers kept for reuse beyond the budget: enough for the decode after an eviction. */
const SPARE_BUFFERS = 2;

export class DecodedChunkCache implements CacheView<string, NdArray> {
  /** The largest chunk kept, in bytes: an eighth of the budget, so one read cannot flush the rest. */
  readonly maxEntryBytes: number;
  private readonly lru: LRUCache<string, Entry>;
  private readonly flights = new Map<string, Flight>();
  private readonly keptLoads = new Map<string, Promise<NdArray>>();
  private readonly spare: Uint8Array[] = [];
  private counts = { hits: 0, misses: 0, joined: 0, evictions: 0, loads: 0, reusedBuffers: 0 };

  /** `maxBytes`: the budget of decoded bytes held, a positive number. */
  constructor(readonly maxBytes: number) {
    if (!(Number.isFinite(maxBytes) && maxBytes > 0)) {
      throw floeError('INVALID_ARGUMENT', `a decoded-chunk cache needs a positive byte budget, got ${maxBytes}; pass 0 to the store or repository option to turn caching off`);
    }
    this.maxEntryBytes = Math.floor(maxBytes / 8);
    this.lru = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (e) => Math.max(1, e.bytes),
      dispose: (entry, _key, reason) => {
        if (reason === 'evict') this.counts.evictions++;
        this.recycle(entry);
      },
    });
  }

  /**
   * Runs `use` with the chunk at `key` and resolves true; false when the chunk does not exist.
   * On a miss, `load` runs once for every caller waiting meanwhile; with `admit` the chunk is
   * kept. Without `admit` a miss resolves undefined and loads nothing: the caller reads the
   * chunk its own way.
   */
  lend(key: string, load: ChunkLoader, use: (chunk: NdArray) => void, options: LendOptions): Promise<boolean | undefined> {
    const hit = this.lru.get(key);
    if (hit) {
      this.counts.hits++;
      try {
        use(hit.chunk);
      } catch (err) {
        return Promise.reject(err);
      }
      return Promise.resolve(true);
    }
    let flight = this.flights.get(key);
    if (!flight && !options.admit) return Promise.resolve(undefined);
    if (flight) this.counts.joined++;
    else flight = this.start(key, load, options.admit);
    return this.wait(key, flight, use, options);
  }

  /** A buffer of `n` bytes for a load to decode into (reused from an evicted entry when one fits). */
  takeBuffer(n: number): Uint8Array {
    const i = this.spare.findIndex((b) => b.length >= n && b.length <= 2 * n);
    if (i < 0) return new Uint8Array(n);
    this.counts.reusedBuffers++;
    const [buffer] = this.spare.splice(i, 1);
    return buffer ?? new Uint8Array(n);
  }

  /** Hands back a buffer from `takeBuffer` that the load did not use. */
  giveBack(buffer: Uint8Array): void {
    this.keepSpare(buffer);
  }

  /** Chunks held. */
  get size(): number {
    return this.lru.size;
  }

  /** Forgets `key` and every range of it (`key#...`), and detaches a load in flight for them. */
  invalidate(key: string): void {
    this.drop((k) => k === key || k.startsWith(`${key}#`));
  }

  /** Forgets every key starting with `prefix`, loads in flight included. */
  invalidatePrefix(prefix: string): void {
    this.drop((k) => k.startsWith(prefix));
  }

  // ---- CacheView: chunks handed out to keep (the query layer) ----

  get(key: string): NdArray | undefined {
    const entry = this.lru.get(key);
    if (entry) entry.escaped = true;
    return entry?.chunk;
  }

  set(key: string, chunk: NdArray): void {
    const bytes = decodedBytes(chunk);
    if (bytes <= this.maxBytes) this.lru.set(key, { chunk, bytes, own: undefined, escaped: true });
  }

  delete(key: string): void {
    this.lru.delete(key);
  }

  /** The cached chunk, or the result of `loader` (run once for concurrent callers), kept. */
  load(key: string, loader: () => Promise<NdArray>): Promise<NdArray> {
    const hit = this.get(key);
    if (hit) {
      this.counts.hits++;
      return Promise.resolve(hit);
    }
    const pending = this.keptLoads.get(key);
    if (pending) {
      this.counts.joined++;
      return pending;
    }
    this.counts.misses++;
    // Kept only while still current: invalidate() detaches a load that may have read stale bytes.
    const promise: Promise<NdArray> = loader().then(
      (chunk) => {
        if (this.keptLoads.get(key) === promise) this.set(key, chunk);
        return chunk;
      },
    ).finally(() => {
      if (this.keptLoads.get(key) === promise) this.keptLoads.delete(key);
    });
    this.keptLoads.set(key, promise);
    return promise;
  }

  stats(): DecodedChunkStats {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize, maxBytes: this.maxBytes, ...this.counts };
  }

  clear(): void {
    this.lru.clear();
    this.flights.clear();
    this.spare.length = 0;
  }

  private start(key: string, load: ChunkLoader, admit: boolean): Flight {
    const flight: Flight = { waiters: new Set(), controller: new AbortController(), admit };
    this.flights.set(key, flight);
    this.counts.misses++;
    this.counts.loads++;
    load(flight.controller.signal).then(
      (loaded) => this.finish(key, flight, loaded),
      (err: unknown) => this.fail(key, flight, err),
    );
    return flight;
  }

  private wait(key: string, flight: Flight, use: (chunk: NdArray) => void, options: LendOptions): Promise<boolean> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(options.abortError?.(signal) ?? signal.reason);
    return new Promise<boolean>((resolve, reject) => {
      const onAbort = (): void => {
        if (!signal || !flight.waiters.delete(waiter)) return;
        // The last one waiting gave up: stop the load; the next caller starts afresh.
        if (flight.waiters.size === 0) {
          if (this.flights.get(key) === flight) this.flights.delete(key);
          flight.controller.abort(signal.reason);
        }
        reject(options.abortError?.(signal) ?? signal.reason);
      };
      const waiter: Waiter = {
        use,
        resolve: (found) => (signal?.removeEventListener('abort', onAbort), resolve(found)),
        reject: (err) => (signal?.removeEventListener('abort', onAbort), reject(err)),
      };
      flight.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private finish(key: string, flight: Flight, loaded: LoadedChunk | undefined): void {
    const current = this.flights.get(key) === flight;
    if (current) this.flights.delete(key);
    if (loaded === undefined) return this.settle(flight, undefined);
    // Lend it to every waiter first (synchronously: none can see the buffer reused), then keep it.
    this.settle(flight, loaded.chunk);
    const bytes = Math.max(decodedBytes(loaded.chunk), loaded.own?.byteLength ?? 0);
    // A load detached by invalidate read bytes that may be stale: lent to those who asked before
    // the write, never kept.
    if (current && flight.admit && bytes <= this.maxEntryBytes) {
      this.lru.set(key, { chunk: loaded.chunk, bytes, own: loaded.own, escaped: false });
    } else if (loaded.own) {
      this.keepSpare(loaded.own);
    }
  }

  private settle(flight: Flight, chunk: NdArray | undefined): void {
    for (const waiter of flight.waiters) {
      try {
        if (chunk) waiter.use(chunk);
        waiter.resolve(chunk !== undefined);
      } catch (err) {
        waiter.reject(err);
      }
    }
    flight.waiters.clear();
  }

  private fail(key: string, flight: Flight, err: unknown): void {
    if (this.flights.get(key) === flight) this.flights.delete(key);
    for (const waiter of flight.waiters) waiter.reject(err);
    flight.waiters.clear();
  }

  private drop(matches: (key: string) => boolean): void {
    for (const key of [...this.lru.keys()]) if (matches(key)) this.lru.delete(key);
    for (const key of [...this.flights.keys()]) if (matches(key)) this.flights.delete(key);
    for (const key of [...this.keptLoads.keys()]) if (matches(key)) this.keptLoads.delete(key);
  }

  private recycle(entry: Entry): void {
    if (!entry.escaped && entry.own) this.keepSpare(entry.own);
  }

  private keepSpare(buffer: Uint8Array): void {
    this.spare.push(buffer);
    if (this.spare.length > SPARE_BUFFERS) this.spare.shift();
  }
}

/** Bytes a decoded chunk holds (strings and objects estimated at 64 bytes each). */
export function decodedBytes(chunk: NdArray): number {
  const data = chunk.data;
  return ArrayBuffer.isView(data) ? data.byteLength : data.length * 64;
}
