// The store a Zarr v1 or v2 array's inner ZarrArray sees (see format/numpy/chunk-codec.ts): its
// chunk keys hold the bytes of the v3 chain (the codecs outside the chain undone on get, redone
// on set), every other key passes through. With `keepChunk` (a null fill value, whose missing
// chunks are undefined to other readers), erasing a chunk writes that chunk instead.
import { floeError } from '../errors.ts';
import { atKey, type NumpyChunkCodec } from '../format/numpy/chunk-codec.ts';
import { parseChunkKey, type ChunkKeyEncoding } from '../format/zarr/chunk-keys.ts';
import { DEFAULT_CONCURRENCY } from './storage/limiter.ts';
import type { AbortOptions, ByteRange, ListDir, ZarrStore } from './store.ts';
import type { ObjectGetOptions } from './storage/types.ts';
import { normalizeKey, readPartialValues } from './store.ts';

/** Which keys are chunks: `prefix` (the array's key prefix) + a key of `encoding` with `rank` indices. */
export interface ChunkKeys {
  readonly prefix: string;
  readonly encoding: ChunkKeyEncoding;
  readonly rank: number;
}

export class NumpyChunkStore implements ZarrStore {
  constructor(
    /** The store underneath, which holds the metadata documents. */
    readonly base: ZarrStore,
    private readonly codec: NumpyChunkCodec,
    private readonly keys: ChunkKeys,
    private readonly keepChunk: (() => Uint8Array) | undefined,
  ) {}

  get readOnly(): boolean {
    return this.base.readOnly;
  }

  isChunkKey(key: string): boolean {
    const k = normalizeKey(key);
    return k.startsWith(this.keys.prefix) && parseChunkKey(this.keys.encoding, k.slice(this.keys.prefix.length), this.keys.rank) !== undefined;
  }

  async get(key: string, options?: ObjectGetOptions): Promise<Uint8Array | undefined> {
    // A bound on the chain's bytes says nothing of the stored ones (the outer codecs come first):
    // the outer codecs' decoded-size limits guard those.
    const stored = await this.base.get(key, options?.maxBytes === undefined ? options : { signal: options.signal });
    if (!stored || !this.isChunkKey(key)) return stored;
    return atKey(key, () => this.codec.decode(stored));
  }

  async getRange(key: string, range: ByteRange, options?: AbortOptions): Promise<Uint8Array | undefined> {
    if (!this.isChunkKey(key)) return this.base.getRange(key, range, options);
    const whole = await this.get(key, options);
    if (!whole) return undefined;
    if ('suffixLength' in range) return whole.subarray(Math.max(0, whole.length - range.suffixLength));
    return whole.subarray(range.offset, range.length === undefined ? undefined : range.offset + range.length);
  }

  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[], options?: AbortOptions): Promise<(Uint8Array | undefined)[]> {
    return readPartialValues(this, requests, DEFAULT_CONCURRENCY, options);
  }

  async set(key: string, value: Uint8Array, options?: AbortOptions): Promise<void> {
    await this.base.set(key, this.isChunkKey(key) ? atKey(key, () => this.codec.encode(value)) : value, options);
  }

  async setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[], options?: AbortOptions): Promise<void> {
    for (const [key] of requests) {
      if (this.isChunkKey(key)) throw floeError('UNSUPPORTED', 'partial writes into an encoded chunk of a Zarr v1/v2 array are not supported', { where: key });
    }
    await this.base.setPartialValues(requests, options);
  }

  async erase(key: string, options?: AbortOptions): Promise<void> {
    await this.eraseValues([key], options);
  }

  async eraseValues(keys: readonly string[], options?: AbortOptions): Promise<void> {
    const keep = this.keepChunk;
    if (!keep) return this.base.eraseValues(keys, options);
    for (const k of keys.filter((key) => this.isChunkKey(key))) await this.base.set(k, keep(), options);
    await this.base.eraseValues(keys.filter((key) => !this.isChunkKey(key)), options);
  }

  erasePrefix(prefix: string, options?: AbortOptions): Promise<void> {
    return this.base.erasePrefix(prefix, options);
  }
  list(options?: AbortOptions): AsyncIterable<string> {
    return this.base.list(options);
  }
  listPrefix(prefix: string, options?: AbortOptions): AsyncIterable<string> {
    return this.base.listPrefix(prefix, options);
  }
  listDir(prefix: string, options?: AbortOptions): Promise<ListDir> {
    return this.base.listDir(prefix, options);
  }
}
