// The uncommitted changes of a writable session, as plain data kept apart from the snapshot they
// apply to. Base nodes (those in the session's parent snapshot) are referred to by node id: they
// can be updated, moved or deleted. New nodes carry their current path. Chunk changes are keyed
// by node id and chunk coordinates; `null` is a tombstone (the chunk was deleted).
//
// This is the object part 2's rebase works on: a solver reads another commit's transaction log
// and this change set and returns a patched change set (see docs/transactions.md).
import type { NodeId } from '../format/icechunk/ids.ts';
import { idToString } from '../format/icechunk/ids.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import type { DimensionShape } from '../format/icechunk/snapshot.ts';

export type NodeKind = 'group' | 'array';

/** What an array node stores beside its zarr.json. */
export interface ArrayShapeInfo {
  shape: DimensionShape[];
  dimensionNames: (string | null)[] | null;
}

export interface NodeDefinition {
  kind: NodeKind;
  /** The zarr.json bytes. */
  userData: Uint8Array;
  /** Present for arrays. */
  array: ArrayShapeInfo | undefined;
}

export interface NewNode extends NodeDefinition {
  id: NodeId;
  path: string;
}

export interface DeletedNode {
  id: NodeId;
  kind: NodeKind;
  /** Its path in the base snapshot. */
  path: string;
}

export interface MovedNode {
  id: NodeId;
  kind: NodeKind;
  /** Path in the base snapshot. */
  from: string;
  /** Current path. */
  to: string;
}

/** A chunk change: a new reference, or `null` for a deleted chunk (tombstone). */
export type ChunkChange = ChunkRef | null;

export const coordsKey = (coords: readonly number[]): string => coords.join(',');
export const parseCoordsKey = (key: string): number[] => (key === '' ? [] : key.split(',').map(Number));

/** Entries one JS Map (or Set) can hold in V8: one more throws RangeError "Map maximum size exceeded". */
export const MAP_CAPACITY = 2 ** 24;

/**
 * One node's chunk changes by coordinates key. A JS Map holds at most 2^24 entries and an array
 * can have far more chunks (10^8 refs is a real workload), so past `partCapacity` new keys go on
 * into another Map. Parts fill in order, so iteration follows insertion order as a Map's does; a
 * lookup asks each part (one part until 2^24 changes, at most 6 at 10^8).
 */
export class ChunkChangeMap implements ReadonlyMap<string, ChunkChange> {
  private parts: Map<string, ChunkChange>[];
  /** The part new keys go into (the last of `parts`). */
  private tail: Map<string, ChunkChange>;
  private count = 0;

  /** `partCapacity`: entries per Map before the next one starts (tests make it small). */
  constructor(private readonly partCapacity = MAP_CAPACITY) {
    this.tail = new Map();
    this.parts = [this.tail];
  }

  get size(): number {
    return this.count;
  }

  /** The change at `key` (a ref, or `null` for a deletion); `undefined` when there is none. */
  get(key: string): ChunkChange | undefined {
    if (this.parts.length === 1) return this.tail.get(key);
    // Values are refs or null, never undefined: undefined means "not in this part".
    for (const part of this.parts) {
      const change = part.get(key);
      if (change !== undefined) return change;
    }
    return undefined;
  }

  /** Whether `key` has a change. */
  has(key: string): boolean {
    return this.parts.length === 1 ? this.tail.has(key) : this.parts.some((part) => part.has(key));
  }

  /** Sets the change at `key`, in the part that holds it or else the newest one. */
  set(key: string, change: ChunkChange): this {
    const holder = this.parts.length === 1 ? (this.tail.has(key) ? this.tail : undefined) : this.parts.find((part) => part.has(key));
    if (holder) {
      holder.set(key, change);
      return this;
    }
    if (this.tail.size >= this.partCapacity) this.parts.push((this.tail = new Map()));
    this.tail.set(key, change);
    this.count++;
    return this;
  }

  /** Forgets the change at `key`; whether there was one. */
  delete(key: string): boolean {
    for (const part of this.parts) {
      if (!part.delete(key)) continue;
      this.count--;
      return true;
    }
    return false;
  }

  /** Forgets every change. */
  clear(): void {
    this.tail = new Map();
    this.parts = [this.tail];
    this.count = 0;
  }

  /** Calls `visit` for every change in insertion order, as `Map.forEach` does. */
  forEach(visit: (change: ChunkChange, key: string, map: ReadonlyMap<string, ChunkChange>) => void): void {
    for (const [key, change] of this.entries()) visit(change, key, this);
  }

  // One part (below 2^24 changes): its own iterators, without a generator step per entry.
  entries(): MapIterator<[string, ChunkChange]> {
    return this.parts.length === 1 ? this.tail.entries() : chainParts(this.parts, (part) => part.entries());
  }

