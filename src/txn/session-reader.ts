// A session as a ReadSource (src/engine/read-source.ts): nodes and chunks as the session sees
// them, its base snapshot with its uncommitted changes on top. Session implements the interface
// by delegating here, so readers (the query layer, `floe serve`, the CLI) never touch the node
// view, the change set or the repository's objects themselves.
//
// Query planning: the session's store already resolves chunk keys through manifests, loading only
// those whose extents hold the chunk; `manifests` adds the planning side: before any chunk is
// read, the manifests whose extents meet the selection's chunk boxes are loaded together (bounded
// concurrency, the repository's single-flight manifest cache), and explain() lists them.
//
// Caches: queries use the repository's read caches by default, keyed by snapshot id. Only a
// snapshot's bytes may be stored under its key: a read-only session stores what it reads; a
// writable session without uncommitted changes reads the same bytes, so it uses what others
// stored, but stores nothing itself (a write during its query could make its reads differ from
// the snapshot's, and a change set has no version to detect that); with uncommitted changes it
// uses no cache at all.
import type { ReadCaches } from '../cache/read-caches.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import { zipEvery, zipMap } from '../engine/indexing.ts';
import type { CacheUse, ChunkBox, ChunkLocation, ManifestPlanner, ManifestUse, NodeInfo, StoredChunk } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idToString } from '../format/icechunk/ids.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import { normalizePath } from '../format/zarr/paths.ts';
import type { ChangeSet } from './change-set.ts';
import { chunkRefAt, currentChunkRefs, requireArray, type NodeView, type ResolvedNode } from './node-view.ts';
import type { RepoObjects } from './objects.ts';

/** What the reader needs of its session. */
export interface ReaderContext {
  view(): NodeView;
  readonly objects: RepoObjects;
  readonly changes: ChangeSet;
  readonly readOnly: boolean;
  readonly snapshotId: string;
  /** Manifest loads in flight at once. */
  readonly concurrency: number;
}

export class SessionReader {
  /** Children by parent path, for a view without changes (which cannot change under it). */
  private childIndex: { view: NodeView; byParent: Map<string, NodeInfo[]> } | undefined;
  readonly manifests: ManifestPlanner = { planManifests: (path, boxes, options) => this.planManifests(path, boxes, options) };

  constructor(private readonly ctx: ReaderContext) {}

  node(path: string): NodeInfo | undefined {
    const node = this.ctx.view().nodeAt(path);
    return node && nodeInfo(node);
  }

  children(path: string): readonly NodeInfo[] {
    const view = this.ctx.view();
    if (view.nodeAt(path)?.kind === 'array') return [];
    if (!this.ctx.changes.isEmpty) return childrenByParent(view).get(path) ?? [];
    if (this.childIndex?.view !== view) this.childIndex = { view, byParent: childrenByParent(view) };
    return this.childIndex.byParent.get(path) ?? [];
  }

  async locateChunk(path: string, coords: readonly number[], options?: AbortOptions): Promise<ChunkLocation> {
    const node = requireArray(this.ctx.view().nodeAt(path), path);
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, node, coords, options);
    return ref ? locationOf(ref) : { kind: 'missing' };
  }

  async *chunks(path: string, options?: AbortOptions): AsyncIterable<StoredChunk> {
    const node = requireArray(this.ctx.view().nodeAt(path), path);
    for (const ref of await currentChunkRefs(this.ctx.objects, this.ctx.changes, node, options)) yield { coords: ref.index, location: locationOf(ref) };
  }

  get cacheScope(): string {
    return `${this.ctx.snapshotId}/`;
  }

  get cacheUse(): CacheUse {
    if (this.ctx.readOnly) return 'read-write';
    return this.ctx.changes.isEmpty ? 'read-only' : 'none';
  }

  get caches(): ReadCaches {
    return this.ctx.objects.readCaches;
  }

  private async planManifests(path: string, boxes: readonly ChunkBox[], options: AbortOptions | undefined): Promise<readonly ManifestUse[]> {
    const data = this.ctx.view().nodeAt(normalizePath(path))?.base?.nodeData;
    if (!data || data.kind !== 'array') return []; // a new array: its chunks live in the change set
    const wanted = data.manifests.filter((ref) => boxes.some((b) => intersects(ref.extents, b)));
    return mapLimit(wanted, this.ctx.concurrency, async (ref) => {
      const { status, bytes } = await this.ctx.objects.loadManifestReporting(ref.objectId, options);
      return { id: idToString(ref.objectId), extents: ref.extents.map((e) => ({ from: e.from, to: e.to })), status, bytes };
    });
  }
}

function nodeInfo(node: ResolvedNode): NodeInfo {
  return { path: node.path, kind: node.kind, document: node.userData };
}

function childrenByParent(view: NodeView): Map<string, NodeInfo[]> {
  const out = new Map<string, NodeInfo[]>();
  // nodes() is in node-path order, so each parent's list is too.
  for (const node of view.nodes()) {
    if (node.path === '/') continue;
    const parent = node.path.slice(0, node.path.lastIndexOf('/')) || '/';
    let list = out.get(parent);
    if (!list) out.set(parent, (list = []));
    list.push(nodeInfo(node));
  }
  return out;
}

function locationOf(ref: ChunkRef): Exclude<ChunkLocation, { kind: 'missing' }> {
  switch (ref.kind) {
    case 'inline':
      return { kind: 'inline', bytes: ref.data };
    case 'native':
      return { kind: 'native', object: idToString(ref.chunkId), offset: ref.offset, length: ref.length };
    case 'virtual':
      return { kind: 'virtual', location: ref.location, offset: ref.offset, length: ref.length, checksum: ref.checksum };
  }
}

function intersects(extents: readonly ChunkIndexRange[], box: ChunkBox): boolean {
  if (extents.length !== box.from.length || box.to.length !== box.from.length) return false;
  const ranges = zipMap(box.from, box.to, (from, to) => ({ from, to }));
  return zipEvery(extents, ranges, (e, r) => e.from < r.to && r.from < e.to);
}
