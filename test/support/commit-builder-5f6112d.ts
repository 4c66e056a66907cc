// The commit builder as it was at 5f6112d, before it built manifests one split region at a time:
// every change of an array copied into one Map, sorted, then grouped by region. Kept verbatim (imports
// re-pointed, groupRefs inlined) as the oracle of test/txn/commit-builder-regions.test.ts: the new
// builder must write the same manifests and snapshot, byte for byte, from the same session.
// Turns a base snapshot plus a change set into the objects of a new snapshot: manifests for every
// array whose chunks changed (one per array, or several by the splitting rules), the snapshot
// itself, and the transaction log. Manifests are written here; the snapshot and log are returned
// for the commit sequence to write in its order.
import { throwIfAborted, yieldDue, yieldToEventLoop } from '../../src/engine/abort.ts';
import { mapLimit } from '../../src/engine/storage/limiter.ts';
import type { AbortOptions } from '../../src/engine/storage/types.ts';
import { idToString, newManifestId, type NodeId, type SnapshotId } from '../../src/format/icechunk/ids.ts';
import { compareChunkIndices, findArrayManifest, type ChunkRef, type Manifest } from '../../src/format/icechunk/manifest.ts';
import type { MetadataItem, MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import type { ChunkIndexRange, ManifestFileInfo, ManifestRef, NodeSnapshot, Snapshot } from '../../src/format/icechunk/snapshot.ts';
import type { ArrayUpdatedChunks, TransactionLog } from '../../src/format/icechunk/transaction-log.ts';
import { zipEvery } from '../../src/engine/indexing.ts';
import { coordsKey, parseCoordsKey, type ChangeSet, type ChunkChange } from '../../src/txn/change-set.ts';
import { regionBox, regionHolding, regionKey, splitSizesFor } from '../../src/txn/manifest-splitting.ts';
import { zipMap } from '../../src/engine/indexing.ts';
import { NodeView, type ResolvedNode } from '../../src/txn/node-view.ts';
import type { LoadedSnapshot, RepoObjects } from '../../src/txn/objects.ts';

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
 */
async function writeArrayManifests(input: BuildCommitInput, node: ResolvedNode, baseManifests: readonly ManifestRef[], manifestFiles: ManifestFiles): Promise<ManifestRef[]> {
  const array = node.array!;
  const shape = array.shape;
  const sizes = await splitSizesFor(input.manifestConfig, { path: node.path, dimensionNames: array.dimensionNames, rank: shape.length });
  const { kept, reread } = partitionBaseManifests(baseManifests, input.changes.chunkChangesOf(node.id), sizes, shape);
  const out: ManifestRef[] = [];
  for (const ref of kept) {
    carryOver(ref, manifestFiles.baseFiles, manifestFiles.files);
    out.push(ref);
  }
  // Chunks outside the current chunk grid (after a shrink) are dropped, as they are unreachable.
  const refs = (await changedChunkRefs(input, node, reread)).filter((r) => insideGrid(r.index, shape));
  for (const group of groupRefs(refs, sizes)) {
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
 * end, or its region has a chunk change or meets a manifest so rewritten (one manifest per
 * rewritten region, never two holding the same chunks).
 */
function partitionBaseManifests(
  baseManifests: readonly ManifestRef[],
  chunkChanges: ReadonlyMap<string, ChunkChange> | undefined,
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
  const changed = changedRegions(chunkChanges, sizes);
  const crossing = [...reread];
  const kept: ManifestRef[] = [];
  for (const { ref, region } of candidates) {
    const box = regionBox(region, sizes);
    if (changed.has(region) || crossing.some((c) => boxesMeet(c.extents, box))) reread.push(ref);
    else kept.push(ref);
  }
  return { kept, reread };
}

/** The regions holding a chunk change. Only for an array with base manifests to keep. */
function changedRegions(chunkChanges: ReadonlyMap<string, ChunkChange> | undefined, sizes: readonly (number | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const [key, change] of chunkChanges ?? []) {
    const index = change?.index ?? parseCoordsKey(key);
    // A change of another rank is outside the grid and dropped: it touches no region.
    if (index.length === sizes.length) out.add(regionKey(index, sizes));
  }
  return out;
}

/** The chunks of `manifests` for this node, with the session's changes applied, sorted by index. */
async function changedChunkRefs(input: BuildCommitInput, node: ResolvedNode, manifests: readonly ManifestRef[]): Promise<ChunkRef[]> {
  const refs = new Map<string, ChunkRef>();
  for (const ref of manifests) {
    const manifest = await input.objects.loadManifest(ref.objectId, input.request);
    for (const chunk of findArrayManifest(manifest, node.id)?.refs ?? []) refs.set(coordsKey(chunk.index), chunk);
  }
  for (const [key, change] of input.changes.chunkChangesOf(node.id) ?? []) {
    if (change === null) refs.delete(key);
    else refs.set(key, change);
  }
  return [...refs.values()].sort((a, b) => compareChunkIndices(a.index, b.index));
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
    updatedChunks.push({ nodeId, chunks: [...chunkChanges.keys()].map(parseCoordsKey) });
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

/**
 * Whether a chunk index lies inside the current grid. Runs once per chunk ref of a commit, mostly
 * before the optimising compiler takes over: an indexed loop, since for..of there allocates an
 * iterator result object per step.
 */
function insideGrid(index: readonly number[], shape: readonly { numChunks: number }[]): boolean {
  if (index.length !== shape.length) return false;
  for (let d = 0; d < shape.length; d++) {
    const c = index[d];
    const dim = shape[d];
    if (c === undefined || dim === undefined || c >= dim.numChunks) return false;
  }
  return true;
}

interface ManifestGroup {
  extents: ChunkIndexRange[];
  refs: ChunkRef[];
}

function groupRefs(refs: readonly ChunkRef[], sizes: readonly (number | undefined)[]): ManifestGroup[] {
  const groups = new Map<string, { refs: ChunkRef[]; lo: number[]; hi: number[] }>();
  for (const ref of refs) {
    const key = regionKey(ref.index, sizes);
    const group = groups.get(key);
    if (group) {
      group.refs.push(ref);
      widen(group, ref.index);
    } else {
      groups.set(key, { refs: [ref], lo: [...ref.index], hi: [...ref.index] });
    }
  }
  return [...groups.values()].map(({ refs: list, lo, hi }) => ({
    refs: list,
    extents: zipMap(lo, hi, (from, last) => ({ from, to: last + 1 })),
  }));
}

function widen(group: { lo: number[]; hi: number[] }, index: readonly number[]): void {
  for (let d = 0; d < index.length; d++) {
    const c = index[d];
    const lo = group.lo[d];
    const hi = group.hi[d];
    if (c === undefined || lo === undefined || hi === undefined) throw new Error('rank mismatch');
    if (c < lo) group.lo[d] = c;
    if (c > hi) group.hi[d] = c;
  }
}
