// Planner pass 3: index sets to chunks. The selection splits into boxes (one per combination of
// index runs); each box is projected onto the chunk grid with the engine's own projection, and
// for a sharded array onto the inner-chunk grid of every touched shard. A shard whose inner
// chunks are all needed is read whole, by the same rule the engine's shard reader applies.
import type { ZarrArray } from '../../engine/array.ts';
import { zipEvery, zipMap } from '../../engine/indexing.ts';
import { forEachProduct, projectDim, type ChunkProjection } from '../../engine/selection.ts';
import type { ShardingCodec } from '../../format/codecs/sharding.ts';
import type { ChunkBox } from '../source.ts';
import type { DimSet, IndexRun } from './dim-set.ts';

/** One box of the selection: a run per dimension and where it lands in the result. */
export interface Box {
  readonly runs: readonly IndexRun[];
  readonly outStart: readonly number[];
}

/** How one chunk object is needed: whole, or only some inner chunks (entry numbers) of a shard. */
export interface ChunkUse {
  readonly key: string;
  readonly coords: readonly number[];
  whole: boolean;
  readonly inner: Set<number>;
}

export interface ChunkPassResult {
  readonly boxes: readonly Box[];
  /** The caller's to refine (the decoded pass drops chunks it finds decoded in the cache). */
  readonly chunks: Map<string, ChunkUse>;
  /** Per box, the range of chunk-grid coordinates it touches (for manifest extents). */
  readonly chunkBoxes: readonly ChunkBox[];
}

export function splitIntoBoxes(sets: readonly DimSet[]): Box[] {
  if (sets.some((s) => s.length === 0)) return [];
  const withOffsets = sets.map((runs) => {
    let at = 0;
    return runs.map((run) => {
      const item = { run, out: at };
      at += run.count;
      return item;
    });
  });
  const boxes: Box[] = [];
  forEachProduct(withOffsets, (items) => boxes.push({ runs: items.map((i) => i.run), outStart: items.map((i) => i.out) }));
  return boxes;
}

export function planChunks(array: ZarrArray, sets: readonly DimSet[]): ChunkPassResult {
  const boxes = splitIntoBoxes(sets);
  const chunks = new Map<string, ChunkUse>();
  const chunkBoxes: ChunkBox[] = [];
  const sharding = array.chain.sharding;
  for (const box of boxes) {
    const perDim = zipMap(box.runs, array.chunkShape, (r, size) => projectDim({ start: r.start, step: r.step, count: r.count, drop: false }, size));
    const ranges = perDim.map(chunkRange);
    chunkBoxes.push({ from: ranges.map((r) => r.from), to: ranges.map((r) => r.to) });
    forEachProduct(perDim, (ps) => {
      const coords = ps.map((p) => p.chunk);
      const key = array.chunkKey(coords);
      let use = chunks.get(key);
      if (!use) chunks.set(key, (use = { key, coords, whole: false, inner: new Set() }));
      if (!sharding || readsWholeShard(sharding, ps)) use.whole = true;
      else for (const i of innerChunksOf(sharding, ps)) use.inner.add(i);
    });
  }
  return { boxes, chunks, chunkBoxes };
}

/**
 * Mirrors the engine's shard reader (src/engine/chunk-io.ts, `coversAllInner`): a selection that
 * needs every inner chunk of a shard is read with one whole-object GET. The query tests assert
 * the executor makes no request the plan did not predict, so a drift here fails them.
 */
function readsWholeShard(codec: ShardingCodec, ps: readonly ChunkProjection[]): boolean {
  const grid = zipMap(codec.innerChunkShape, codec.chunksPerShard, (inner, perShard) => ({ inner, perShard }));
  return zipEvery(ps, grid, (p, { inner, perShard }) => {
    const lo = Math.min(p.start, p.start + (p.count - 1) * p.step);
    const hi = Math.max(p.start, p.start + (p.count - 1) * p.step);
    return Math.floor(lo / inner) === 0 && Math.floor(hi / inner) === perShard - 1 && Math.abs(p.step) <= inner;
  });
}

/** The chunks a run's projection touches, first to last (an empty run touches none). */
function chunkRange(ps: readonly ChunkProjection[]): { from: number; to: number } {
  const first = ps[0];
  const last = ps[ps.length - 1];
  return first && last ? { from: first.chunk, to: last.chunk + 1 } : { from: 0, to: 0 };
}

function innerChunksOf(codec: ShardingCodec, ps: readonly ChunkProjection[]): number[] {
  const inner = zipMap(ps, codec.innerChunkShape, (p, size) => projectDim({ start: p.start, step: p.step, count: p.count, drop: false }, size));
  const out: number[] = [];
  forEachProduct(inner, (q) => out.push(codec.innerIndex(q.map((p) => p.chunk))));
  return out;
}
