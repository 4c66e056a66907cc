// Repository verification: reads every snapshot a branch or tag reaches and reports what readers
// would otherwise skip without a word. Today: chunk refs whose index lies outside their array's
// chunk grid (an index past the number of chunks in some dimension, or of another rank). Reads
// ignore such refs (a chunk outside the grid is never asked for), so only a check can find them —
// they mean a writer or a repair tool wrote a manifest that disagrees with the array's shape.
import { throwIfAborted } from '../../engine/abort.ts';
import { mapLimit } from '../../engine/storage/limiter.ts';
import type { AbortOptions } from '../../engine/storage/types.ts';
import { idToString, type ManifestId, type SnapshotId } from '../../format/icechunk/ids.ts';
import { findArrayManifest, type Manifest } from '../../format/icechunk/manifest.ts';
import type { RepoInfo } from '../../format/icechunk/repo-info.ts';
import type { DimensionShape, NodeSnapshot } from '../../format/icechunk/snapshot.ts';
import { ancestors } from '../history.ts';
import type { RepoObjects } from '../objects.ts';

/** A chunk ref whose index is not a chunk of its array's grid in that snapshot. */
export interface OutOfGridRef {
  snapshotId: string;
  arrayPath: string;
  manifestId: string;
  /** The ref's chunk index, as stored. */
  index: number[];
  /** Chunks per dimension of the array in that snapshot (its rank is the expected index length). */
  grid: number[];
}

/** What `Repository.verify` found. Empty `outOfGridRefs` means a clean repository. */
export interface VerifyReport {
  snapshotsChecked: number;
  /** Array manifests checked: one per (snapshot, array, manifest) visit. */
  arrayManifestsChecked: number;
  outOfGridRefs: OutOfGridRef[];
  /** True when more than `maxFindings` refs were out of the grid; only the first are listed. */
  truncated: boolean;
}

export interface VerifyOptions extends AbortOptions {
  /** The most findings listed (the check still reads everything). Default 1,000. */
  maxFindings?: number;
}

const CONCURRENCY = 8;

/** Checks every snapshot reachable from a branch or tag of `info`. */
export async function verifyRepository(objects: RepoObjects, info: RepoInfo, options: VerifyOptions = {}): Promise<VerifyReport> {
  const request = options.signal ? { signal: options.signal } : undefined;
  const report: VerifyReport = { snapshotsChecked: 0, arrayManifestsChecked: 0, outOfGridRefs: [], truncated: false };
  const maxFindings = options.maxFindings ?? 1000;
  const found = (finding: OutOfGridRef) => {
    if (report.outOfGridRefs.length < maxFindings) report.outOfGridRefs.push(finding);
    else report.truncated = true;
  };
  await mapLimit(reachableSnapshots(info), CONCURRENCY, async (snapshotId) => {
    throwIfAborted(request?.signal);
    const { snapshot } = await objects.loadSnapshot(snapshotId, request);
    for (const node of snapshot.nodes) {
      if (node.nodeData.kind !== 'array') continue;
      const grid = node.nodeData.shape;
      for (const ref of node.nodeData.manifests) {
        const manifest = await objects.loadManifest(ref.objectId, request);
        checkArrayManifest(manifest, node, grid, (index) => found(describe(snapshotId, node, ref.objectId, index, grid)));
        report.arrayManifestsChecked++;
      }
    }
    report.snapshotsChecked++;
  });
  report.outOfGridRefs.sort(byLocation);
  return report;
}

/** Every snapshot some branch or tag reaches, each once. */
function reachableSnapshots(info: RepoInfo): SnapshotId[] {
  const seen = new Map<string, SnapshotId>();
  for (const tip of [...info.branches, ...info.tags]) {
    for (const s of ancestors(info, tip.snapshotId)) {
      const id = idToString(s.id);
      if (seen.has(id)) break; // the rest of this chain is already in
      seen.set(id, s.id);
    }
  }
  return [...seen.values()];
}

function checkArrayManifest(manifest: Manifest, node: NodeSnapshot, grid: readonly DimensionShape[], onOutside: (index: number[]) => void): void {
  const array = findArrayManifest(manifest, node.id);
  if (!array) return;
  for (const ref of array.refs) if (!insideGrid(ref.index, grid)) onOutside([...ref.index]);
}

function insideGrid(index: readonly number[], grid: readonly DimensionShape[]): boolean {
  if (index.length !== grid.length) return false;
  return grid.every((dim, k) => (index[k] ?? Number.POSITIVE_INFINITY) < dim.numChunks);
}

function describe(snapshotId: SnapshotId, node: NodeSnapshot, manifestId: ManifestId, index: number[], grid: readonly DimensionShape[]): OutOfGridRef {
  return { snapshotId: idToString(snapshotId), arrayPath: node.path, manifestId: idToString(manifestId), index, grid: grid.map((d) => d.numChunks) };
}

function byLocation(a: OutOfGridRef, b: OutOfGridRef): number {
  return a.snapshotId.localeCompare(b.snapshotId) || a.arrayPath.localeCompare(b.arrayPath) || a.index.join(',').localeCompare(b.index.join(','));
}