  keys(): MapIterator<string> {
    return this.parts.length === 1 ? this.tail.keys() : chainParts(this.parts, (part) => part.keys());
  }

  values(): MapIterator<ChunkChange> {
    return this.parts.length === 1 ? this.tail.values() : chainParts(this.parts, (part) => part.values());
  }

  /** The entries, as `entries()`. */
  [Symbol.iterator](): MapIterator<[string, ChunkChange]> {
    return this.entries();
  }
}

function* chainParts<T>(parts: readonly Map<string, ChunkChange>[], each: (part: Map<string, ChunkChange>) => MapIterator<T>): MapIterator<T> {
  for (const part of parts) yield* each(part);
}

/**
 * The uncommitted changes of a writable session as plain data, apart from the snapshot they apply to:
 * new nodes (by id, with their path), updated, moved and deleted base nodes, and chunk changes by
 * node id and coordinates (`null` deletes a chunk). Conflict solvers read and patch it.
 */
export class ChangeSet {
  /** New nodes by node id (base32). */
  readonly newNodes = new Map<string, NewNode>();
  /** Base nodes whose zarr.json changed, by node id. */
  readonly updatedNodes = new Map<string, NodeDefinition & { id: NodeId }>();
  readonly deletedNodes = new Map<string, DeletedNode>();
  readonly movedNodes = new Map<string, MovedNode>();
  /** node id -> coordinates key -> change. */
  readonly chunks = new Map<string, ChunkChangeMap>();
  // Indexes kept in step with the maps above.
  private readonly newByPath = new Map<string, string>();
  private readonly movedByTo = new Map<string, string>();
  private readonly movedFrom = new Set<string>();
  private readonly chunkOwners = new Map<string, NodeId>();

  get isEmpty(): boolean {
    return (
      this.newNodes.size === 0 && this.updatedNodes.size === 0 && this.deletedNodes.size === 0 &&
      this.movedNodes.size === 0 && [...this.chunks.values()].every((m) => m.size === 0)
    );
  }

  /** The node added at `path` in this change set, if any. */
  newNodeAt(path: string): NewNode | undefined {
    const id = this.newByPath.get(path);
    return id === undefined ? undefined : this.newNodes.get(id);
  }

  /** The base node id moved to `path`, if any. */
  movedTo(path: string): MovedNode | undefined {
    const id = this.movedByTo.get(path);
    return id === undefined ? undefined : this.movedNodes.get(id);
  }

  /** Whether the base node at `basePath` has been moved elsewhere. */
  isMovedAway(basePath: string): boolean {
    return this.movedFrom.has(basePath);
  }

  /** Records a new node. */
  addNode(node: NewNode): void {
    const key = idToString(node.id);
    this.newNodes.set(key, node);
    this.newByPath.set(node.path, key);
  }

  /** Records a node's new definition (zarr.json); a new node is updated in place. */
  updateNode(id: NodeId, definition: NodeDefinition): void {
    const key = idToString(id);
    const added = this.newNodes.get(key);
    if (added) this.newNodes.set(key, { ...added, ...definition });
    else this.updatedNodes.set(key, { id, ...definition });
  }

  /** Deletes a node; a base node leaves a deletion record, a new node simply disappears. */
  deleteNode(id: NodeId, kind: NodeKind, basePath: string | undefined): void {
    const key = idToString(id);
    const added = this.newNodes.get(key);
    if (added) {
      this.newNodes.delete(key);
      this.newByPath.delete(added.path);
    } else if (basePath !== undefined) {
      this.unmove(key);
      this.updatedNodes.delete(key);
      this.deletedNodes.set(key, { id, kind, path: basePath });
    }
    this.chunks.delete(key);
    this.chunkOwners.delete(key);
  }

  /** Moves a node (one node; the caller moves descendants too). Moves collapse to base -> final. */
  moveNode(id: NodeId, kind: NodeKind, basePath: string | undefined, to: string): void {
    const key = idToString(id);
    const added = this.newNodes.get(key);
    if (added) {
      this.newByPath.delete(added.path);
      this.newNodes.set(key, { ...added, path: to });
      this.newByPath.set(to, key);
      return;
    }
    if (basePath === undefined) return;
    this.unmove(key);
    if (basePath === to) return; // identity moves are not recorded (spec)
    this.movedNodes.set(key, { id, kind, from: basePath, to });
    this.movedByTo.set(to, key);
    this.movedFrom.add(basePath);
  }

