// A storage whose `chunks/` listing holds `count` chunk objects that exist only as a listing:
// keys made on the fly from a counter, in key order, merged with the inner storage's real chunk
// keys, all older than any cutoff. GC can then sweep 10^7 objects without 10^7 objects stored
// anywhere. Deleting a synthetic key marks it in a bitmap (one bit per key: 1.25 MB at 10^7), so
// the bench can check that every one was deleted exactly once and no real key was touched.
import { asChunkId, decodeBase32 } from '../../src/format/icechunk/ids.ts';
import { chunkKey, PREFIXES } from '../../src/format/icechunk/keys.ts';
import type { AbortOptions, ByteRange, CopyOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions } from '../../src/engine/storage/types.ts';

// Synthetic ids: these 4 bytes, then the counter as 8 big-endian bytes. Crockford base32 keeps
// byte order in key order, so the keys come out sorted by counter.
const MARK = [0x5c, 0x4e, 0x7a, 0x11] as const;
const OLD = new Date('2020-01-01T00:00:00Z');

export function syntheticChunkKey(i: number): string {
  const id = new Uint8Array(12);
  id.set(MARK);
  const view = new DataView(id.buffer);
  view.setUint32(4, Math.floor(i / 2 ** 32));
  view.setUint32(8, i >>> 0);
  return chunkKey(asChunkId(id));
}

/** Where the synthetic keys start: any key with this text in front is one of them. */
const SYNTHETIC_PREFIX = syntheticChunkKey(0).slice(0, PREFIXES.chunks.length + 6);

export class SyntheticListingStorage implements ObjectStorage {
  readonly kind: string;
  private readonly deletedBits: Uint8Array;
  /** Synthetic keys deleted, and deleted twice (which would be a bug). */
  deleted = 0;
  deletedTwice = 0;
  /** Real (inner) keys deleted. */
  readonly realDeleted: string[] = [];

  constructor(
    private readonly inner: ObjectStorage,
    readonly count: number,
  ) {
    this.kind = inner.kind;
    this.deletedBits = new Uint8Array(Math.ceil(count / 8));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The counter of a synthetic key, or undefined for any other key. */
  private indexOf(key: string): number | undefined {
    if (!key.startsWith(SYNTHETIC_PREFIX)) return undefined;
    const id = decodeBase32(key.slice(PREFIXES.chunks.length), 12);
    if (!id || MARK.some((b, k) => id[k] !== b)) return undefined;
    const view = new DataView(id.buffer, id.byteOffset, 12);
    const i = view.getUint32(4) * 2 ** 32 + view.getUint32(8);
    return i < this.count ? i : undefined;
  }

  /** The least counter whose key is >= `key` (count when none). */
  private firstAfterOrAt(key: string): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (syntheticChunkKey(mid) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    const real = this.inner.list(prefix, options)[Symbol.asyncIterator]();
    if (!PREFIXES.chunks.startsWith(prefix) && !prefix.startsWith(PREFIXES.chunks)) {
      for (let r = await real.next(); !r.done; r = await real.next()) yield r.value;
      return;
    }
    const after = options?.startAfter;
    let i = after === undefined ? 0 : this.firstAfterOrAt(after);
    if (after !== undefined && i < this.count && syntheticChunkKey(i) === after) i++;
    let next = await real.next();
    while (i < this.count || !next.done) {
      const synthetic = i < this.count ? syntheticChunkKey(i) : undefined;
      if (synthetic !== undefined && synthetic.startsWith(prefix) && (next.done || synthetic < next.value.key)) {
        i++;
        yield { key: synthetic, size: 4, lastModified: OLD };
      } else if (!next.done) {
        yield next.value;
        next = await real.next();
      } else {
        i++; // a synthetic key outside a narrower prefix
      }
    }
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    const real: string[] = [];
    for (const key of keys) {
      const i = this.indexOf(key);
      if (i === undefined) {
        real.push(key);
        continue;
      }
      const bit = 1 << (i & 7);
      const at = i >> 3;
      const byte = this.deletedBits[at] ?? 0;
      if (byte & bit) this.deletedTwice++;
      else this.deleted++;
      this.deletedBits[at] = byte | bit;
    }
    if (real.length > 0) {
      this.realDeleted.push(...real);
      await this.inner.delete(real, options);
    }
  }

  get(key: string, range?: ByteRange, options?: AbortOptions): Promise<GetResult | null> {
    return this.inner.get(key, range, options);
  }
  head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    return this.inner.head(key, options);
  }
  put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: string }> {
    return this.inner.put(key, bytes, options);
  }
  copy(from: string, to: string, options?: CopyOptions): Promise<{ version: string }> {
    return this.inner.copy(from, to, options);
  }
  listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    return this.inner.listDir(prefix, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
