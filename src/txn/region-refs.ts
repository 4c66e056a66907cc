// An array's chunk refs gathered by manifest split region, for a commit that rewrites manifests:
// this session's changes and the refs of the base manifests being rewritten go into the bucket of
// the region holding them, and each region is merged (sorted, changes over base refs, deletions
// dropped) on its own. No structure holds every ref of the array at once in one Map or sorted
// array: a JS Map holds at most 2^24 entries, and an array can have 10^8 chunks.
import { floeError } from '../errors.ts';
import { compareChunkIndices, type ChunkRef } from '../format/icechunk/manifest.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import { MAP_CAPACITY, parseCoordsKey, type ChunkChange } from './change-set.ts';
import { regionKey } from './manifest-splitting.ts';

/** A chunk this session deleted, by index (sorted with the refs, then dropped). */
interface DeletedChunk {
  kind: 'deleted';
  index: readonly number[];
}

type RegionEntry = ChunkRef | DeletedChunk;

/** A region's base refs (in the order read) and changes, then, merged, its refs in index order. */
interface RegionBucket {
  base: ChunkRef[];
  changes: RegionEntry[];
  merged: ChunkRef[] | undefined;
}

/** One manifest's worth of refs: those of one region, sorted, and the tight box they span. */
export interface RegionGroup {
  extents: ChunkIndexRange[];
  refs: ChunkRef[];
}

type Shape = readonly { numChunks: number }[];

/**
 * The refs of one array by split region. Call `addChanges` once, then `addBase` for each base
 * manifest rewritten, then `groups()`. Refs outside the current grid are dropped as they arrive:
 * they are unreachable.
 */
export class RegionRefs {
  private readonly buckets = new Map<number | string, RegionBucket>();
  /** Regions (keys) of changes of the array's rank that lie outside the grid. */
  private readonly outsideRegions = new Set<string>();
  private readonly ids: RegionIds;
  // The bucket of the last ref placed: refs mostly arrive region by region.
  private lastId: number | string | undefined;
  private lastBucket: RegionBucket | undefined;

  constructor(
    private readonly sizes: readonly (number | undefined)[],
    private readonly shape: Shape,
    /** Regions one commit can write for the array (a JS Map's capacity; tests make it small). */
    private readonly regionCapacity = MAP_CAPACITY,
  ) {
    this.ids = new RegionIds(sizes, shape);
  }

  /** This session's changes of the array (a `null` change deletes the chunk). */
  addChanges(changes: Iterable<[string, ChunkChange]>): void {
    for (const [key, change] of changes) {
      // Only a deletion has no index of its own: the key is parsed for those alone.
      const index = change === null ? parseCoordsKey(key) : change.index;
      if (index.length !== this.shape.length) continue; // another rank: no chunk of this grid
      if (!insideGrid(index, this.shape)) this.outsideRegions.add(regionKey(index, this.sizes));
      else this.bucketOf(index).changes.push(change ?? { kind: 'deleted', index });
    }
  }

  /**
   * The keys (manifest-splitting's regionKey) of every region with a change of the array's rank,
   * inside the grid or not. Before any `addBase`: regions are then those of changes only.
   */
  changedRegionKeys(): Set<string> {
    const out = new Set(this.outsideRegions);
    for (const id of this.buckets.keys()) out.add(this.ids.keyOf(id));
    return out;
  }

  /** The refs of one base manifest that is being rewritten, in its order. */
  addBase(refs: readonly ChunkRef[]): void {
    for (const ref of refs) {
      if (insideGrid(ref.index, this.shape)) this.bucketOf(ref.index).base.push(ref);
    }
  }

  /**
   * One group per region that holds refs, in the order of each region's least ref index (the
   * order the manifests of one sorted list of every ref, split by region, come in). Each
   * region's entries are released as its group is handed out.
   */
  *groups(): Generator<RegionGroup> {
    const merged: ChunkRef[][] = [];
    for (const bucket of this.buckets.values()) {
      const refs = mergeRegion(bucket);
      if (refs.length > 0) merged.push(refs);
    }
    this.buckets.clear();
    this.lastBucket = undefined;
    this.lastId = undefined;
    merged.sort((a, b) => compareChunkIndices(firstIndex(a), firstIndex(b)));
    for (let i = 0; i < merged.length; i++) {
      const refs = merged[i] ?? [];
      merged[i] = []; // handed out: the caller writes it and lets it go
      yield { refs, extents: tightBox(refs) };
    }
  }

