// The hierarchy a session sees: its base snapshot with the change set applied on top. Node and
// chunk lookups used by the session store, status and commit all go through here, so the rules
// for "which node is at this path" live in one place.
import { floeError } from '../errors.ts';
import { zipEvery, zipMap } from '../engine/indexing.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idToString, type NodeId } from '../format/icechunk/ids.ts';
import { compareChunkIndices, findArrayManifest, findChunkRef, type ChunkRef } from '../format/icechunk/manifest.ts';
import { compareNodePaths } from '../format/icechunk/node-path.ts';
import type { ManifestRef, NodeSnapshot } from '../format/icechunk/snapshot.ts';
import type { ArrayMetadata } from '../format/zarr/metadata.ts';
import { coordsKey, type ArrayShapeInfo, type ChangeSet, type NodeKind } from './change-set.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';

export interface ResolvedNode {
  id: NodeId;
  path: string;
  kind: NodeKind;
  userData: Uint8Array;
  array: ArrayShapeInfo | undefined;
  /** The node as the base snapshot has it (undefined for new nodes). */
  base: NodeSnapshot | undefined;
}

export function arrayInfoOf(meta: ArrayMetadata): ArrayShapeInfo {
  return {
    shape: zipMap(meta.shape, meta.chunkShape, (length, chunk) => {
      return { arrayLength: length, numChunks: chunk === 0 ? 0 : Math.ceil(length / chunk) };
    }),
    dimensionNames: meta.dimensionNames ? [...meta.dimensionNames] : null,
  };
}

function fromBase(node: NodeSnapshot, path: string, changes: ChangeSet): ResolvedNode {
  const updated = changes.updatedNodes.get(idToString(node.id));
  if (updated) return { id: node.id, path, kind: updated.kind, userData: updated.userData, array: updated.array, base: node };
  const data = node.nodeData;
  return {
    id: node.id,
    path,
    kind: data.kind,
    userData: node.userData,
    array: data.kind === 'array' ? { shape: data.shape, dimensionNames: data.dimensionNames } : undefined,
    base: node,
  };
}

export class NodeView {
  constructor(
    readonly base: LoadedSnapshot,
    readonly changes: ChangeSet,
  ) {}

  nodeAt(path: string): ResolvedNode | undefined {
    const added = this.changes.newNodeAt(path);
    if (added) return { id: added.id, path, kind: added.kind, userData: added.userData, array: added.array, base: undefined };
    const moved = this.changes.movedTo(path);
    if (moved) {
      const node = this.base.byPath.get(moved.from);
      return node ? fromBase(node, path, this.changes) : undefined;
    }
    const node = this.base.byPath.get(path);
    if (!node || this.changes.isMovedAway(path) || this.changes.deletedNodes.has(idToString(node.id))) return undefined;
    return fromBase(node, path, this.changes);
  }

  /** Every node, sorted by path (component-wise, as snapshots store them). */
  nodes(): ResolvedNode[] {
    const out: ResolvedNode[] = [];
    for (const node of this.base.snapshot.nodes) {
      const key = idToString(node.id);
      if (this.changes.deletedNodes.has(key)) continue;
      const moved = this.changes.movedNodes.get(key);
      out.push(fromBase(node, moved ? moved.to : node.path, this.changes));
    }
    for (const added of this.changes.newNodes.values()) {
      out.push({ id: added.id, path: added.path, kind: added.kind, userData: added.userData, array: added.array, base: undefined });
    }
    return out.sort((a, b) => compareNodePaths(a.path, b.path));
  }

  /** Nodes at `path` or below it. */
  subtree(path: string): ResolvedNode[] {
    const prefix = path === '/' ? '/' : path + '/';
    return this.nodes().filter((n) => n.path === path || n.path.startsWith(prefix));
  }
}

/** Whether `coords` lies inside a manifest ref's extents. */
export function extentsContain(ref: ManifestRef, coords: readonly number[]): boolean {
  return ref.extents.length === coords.length && zipEvery(ref.extents, coords, (e, c) => c >= e.from && c < e.to);
}

/** The chunk reference at `coords`, or undefined when the chunk is absent (fill value). */
export async function chunkRefAt(
  objects: RepoObjects, changes: ChangeSet, node: ResolvedNode, coords: readonly number[], options?: AbortOptions,
): Promise<ChunkRef | undefined> {
  const change = changes.chunkChange(node.id, coords);
  if (change !== undefined) return change ?? undefined;
  const data = node.base?.nodeData;
  if (!data || data.kind !== 'array') return undefined;
  for (const ref of data.manifests) {
    if (!extentsContain(ref, coords)) continue;
    const manifest = await objects.loadManifest(ref.objectId, options);
    const array = findArrayManifest(manifest, node.id);
    const found = array && findChunkRef(array, coords);
    if (found) return found;
  }
  return undefined;
}

/** The chunk refs an array has in its base snapshot, without this session's changes. */
export async function baseChunkRefs(objects: RepoObjects, node: NodeSnapshot | undefined, options?: AbortOptions): Promise<Map<string, ChunkRef>> {
  const out = new Map<string, ChunkRef>();
  if (!node || node.nodeData.kind !== 'array') return out;
  for (const ref of node.nodeData.manifests) {
    const manifest = await objects.loadManifest(ref.objectId, options);
    const array = findArrayManifest(manifest, node.id);
    for (const chunk of array?.refs ?? []) out.set(coordsKey(chunk.index), chunk);
  }
  return out;
}

/** Every chunk ref of a node as the session sees it, sorted by coordinates. */
export async function currentChunkRefs(objects: RepoObjects, changes: ChangeSet, node: ResolvedNode, options?: AbortOptions): Promise<ChunkRef[]> {
  if (node.kind !== 'array') return [];
  const refs = await baseChunkRefs(objects, node.base, options);
  for (const [key, change] of changes.chunkChangesOf(node.id) ?? []) {
    if (change === null) refs.delete(key);
    else refs.set(key, change);
  }
  return [...refs.values()].sort((a, b) => compareChunkIndices(a.index, b.index));
}

export function requireArray(node: ResolvedNode | undefined, path: string): ResolvedNode {
  if (!node) throw floeError('NOT_FOUND', `no array at ${path}`, { where: path });
  if (node.kind !== 'array') throw floeError('NODE_TYPE_MISMATCH', `${path} is a group, not an array`, { where: path });
  return node;
}