  /** Records a chunk change of a node: a new chunk reference, or `null` to delete the chunk. */
  setChunk(id: NodeId, coords: readonly number[], change: ChunkChange): void {
    this.setChunkByKey(id, idToString(id), coordsKey(coords), change);
  }

  /**
   * {@link setChunk} with the node id's text (`key`) and the coordinates key made already: copying
   * and merging change sets (10,000 forks of a distributed write) re-encode nothing per chunk.
   */
  setChunkByKey(id: NodeId, key: string, coords: string, change: ChunkChange): void {
    let changes = this.chunks.get(key);
    if (!changes) {
      this.chunks.set(key, (changes = new ChunkChangeMap()));
      this.chunkOwners.set(key, id);
    }
    // Deleting a chunk of a new array needs no tombstone: there is nothing below it.
    if (change === null && this.newNodes.has(key)) changes.delete(coords);
    else changes.set(coords, change);
  }

  /** `undefined`: no change recorded; `null`: deleted in this session. */
  chunkChange(id: NodeId, coords: readonly number[]): ChunkChange | undefined {
    return this.chunks.get(idToString(id))?.get(coordsKey(coords));
  }

  /** The node id behind a key of `chunks`. */
  chunkNodeId(key: string): NodeId | undefined {
    return this.chunkOwners.get(key);
  }

  /** A node's chunk changes, keyed by coordinates (`"0,1"`). */
  chunkChangesOf(id: NodeId): ReadonlyMap<string, ChunkChange> | undefined {
    return this.chunks.get(idToString(id));
  }

  /** An independent copy (chunk refs are shared: they are immutable values). */
  clone(): ChangeSet {
    const copy = new ChangeSet();
    copyChangeSet(this, copy);
    return copy;
  }

  // Patches used by conflict solvers (src/txn/conflicts): each undoes one kind of change.

  /** Drops our changes to the given chunks of a node (coordinate keys); all of them when omitted. */
  dropChunkChanges(id: NodeId, coordKeys?: Iterable<string>): void {
    const key = idToString(id);
    const changes = this.chunks.get(key);
    if (!changes) return;
    if (coordKeys === undefined) changes.clear();
    else for (const c of coordKeys) changes.delete(c);
    if (changes.size === 0) {
      this.chunks.delete(key);
      this.chunkOwners.delete(key);
    }
  }

  /** Forgets our zarr.json update of a base node (theirs wins). */
  undoUpdate(id: NodeId): void {
    this.updatedNodes.delete(idToString(id));
  }

  /** Forgets our deletion of a base node (it stays, as the other side changed it). */
  undoDelete(id: NodeId): void {
    this.deletedNodes.delete(idToString(id));
  }

  /** Forgets our move of a base node (it stays where the base has it). */
  undoMove(id: NodeId): void {
    this.unmove(idToString(id));
  }

  /** Forgets a node this session created, with its chunks. */
  dropNewNode(id: NodeId): void {
    const key = idToString(id);
    const added = this.newNodes.get(key);
    if (!added) return;
    this.newNodes.delete(key);
    this.newByPath.delete(added.path);
    this.chunks.delete(key);
    this.chunkOwners.delete(key);
  }

  /** Updates the base path a deletion record remembers (the other side moved the node). */
  rebasePathOfDeleted(id: NodeId, path: string): void {
    const record = this.deletedNodes.get(idToString(id));
    if (record) this.deletedNodes.set(idToString(id), { ...record, path });
  }

  /** Forgets every change. */
  clear(): void {
    this.newNodes.clear();
    this.updatedNodes.clear();
    this.deletedNodes.clear();
    this.movedNodes.clear();
    this.chunks.clear();
    this.newByPath.clear();
    this.movedByTo.clear();
    this.movedFrom.clear();
    this.chunkOwners.clear();
  }

  private unmove(key: string): void {
    const moved = this.movedNodes.get(key);
    if (!moved) return;
    this.movedNodes.delete(key);
    this.movedByTo.delete(moved.to);
    this.movedFrom.delete(moved.from);
  }
}

/** Replays every change of `from` into `to`, in the order that keeps `to`'s indexes consistent. */
export function copyChangeSet(from: ChangeSet, to: ChangeSet): void {
  for (const n of from.newNodes.values()) to.addNode(n);
  for (const u of from.updatedNodes.values()) to.updateNode(u.id, u);
  for (const d of from.deletedNodes.values()) to.deleteNode(d.id, d.kind, d.path);
  for (const m of from.movedNodes.values()) to.moveNode(m.id, m.kind, m.from, m.to);
  for (const [key, changes] of from.chunks) {
    const id = from.chunkNodeId(key);
    if (!id) continue;
    for (const [coords, change] of changes) to.setChunkByKey(id, key, coords, change);
  }
}
