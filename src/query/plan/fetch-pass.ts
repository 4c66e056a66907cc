// Planner pass 4: chunks to requests. Partly-read shards need their index (from the cache, or
// one ranged read each, with bounded concurrency); the index turns inner chunks into byte
// ranges, which are coalesced per object. Whole chunks are one GET each. Pieces already in the
// chunk cache are not requested at all.
import { rangeCacheKey, type QueryCaches } from '../../cache/read-caches.ts';
import { sharedLoad } from '../../engine/abort.ts';
import { mapLimit } from '../../engine/storage/limiter.ts';
import { checkedAt } from '../../engine/indexing.ts';
import type { ZarrStore } from '../../engine/store.ts';
import type { ByteRange } from '../../engine/storage/types.ts';
import type { ShardingCodec } from '../../format/codecs/sharding.ts';
import { floeError } from '../../errors.ts';
import type { ChunkUse } from './chunk-pass.ts';
import { coalesceRanges, type ByteRangeWant, type CoalesceOptions } from './coalesce.ts';
import type { PlannedRequest, ShardIndexUse } from './plan-types.ts';

/** Bytes already in hand when execution starts: what the executor's store view serves. */
export interface Prefetched {
  /** Whole objects; null for an object known to be absent. */
  readonly whole: Map<string, Uint8Array | null>;
  /** Raw shard indexes; null for an absent shard. */
  readonly indexes: Map<string, Uint8Array | null>;
  /** Byte spans of objects, by key. */
  readonly spans: Map<string, { offset: number; bytes: Uint8Array }[]>;
}

export interface RequestJob {
  readonly request: PlannedRequest;
  /** The wanted ranges inside a ranged request, to cache one by one. */
  readonly pieces: readonly ByteRangeWant[];
}

export interface FetchPassInput {
  readonly chunks: ReadonlyMap<string, ChunkUse>;
  readonly sharding: ShardingCodec | undefined;
  /** Encoded size of a whole chunk when the codecs fix it (uncompressed), else undefined. */
  readonly wholeSize: number | undefined;
}

export interface FetchPassContext {
  readonly indexStore: ZarrStore;
  /** The query's signal: an index load shared with another query outlives that query's abort. */
  readonly signal: AbortSignal | undefined;
  readonly caches: QueryCaches | undefined;
  readonly scope: string;
  readonly concurrency: number;
  readonly coalesce: CoalesceOptions;
  readonly prefetched: Prefetched;
}

export interface FetchPassResult {
  readonly shardIndexes: ShardIndexUse[];
  readonly jobs: RequestJob[];
  cachedPieces: number;
  emptyPieces: number;
}

export function indexRange(codec: ShardingCodec): ByteRange {
  return codec.indexLocation === 'end' ? { suffixLength: codec.indexByteLength } : { offset: 0, length: codec.indexByteLength };
}

export async function planFetches(input: FetchPassInput, ctx: FetchPassContext, out: FetchPassResult): Promise<void> {
  const partial: ChunkUse[] = [];
  for (const use of input.chunks.values()) {
    if (use.whole || !input.sharding) planWhole(use.key, input.wholeSize, ctx, out);
    else partial.push(use);
  }
  const codec = input.sharding;
  if (!codec || partial.length === 0) return;
  await mapLimit(partial, ctx.concurrency, async (use) => {
    const raw = await loadIndex(use.key, codec, ctx, out);
    if (!raw) return;
    const index = codec.decodeIndex(raw);
    const wants: ByteRangeWant[] = [];
    for (const i of use.inner) {
      const offset = checkedAt(index.offsets, i, 'CORRUPT_OBJECT', 'inner chunk outside the shard index', use.key);
      if (offset < 0) {
        out.emptyPieces++;
        continue;
      }
      const want = { offset, length: checkedAt(index.lengths, i, 'CORRUPT_OBJECT', 'inner chunk outside the shard index', use.key) };
      const hit = ctx.caches?.chunks.get(ctx.scope + rangeCacheKey(use.key, want.offset, want.length));
      if (hit) {
        out.cachedPieces++;
        addSpan(ctx.prefetched, use.key, want.offset, hit);
      } else wants.push(want);
    }
    for (const r of coalesceRanges(wants, ctx.coalesce)) {
      out.jobs.push({
        request: { key: use.key, range: { offset: r.offset, length: r.length }, pieces: r.pieces.length, bytes: r.length, wantedBytes: r.wantedBytes },
        pieces: r.pieces,
      });
    }
  });
}

function planWhole(key: string, size: number | undefined, ctx: FetchPassContext, out: FetchPassResult): void {
  const hit = ctx.caches?.chunks.get(ctx.scope + key);
  if (hit) {
    out.cachedPieces++;
    ctx.prefetched.whole.set(key, hit);
    return;
  }
  out.jobs.push({ request: { key, range: undefined, pieces: 1, bytes: size, wantedBytes: size }, pieces: [] });
}

/** The raw index of a shard: from the cache, else one ranged read (single-flight when cached). */
async function loadIndex(key: string, codec: ShardingCodec, ctx: FetchPassContext, out: FetchPassResult): Promise<Uint8Array | undefined> {
  const fetchIndex = async () => {
    const bytes = await ctx.indexStore.getRange(key, indexRange(codec));
    if (bytes && bytes.length !== codec.indexByteLength) {
      throw floeError('CORRUPT_OBJECT', `shard index is ${bytes.length} bytes, expected ${codec.indexByteLength}`, { where: key });
    }
    return bytes;
  };
  const cacheKey = ctx.scope + key;
  const cached = ctx.caches?.shardIndexes.get(cacheKey);
  let raw: Uint8Array | undefined;
  if (cached) raw = cached;
  else if (ctx.caches) {
    // An absent shard loads as an empty marker (the LRU holds objects only), then is dropped:
    // absence is not cached, a later write may create the shard.
    const caches = ctx.caches;
    raw = await sharedLoad(() => caches.shardIndexes.load(cacheKey, async () => (await fetchIndex()) ?? new Uint8Array(0)), ctx.signal);
    if (raw.length === 0) (ctx.caches.shardIndexes.delete(cacheKey), (raw = undefined));
  } else raw = await fetchIndex();
  out.shardIndexes.push({ key, status: cached ? 'cached' : raw ? 'fetched' : 'missing', bytes: raw?.length ?? 0 });
  ctx.prefetched.indexes.set(key, raw ?? null);
  return raw;
}

export function addSpan(p: Prefetched, key: string, offset: number, bytes: Uint8Array): void {
  const list = p.spans.get(key);
  if (list) list.push({ offset, bytes });
  else p.spans.set(key, [{ offset, bytes }]);
}
