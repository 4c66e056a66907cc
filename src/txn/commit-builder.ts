// Turns a base snapshot plus a change set into the objects of a new snapshot: manifests for every
// array whose chunks changed (one per array, or several by the splitting rules), the snapshot
// itself, and the transaction log. Manifests are written here; the snapshot and log are returned
// for the commit sequence to write in its order.
import { throwIfAborted, yieldDue, yieldToEventLoop } from '../engine/abort.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idToString, newManifestId, type NodeId, type SnapshotId } from '../format/icechunk/ids.ts';
import { findArrayManifest, type Manifest } from '../format/icechunk/manifest.ts';
import type { MetadataItem, MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { ChunkIndexRange, ManifestFileInfo, ManifestRef, NodeSnapshot, Snapshot } from '../format/icechunk/snapshot.ts';
import type { ArrayUpdatedChunks, TransactionLog } from '../format/icechunk/transaction-log.ts';
import { zipEvery } from '../engine/indexing.ts';
import { parseCoordsKey, type ChangeSet, type ChunkChange } from './change-set.ts';
import { regionBox, regionHolding, splitSizesFor } from './manifest-splitting.ts';
import { NodeView, type ResolvedNode } from './node-view.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { RegionRefs } from './region-refs.ts';

export interface BuildCommitInput {
  objects: RepoObjects;
  base: LoadedSnapshot;
  changes: ChangeSet;
  snapshotId: SnapshotId;
  message: string;
  metadata: MetadataItem[];
  /** Microseconds since the epoch. */
  flushedAt: number;
  /** The config's `manifest` section (splitting rules). */
  manifestConfig: MetadataValue;
  /** Array manifests rewritten in parallel. */
  concurrency: number;
  /** The commit's request options (its signal), for every manifest read and write. */
  request?: AbortOptions | undefined;
}

export interface BuiltCommit {
  snapshot: Snapshot;
  transactionLog: TransactionLog;
}

export async function buildCommit(input: BuildCommitInput): Promise<BuiltCommit> {
  const { objects, base, changes } = input;
  const view = new NodeView(base, changes);
  const baseFiles = new Map(base.snapshot.manifestFiles.map((f) => [idToString(f.id), f]));
  const files = new Map<string, ManifestFileInfo>();
  const nodes = await mapLimit(view.nodes(), input.concurrency, async (node): Promise<NodeSnapshot> => {
    const signal = input.request?.signal;
    if (yieldDue(signal)) await yieldToEventLoop(); // so the abort can fire at all (abort.ts)
    throwIfAborted(signal, node.path);
    const extra = node.base?.extra ?? null;
    if (node.kind === 'group') return { id: node.id, path: node.path, userData: node.userData, nodeData: { kind: 'group' }, extra };
    const array = node.array!;
    const baseManifests = node.base?.nodeData.kind === 'array' ? node.base.nodeData.manifests : undefined;
    let manifests: ManifestRef[];
    if (baseManifests && !arrayChanged(node, changes)) {
      manifests = baseManifests;
      for (const m of manifests) carryOver(m, baseFiles, files);
    } else {
      manifests = await writeArrayManifests(input, node, baseManifests ?? [], { baseFiles, files });
    }
    return {
      id: node.id,
      path: node.path,
      userData: node.userData,
      nodeData: { kind: 'array', shape: array.shape, dimensionNames: array.dimensionNames, manifests },
      extra,
    };
  });
  const snapshot: Snapshot = {
    specVersion: 2,
    id: input.snapshotId,
    parentId: null,
    flushedAt: input.flushedAt,
    message: input.message,
    metadata: input.metadata,
    manifestFiles: [...files.values()],
    nodes,
    extra: null,
  };
  return { snapshot, transactionLog: transactionLogFor(input.snapshotId, changes) };
}

/**
 * Whether an existing array's manifests need a look: chunks written or deleted, its metadata
 * updated (a resize may leave manifests past the grid) or its path moved (path rules may split
 * it otherwise). Like the reference, a config change alone rewrites nothing.
 */
function arrayChanged(node: ResolvedNode, changes: ChangeSet): boolean {
  if ((changes.chunkChangesOf(node.id)?.size ?? 0) > 0) return true;
  return changes.updatedNodes.has(idToString(node.id)) || node.base?.path !== node.path;
}

/** The manifest files of the snapshot being built, and of its base by id. */
interface ManifestFiles {
  baseFiles: ReadonlyMap<string, ManifestFileInfo>;
  files: Map<string, ManifestFileInfo>;
}

function carryOver(ref: ManifestRef, baseFiles: ReadonlyMap<string, ManifestFileInfo>, files: Map<string, ManifestFileInfo>): void {
  const key = idToString(ref.objectId);
  files.set(key, baseFiles.get(key) ?? { id: ref.objectId, sizeBytes: 0, numChunkRefs: 0 });
}

/**
 * An array's manifests after this commit. A base manifest that lies in one split region (by the
 * current split sizes), inside the current grid, in a region with no chunk change is referenced
 * as it is (same id, same extents). Every other region with chunks is rewritten: the chunks of the
 * base manifests that meet it, with this session's changes applied, as one manifest per region.
 * The refs are gathered and merged region by region (region-refs.ts), never as one list.
 */
async function writeArrayManifests(input: BuildCommitInput, node: ResolvedNode, baseManifests: readonly ManifestRef[], manifestFiles: ManifestFiles): Promise<ManifestRef[]> {
  const array = node.array!;
  const shape = array.shape;
  const sizes = await splitSizesFor(input.manifestConfig, { path: node.path, dimensionNames: array.dimensionNames, rank: shape.length });
  const regions = new RegionRefs(sizes, shape);
  regions.addChanges(input.changes.chunkChangesOf(node.id) ?? []);
  const { kept, reread } = partitionBaseManifests(baseManifests, () => regions.changedRegionKeys(), sizes, shape);
  const out: ManifestRef[] = [];
  for (const ref of kept) {
    carryOver(ref, manifestFiles.baseFiles, manifestFiles.files);
    out.push(ref);
  }
  await addBaseRefs(input, node, reread, regions);
  for (const group of regions.groups()) {
    const manifest: Manifest = { specVersion: 2, id: newManifestId(), arrays: [{ nodeId: node.id, refs: group.refs }] };
    const sizeBytes = await input.objects.writeManifest(manifest, input.request);
    manifestFiles.files.set(idToString(manifest.id), { id: manifest.id, sizeBytes, numChunkRefs: group.refs.length });
    out.push({ objectId: manifest.id, extents: group.extents });
  }
  return out;
}

/**
 * Splits an array's base manifests into those kept as they are and those whose chunks are read
 * to be rewritten; manifests wholly outside the grid (or of another rank) are in neither, their
 * chunks being unreachable. A manifest is rewritten if it crosses a region boundary or the grid's
 * end, or its region has a chunk change (`changedRegions`: their region keys) or meets a manifest
 * so rewritten (one manifest per rewritten region, never two holding the same chunks).
 */
function partitionBaseManifests(
  baseManifests: readonly ManifestRef[],
  changedRegions: () => ReadonlySet<string>,
  sizes: readonly (number | undefined)[],
  shape: readonly { numChunks: number }[],
): { kept: ManifestRef[]; reread: ManifestRef[] } {
  const reread: ManifestRef[] = [];
  const candidates: { ref: ManifestRef; region: string }[] = [];
  for (const ref of baseManifests) {
    if (!meetsGrid(ref.extents, shape)) continue;
    const region = withinGrid(ref.extents, shape) ? regionHolding(ref.extents, sizes) : undefined;
    if (region === undefined) reread.push(ref);
    else candidates.push({ ref, region });
  }
  if (candidates.length === 0) return { kept: [], reread };
  const changed = changedRegions();
  const crossing = [...reread];
  const kept: ManifestRef[] = [];
  for (const { ref, region } of candidates) {
    const box = regionBox(region, sizes);
    if (changed.has(region) || crossing.some((c) => boxesMeet(c.extents, box))) reread.push(ref);
    else kept.push(ref);
  }
  return { kept, reread };
}

/** Adds the refs of `manifests` for this node to `regions`, one manifest at a time. */
async function addBaseRefs(input: BuildCommitInput, node: ResolvedNode, manifests: readonly ManifestRef[], regions: RegionRefs): Promise<void> {
  for (const ref of manifests) {
    const manifest = await input.objects.loadManifest(ref.objectId, input.request);
    regions.addBase(findArrayManifest(manifest, node.id)?.refs ?? []);
  }
}

/** The transaction log of a change set: what rebase and diff read about this commit. */
export function transactionLogFor(id: SnapshotId, changes: ChangeSet): TransactionLog {
  const byKind = <T extends { kind: string; id: NodeId }>(items: Iterable<T>, kind: string) =>
    [...items].filter((n) => n.kind === kind).map((n) => n.id);
  const updatedChunks: ArrayUpdatedChunks[] = [];
  for (const [key, chunkChanges] of changes.chunks) {
    if (chunkChanges.size === 0 || changes.deletedNodes.has(key)) continue;
    const nodeId = changes.chunkNodeId(key);
    if (!nodeId) continue;
    updatedChunks.push({ nodeId, chunks: changedIndices(chunkChanges) });
  }
  return {
    specVersion: 2,
    id,
    newGroups: byKind(changes.newNodes.values(), 'group'),
    newArrays: byKind(changes.newNodes.values(), 'array'),
    deletedGroups: byKind(changes.deletedNodes.values(), 'group'),
    deletedArrays: byKind(changes.deletedNodes.values(), 'array'),
    updatedGroups: byKind(changes.updatedNodes.values(), 'group'),
    updatedArrays: byKind(changes.updatedNodes.values(), 'array'),
    updatedChunks,
    movedNodes: [...changes.movedNodes.values()].map((m) => ({ from: m.from, to: m.to, nodeId: m.id, nodeType: m.kind })),
  };
}

/**
 * The indices of a node's chunk changes, in the change set's order. A ref carries its index (the
 * one its key was made from): only deletions are parsed back from their key, so a commit of 10^7
 * writes makes no string or array per chunk here.
 */
function changedIndices(changes: ReadonlyMap<string, ChunkChange>): number[][] {
  const out: number[][] = [];
  for (const [key, change] of changes) out.push(change === null ? parseCoordsKey(key) : change.index);
  return out;
}

/** Whether a box (to exclusive) meets the current grid at all; of another rank, never. */
function meetsGrid(extents: readonly ChunkIndexRange[], shape: readonly { numChunks: number }[]): boolean {
  return extents.length === shape.length && zipEvery(extents, shape, (e, dim) => e.from < dim.numChunks && e.from < e.to);
}

/** Whether a box (to exclusive) lies wholly inside the current grid. */
function withinGrid(extents: readonly ChunkIndexRange[], shape: readonly { numChunks: number }[]): boolean {
  return extents.length === shape.length && zipEvery(extents, shape, (e, dim) => e.to <= dim.numChunks);
}

function boxesMeet(a: readonly ChunkIndexRange[], b: readonly ChunkIndexRange[]): boolean {
  return a.length === b.length && zipEvery(a, b, (x, y) => x.from < y.to && y.from < x.to);
}