  private bucketOf(index: readonly number[]): RegionBucket {
    const id = this.ids.idOf(index);
    if (id === this.lastId && this.lastBucket) return this.lastBucket;
    let bucket = this.buckets.get(id);
    if (!bucket) {
      if (this.buckets.size >= this.regionCapacity) {
        throw floeError(
          'LIMIT_EXCEEDED',
          `an array's chunks fall in more than ${this.regionCapacity} manifest split regions (one manifest each); raise the split sizes (the config's manifest.splitting.split_sizes) so a manifest holds more chunks`,
          { details: { kind: 'manifest-splits', limit: this.regionCapacity } },
        );
      }
      this.buckets.set(id, (bucket = { base: [], changes: [], merged: undefined }));
    }
    this.lastId = id;
    this.lastBucket = bucket;
    return bucket;
  }
}

/**
 * A region's refs in index order: base refs with this session's changes applied. A change
 * replaces the base ref at its index and a deletion removes it; of base refs sharing an index
 * (manifests that overlap), the one read last wins.
 */
function mergeRegion(bucket: RegionBucket): ChunkRef[] {
  // Stable sorts: entries at one index keep the order they arrived in, base before changes.
  const base: RegionEntry[] = bucket.base;
  const entries = base.length === 0 ? bucket.changes : base.concat(bucket.changes);
  bucket.base = [];
  bucket.changes = [];
  entries.sort(byIndex);
  const out: ChunkRef[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const next = entries[i + 1];
    if (entry === undefined || (next !== undefined && compareChunkIndices(entry.index, next.index) === 0)) continue; // a later one wins
    if (entry.kind !== 'deleted') out.push(entry);
  }
  return out;
}

const byIndex = (a: RegionEntry, b: RegionEntry): number => compareChunkIndices(a.index, b.index);

function firstIndex(refs: readonly ChunkRef[]): readonly number[] {
  const first = refs[0];
  if (first === undefined) throw floeError('INVALID_ARGUMENT', 'an empty manifest group has no first chunk index');
  return first.index;
}

/** The least and greatest index along each dimension, as extents (to exclusive). */
function tightBox(refs: readonly ChunkRef[]): ChunkIndexRange[] {
  const lo = [...firstIndex(refs)];
  const hi = [...lo];
  // Indexed loops: this runs once per ref of the commit, often before V8 optimises it.
  for (let r = 1; r < refs.length; r++) {
    const index = refs[r]?.index ?? lo;
    for (let d = 0; d < lo.length; d++) {
      const c = index[d] ?? 0;
      if (c < (lo[d] ?? c)) lo[d] = c;
      if (c > (hi[d] ?? c)) hi[d] = c;
    }
  }
  return lo.map((from, d) => ({ from, to: (hi[d] ?? from) + 1 }));
}

/**
 * Region ids for indices inside the grid: one number per region (row-major over the regions of
 * the grid) while their count is a safe integer, else the region key. A number is what a Map
 * hashes fastest, and costs no string per ref.
 */
class RegionIds {
  /** Regions along each dimension and the id step of one region there; undefined: use keys. */
  private readonly counts: number[] | undefined;
  private readonly steps: number[] = [];

  constructor(
    private readonly sizes: readonly (number | undefined)[],
    shape: Shape,
  ) {
    const counts = shape.map((dim, d) => {
      const n = sizes[d];
      return n ? Math.max(1, Math.ceil(dim.numChunks / n)) : 1;
    });
    let total = 1;
    for (let d = counts.length - 1; d >= 0; d--) {
      this.steps[d] = total;
      total *= counts[d] ?? 1;
    }
    this.counts = Number.isSafeInteger(total) && sizes.length === shape.length ? counts : undefined;
  }

  idOf(index: readonly number[]): number | string {
    if (this.counts === undefined) return regionKey(index, this.sizes);
    let id = 0;
    for (let d = 0; d < index.length; d++) {
      const n = this.sizes[d];
      if (n) id += Math.floor((index[d] ?? 0) / n) * (this.steps[d] ?? 0);
    }
    return id;
  }

  /** manifest-splitting's regionKey of the region with this id. */
  keyOf(id: number | string): string {
    if (typeof id === 'string') return id;
    return this.steps.map((step, d) => Math.floor(id / step) % (this.counts?.[d] ?? 1)).join(',');
  }
}

/**
 * Whether a chunk index lies inside the current grid. Runs once per chunk ref of a commit, mostly
 * before the optimising compiler takes over: an indexed loop, since for..of there allocates an
 * iterator result object per step.
 */
function insideGrid(index: readonly number[], shape: Shape): boolean {
  if (index.length !== shape.length) return false;
  for (let d = 0; d < shape.length; d++) {
    const c = index[d];
    const dim = shape[d];
    if (c === undefined || dim === undefined || c >= dim.numChunks) return false;
  }
  return true;
}
