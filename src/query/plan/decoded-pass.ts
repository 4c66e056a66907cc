// Planner pass 3b (with caches): decoded chunks. The unit of decoding is a chunk, or an inner
// chunk of a shard. Units already in the decoded-chunk cache are taken now (so an eviction before
// execution cannot lose them) and dropped from the chunk uses: their bytes are not fetched, and a
// shard whose needed inner chunks are all decoded needs no index either. Only arrays whose units
// are small enough to cache (fixed-size types) take part, and the planner reads one unit by unit
// (and so keeps its units decoded) only once it is hot: some of its units were found decoded or
// their encoded bytes cached. A cold array keeps the box-by-box read, which costs less.
import type { QueryCaches } from '../../cache/read-caches.ts';
import type { ZarrArray } from '../../engine/array.ts';
import { zipMap } from '../../engine/indexing.ts';
import { forEachProduct, slice, type Selection } from '../../engine/selection.ts';
import type { ShardingCodec } from '../../format/codecs/sharding.ts';
import { product, type NdArray } from '../../format/zarr/ndarray.ts';
import type { ChunkUse } from './chunk-pass.ts';

/** The grid of decode units of one array: its chunks, or the inner chunks of its shards. */
export interface UnitGrid {
  readonly shape: readonly number[];
  /** The unit's cache key (without scope): its chunk key, plus `#<inner index>` in a shard. */
  key(coords: readonly number[]): string;
  /** The unit's region of the array (clipped at the array's edge). */
  region(coords: readonly number[]): Selection;
}

export function unitGrid(array: ZarrArray): UnitGrid {
  const sharding = array.chain.sharding;
  const shape = sharding ? sharding.innerChunkShape : array.chunkShape;
  const dims = zipMap(shape, array.shape, (size, length) => ({ size, length }));
  const region = (coords: readonly number[]) => zipMap(coords, dims, (c, { size, length }) => slice(c * size, Math.min((c + 1) * size, length)));
  if (!sharding) return { shape, key: (coords) => array.chunkKey(coords), region };
  const perShard = sharding.chunksPerShard;
  return {
    shape,
    key: (coords) => `${array.chunkKey(zipMap(coords, perShard, (c, n) => Math.floor(c / n)))}#${sharding.innerIndex(zipMap(coords, perShard, (c, n) => c % n))}`,
    region,
  };
}

/** Whether the array's decoded units go through the decoded-chunk cache. */
export function cachesDecodedUnits(array: ZarrArray, caches: QueryCaches | undefined): caches is QueryCaches {
  const dt = array.dataType;
  const unit = array.chain.sharding?.innerChunkShape ?? array.chunkShape;
  return caches !== undefined && dt.laneBytes > 0 && product(unit) * dt.lanes * dt.laneBytes <= caches.maxDecodedChunkBytes;
}

/**
 * Moves cached decoded units of `chunks` into `pinned` (by unscoped unit key) and drops them from
 * the uses; returns how many it took. The uses left are planned as the engine will read them unit
 * by unit (a shard read whole stays whole: the engine's ranged reads are served from it).
 */
export function pinDecodedUnits(array: ZarrArray, chunks: Map<string, ChunkUse>, caches: QueryCaches, scope: string, pinned: Map<string, NdArray>): number {
  let taken = 0;
  const take = (key: string): boolean => {
    const hit = caches.decodedChunks.get(scope + key);
    if (hit) (pinned.set(key, hit), taken++);
    return hit !== undefined;
  };
  const sharding = array.chain.sharding;
  for (const [key, use] of chunks) {
    if (!sharding) {
      if (take(key)) chunks.delete(key);
      continue;
    }
    const needed = use.whole ? innerInBounds(array, sharding, use.coords) : [...use.inner];
    const missing = needed.filter((i) => !take(`${key}#${i}`));
    if (missing.length === 0) chunks.delete(key);
    else if (product(sharding.chunksPerShard) === 1) {
      // The executor reads one inner chunk at a time, and the engine reads a shard of one inner
      // chunk with one whole GET (chunk-io's coversAllInner), whatever the query's step.
      use.whole = true;
    } else if (missing.length < needed.length) {
      // Some inner chunks are in hand: read only the others, by range.
      use.whole = false;
      use.inner.clear();
      for (const i of missing) use.inner.add(i);
    }
  }
  return taken;
}

/** Inner-chunk numbers of a shard that hold array elements (edge shards overhang the array). */
function innerInBounds(array: ZarrArray, codec: ShardingCodec, shard: readonly number[]): number[] {
  const limits = zipMap(array.shape, codec.innerChunkShape, (length, size) => Math.ceil(length / size));
  const firsts = zipMap(shard, codec.chunksPerShard, (s, n) => s * n);
  const perDim = zipMap(codec.chunksPerShard, zipMap(firsts, limits, (first, limit) => ({ first, limit })), (n, { first, limit }) => {
    return Array.from({ length: Math.max(0, Math.min(n, limit - first)) }, (_, i) => i);
  });
  const out: number[] = [];
  forEachProduct(perDim, (coords) => out.push(codec.innerIndex(coords)));
  return out;
}
