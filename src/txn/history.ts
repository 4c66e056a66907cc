// History: ancestry of a snapshot, lookup by time, and diffs. A diff between two versions
// compares their snapshots directly (nodes by id, chunk refs by coordinates), so it works
// between any two snapshots, not only an ancestor and a descendant. A session's status is the
// same shape, computed from its change set.
import { historyIndex } from '../format/icechunk/history-index.ts';
import { idToString, type SnapshotId } from '../format/icechunk/ids.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import type { RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import type { NodeSnapshot } from '../format/icechunk/snapshot.ts';
import type { ChangeSet } from './change-set.ts';
import { parseCoordsKey } from './change-set.ts';
import { baseChunkRefs, NodeView } from './node-view.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';

/** The reference's DiffResult shape: node paths, and chunk coordinates per array path. */
export interface DiffResult {
  newGroups: string[];
  newArrays: string[];
  deletedGroups: string[];
  deletedArrays: string[];
  updatedGroups: string[];
  updatedArrays: string[];
  updatedChunks: Record<string, number[][]>;
  movedNodes: { from: string; to: string }[];
}

/** Public snapshot description (the reference's SnapshotInfo). */
export interface SnapshotDescription {
  id: string;
  parentId?: string;
  writtenAt: Date;
  message: string;
  metadata: Record<string, unknown>;
}

export function describeSnapshot(info: SnapshotInfo): SnapshotDescription {
  return {
    id: idToString(info.id),
    ...(info.parentId ? { parentId: idToString(info.parentId) } : {}),
    writtenAt: new Date(Math.floor(info.flushedAt / 1000)),
    message: info.message,
    metadata: Object.fromEntries(info.metadata.map((m) => [m.name, m.value])),
  };
}

/**
 * The snapshot and its ancestors, newest first, following the history index's parent positions
 * (one array read a step). A parent missing from the list ends the walk; so does a loop in a
 * damaged file, at the first snapshot met twice.
 */
export function ancestors(info: RepoInfo, from: SnapshotId): Generator<SnapshotInfo> {
  return historyIndex(info.snapshots).ancestry(from);
}

/** The newest ancestor written at or before `asOf`. */
export function snapshotAsOf(info: RepoInfo, from: SnapshotId, asOf: Date): SnapshotInfo | undefined {
  const limit = asOf.getTime() * 1000;
  for (const s of ancestors(info, from)) if (s.flushedAt <= limit) return s;
  return undefined;
}

const emptyDiff = (): DiffResult => ({
  newGroups: [], newArrays: [], deletedGroups: [], deletedArrays: [], updatedGroups: [], updatedArrays: [], updatedChunks: {}, movedNodes: [],
});

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

function sameRef(a: ChunkRef, b: ChunkRef): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'inline') return sameBytes(a.data, (b as typeof a).data);
  if (a.kind === 'native') {
    const o = b as typeof a;
    return idToString(a.chunkId) === idToString(o.chunkId) && a.offset === o.offset && a.length === o.length;
  }
  const o = b as typeof a;
  return a.location === o.location && a.offset === o.offset && a.length === o.length && JSON.stringify(a.checksum) === JSON.stringify(o.checksum);
}

function sameManifests(a: NodeSnapshot, b: NodeSnapshot): boolean {
  if (a.nodeData.kind !== 'array' || b.nodeData.kind !== 'array') return false;
  const x = a.nodeData.manifests.map((m) => idToString(m.objectId)).join();
  return x === b.nodeData.manifests.map((m) => idToString(m.objectId)).join();
}

/** Differences from snapshot `from` to snapshot `to`. */
export async function diffSnapshots(objects: RepoObjects, from: LoadedSnapshot, to: LoadedSnapshot, options?: AbortOptions): Promise<DiffResult> {
  const out = emptyDiff();
  const before = new Map(from.snapshot.nodes.map((n) => [idToString(n.id), n]));
  const after = new Map(to.snapshot.nodes.map((n) => [idToString(n.id), n]));
  for (const [key, node] of after) {
    const old = before.get(key);
    const kind = node.nodeData.kind;
    if (!old || old.nodeData.kind !== kind) {
      (kind === 'group' ? out.newGroups : out.newArrays).push(node.path);
      if (old) (old.nodeData.kind === 'group' ? out.deletedGroups : out.deletedArrays).push(old.path);
    } else {
      if (old.path !== node.path) out.movedNodes.push({ from: old.path, to: node.path });
      if (!sameBytes(old.userData, node.userData)) (kind === 'group' ? out.updatedGroups : out.updatedArrays).push(node.path);
    }
    if (kind === 'array' && !(old && sameManifests(old, node))) {
      const oldRefs = old && old.nodeData.kind === 'array' ? await baseChunkRefs(objects, old, options) : new Map<string, ChunkRef>();
      const newRefs = await baseChunkRefs(objects, node, options);
      const changed: number[][] = [];
      for (const [c, ref] of newRefs) {
        const prev = oldRefs.get(c);
        if (!prev || !sameRef(prev, ref)) changed.push(ref.index);
      }
      for (const [c, ref] of oldRefs) if (!newRefs.has(c)) changed.push(ref.index);
      if (changed.length > 0) out.updatedChunks[node.path] = changed;
    }
  }
  for (const [key, old] of before) {
    if (!after.has(key)) (old.nodeData.kind === 'group' ? out.deletedGroups : out.deletedArrays).push(old.path);
  }
  return sortDiff(out);
}

/** What a session changed, relative to its base snapshot. */
export function diffChangeSet(base: LoadedSnapshot, changes: ChangeSet): DiffResult {
  const out = emptyDiff();
  const view = new NodeView(base, changes);
  const pathOf = new Map(view.nodes().map((n) => [idToString(n.id), n.path]));
  for (const n of changes.newNodes.values()) (n.kind === 'group' ? out.newGroups : out.newArrays).push(n.path);
  for (const n of changes.deletedNodes.values()) (n.kind === 'group' ? out.deletedGroups : out.deletedArrays).push(n.path);
  for (const [key, n] of changes.updatedNodes) {
    const path = pathOf.get(key);
    if (path) (n.kind === 'group' ? out.updatedGroups : out.updatedArrays).push(path);
  }
  for (const m of changes.movedNodes.values()) out.movedNodes.push({ from: m.from, to: m.to });
  for (const [key, chunkChanges] of changes.chunks) {
    const path = pathOf.get(key);
    if (path && chunkChanges.size > 0) out.updatedChunks[path] = [...chunkChanges.keys()].map(parseCoordsKey);
  }
  return sortDiff(out);
}

function sortDiff(d: DiffResult): DiffResult {
  for (const list of [d.newGroups, d.newArrays, d.deletedGroups, d.deletedArrays, d.updatedGroups, d.updatedArrays]) list.sort();
  for (const coords of Object.values(d.updatedChunks)) coords.sort((a, b) => a.join(',').localeCompare(b.join(','), 'en', { numeric: true }));
  d.movedNodes.sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  return d;
}
