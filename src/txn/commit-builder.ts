// Turns a base snapshot plus a change set into the objects of a new snapshot: manifests for every
// array whose chunks changed (one per array, or several by the splitting rules), the snapshot
// itself, and the transaction log. Manifests are written here; the snapshot and log are returned
// for the commit sequence to write in its order.
import { throwIfAborted, yieldDue, yieldToEventLoop } from '../engine/abort.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idToString, newManifestId, type NodeId, type SnapshotId } from '../format/icechunk/ids.ts';
import type { Manifest } from '../format/icechunk/manifest.ts';
import type { MetadataItem, MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { ManifestFileInfo, ManifestRef, NodeSnapshot, Snapshot } from '../format/icechunk/snapshot.ts';
import type { ArrayUpdatedChunks, TransactionLog } from '../format/icechunk/transaction-log.ts';
import { parseCoordsKey, type ChangeSet } from './change-set.ts';
import { groupRefs, splitSizesFor } from './manifest-splitting.ts';
import { currentChunkRefs, NodeView, type ResolvedNode } from './node-view.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';

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
    let manifests: ManifestRef[];
    if (chunksChanged(node, changes)) {
      manifests = await writeArrayManifests(input, node, files);
    } else {
      manifests = node.base?.nodeData.kind === 'array' ? node.base.nodeData.manifests : [];
      for (const m of manifests) {
        const key = idToString(m.objectId);
        files.set(key, baseFiles.get(key) ?? { id: m.objectId, sizeBytes: 0, numChunkRefs: 0 });
      }
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

function chunksChanged(node: ResolvedNode, changes: ChangeSet): boolean {
  if (!node.base || node.base.nodeData.kind !== 'array') return true;
  return (changes.chunkChangesOf(node.id)?.size ?? 0) > 0;
}

async function writeArrayManifests(input: BuildCommitInput, node: ResolvedNode, files: Map<string, ManifestFileInfo>): Promise<ManifestRef[]> {
  const shape = node.array!.shape;
  // Chunks outside the current chunk grid (after a shrink) are dropped, as they are unreachable.
  const refs = (await currentChunkRefs(input.objects, input.changes, node, input.request)).filter(
    (r) => insideGrid(r.index, shape),
  );
  const sizes = splitSizesFor(input.manifestConfig, { path: node.path, dimensionNames: node.array!.dimensionNames, rank: shape.length });
  const out: ManifestRef[] = [];
  for (const group of groupRefs(refs, sizes)) {
    const manifest: Manifest = { specVersion: 2, id: newManifestId(), arrays: [{ nodeId: node.id, refs: group.refs }] };
    const sizeBytes = await input.objects.writeManifest(manifest, input.request);
    files.set(idToString(manifest.id), { id: manifest.id, sizeBytes, numChunkRefs: group.refs.length });
    out.push({ objectId: manifest.id, extents: group.extents });
  }
  return out;
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
