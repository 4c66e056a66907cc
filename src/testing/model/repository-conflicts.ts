// The model's conflict rules for rebasing a session over one commit made since it began, written
// over node identities (docs/CONFORMANCE.md lists them). A change set is what differs between two
// trees; "theirs" is the commit's tree against its parent, "ours" the session against its base.
// The kinds are named as Icechunk names them. Moves in histories are commits of their own, never
// part of a session, so our moves never collide; rebasing over their moves is a disputed rule
// (RepositoryModelOptions), and so are the conflicts flagged `disputed` here.
import { byId, cloneTree, parentOf, within, type ModelNode, type Tree } from './repository-tree.ts';

/** A conflict kind the model detects, named as Icechunk names it. */
export type ConflictKind =
  | 'NewNodeConflictsWithExistingNode' | 'NewNodeInInvalidGroup'
  | 'ZarrMetadataDoubleUpdate' | 'ZarrMetadataUpdateOfDeletedArray' | 'ZarrMetadataUpdateOfDeletedGroup'
  | 'ChunkDoubleUpdate' | 'ChunksUpdatedInDeletedArray' | 'ChunksUpdatedInUpdatedArray'
  | 'DeleteOfUpdatedArray' | 'DeleteOfUpdatedGroup'
  /** Their commit moved nodes (the reference's rule, `disputed: 'reference'`). */
  | 'MoveOperationCannotBeRebased';

/**
 * Conflicts only Floe reports: 'orphan', the other side's change would leave a node without its
 * parent group (the reference misses these, a FIXME in its detector, and commits such trees);
 * 'replaced-parent', our new node's parent group is now another group at the same path (the
 * reference replays into the new group).
 */
export type Disputed = 'orphan' | 'replaced-parent';

/** A conflict the model found rebasing a session; `disputed` marks rules where implementations differ. */
export interface ModelConflict {
  readonly kind: ConflictKind;
  readonly path: string;
  readonly disputed?: Disputed;
}

export interface Changes {
  /** Node id -> path, for nodes only the later tree has. */
  readonly created: ReadonlyMap<number, string>;
  /** Node ids only the earlier tree has. */
  readonly deleted: ReadonlySet<number>;
  /** Node ids in both whose zarr.json was written. */
  readonly updated: ReadonlySet<number>;
  /** Node id (in both) -> chunk indices written or erased. */
  readonly chunks: ReadonlyMap<number, ReadonlySet<number>>;
}

export function changesBetween(before: Tree, after: Tree): Changes {
  const b = byId(before);
  const a = byId(after);
  const created = new Map<number, string>();
  const updated = new Set<number>();
  const chunks = new Map<number, Set<number>>();
  for (const [id, [path, node]] of a) {
    const old = b.get(id)?.[1];
    if (!old) {
      created.set(id, path);
      continue;
    }
    if (old.meta !== node.meta) updated.add(id);
    const touched = new Set([...old.chunks.keys(), ...node.chunks.keys()].filter((c) => old.chunks.get(c)?.[1] !== node.chunks.get(c)?.[1]));
    if (touched.size > 0) chunks.set(id, touched);
  }
  return { created, updated, chunks, deleted: new Set([...b.keys()].filter((id) => !a.has(id))) };
}

/**
 * Our changes against one commit of theirs (`parent` -> `theirs`; `parent` is what our changes
 * apply to now). Empty: our changes replay cleanly on top of `theirs`.
 */
export function conflictsWith(ours: Changes, parent: Tree, theirs: Tree): ModelConflict[] {
  const their = changesBetween(parent, theirs);
  const theirNodes = byId(theirs);
  const ourNewPaths = new Set(ours.created.values());
  const out: ModelConflict[] = [];
  const add = (kind: ConflictKind, path: string, disputed?: Disputed) => out.push(disputed ? { kind, path, disputed } : { kind, path });
  const kindOf = (id: number) => byId(parent).get(id)![1].kind;

  for (const path of ours.created.values()) {
    // A path both sides filled (unless what they have there is something we delete).
    const occupant = theirs.get(path);
    if (occupant && !ours.deleted.has(occupant.id)) add('NewNodeConflictsWithExistingNode', path);
    // Our new node's parent group must still be the same group at the same path.
    const up = parentOf(path);
    if (up === '/' || ourNewPaths.has(up)) continue;
    const was = parent.get(up);
    const now = theirs.get(up);
    if (!now) add('NewNodeInInvalidGroup', up, 'orphan');
    else if (now.kind !== 'group') add('NewNodeInInvalidGroup', up);
    else if (now.id !== was?.id) add('NewNodeInInvalidGroup', up, 'replaced-parent');
  }
  for (const id of ours.updated) {
    const path = theirNodes.get(id)?.[0] ?? '?';
    if (their.updated.has(id)) add('ZarrMetadataDoubleUpdate', path);
    if (their.deleted.has(id)) add(kindOf(id) === 'array' ? 'ZarrMetadataUpdateOfDeletedArray' : 'ZarrMetadataUpdateOfDeletedGroup', path);
  }
  for (const [id, coords] of ours.chunks) {
    const path = theirNodes.get(id)?.[0] ?? '?';
    if (their.deleted.has(id)) add('ChunksUpdatedInDeletedArray', path);
    if (their.updated.has(id)) add('ChunksUpdatedInUpdatedArray', path);
    if ([...coords].some((c) => their.chunks.get(id)?.has(c))) add('ChunkDoubleUpdate', path);
  }
  for (const id of ours.deleted) {
    const found = theirNodes.get(id);
    if (!found) continue; // they deleted it too
    const [path, node] = found;
    if (node.kind === 'array' && (their.updated.has(id) || their.chunks.has(id))) add('DeleteOfUpdatedArray', path);
    // A group we delete must not have gained anything we do not delete with it.
    const grew = [...theirs].some(([p, n]) => p !== path && within(p, path) && !ours.deleted.has(n.id));
    if (node.kind === 'group' && (their.updated.has(id) || grew)) add('DeleteOfUpdatedGroup', path, their.updated.has(id) ? undefined : 'orphan');
  }
  return out;
}

/** Our changes after replaying over `theirs`: deletions they made too are no longer ours. */
export function fitTo(ours: Changes, theirs: Tree): Changes {
  const present = byId(theirs);
  return { ...ours, deleted: new Set([...ours.deleted].filter((id) => present.has(id))) };
}

/** `onto` with our changes applied, taking our nodes, zarr.json and chunks from `session`. */
export function replay(ours: Changes, session: Tree, onto: Tree): Tree {
  const out = cloneTree(onto);
  const where = byId(out);
  const mine = byId(session);
  const ourNode = (id: number): ModelNode => mine.get(id)![1];
  for (const id of ours.deleted) {
    const found = where.get(id);
    if (found) out.delete(found[0]);
  }
  for (const id of ours.updated) {
    const [path, node] = where.get(id)!;
    out.set(path, { ...node, meta: ourNode(id).meta, attr: ourNode(id).attr });
  }
  for (const [id, coords] of ours.chunks) {
    const target = out.get(where.get(id)![0])!.chunks;
    for (const c of coords) {
      const chunk = ourNode(id).chunks.get(c);
      if (chunk) target.set(c, chunk);
      else target.delete(c);
    }
  }
  for (const [id, path] of ours.created) out.set(path, { ...ourNode(id), chunks: new Map(ourNode(id).chunks) });
  return out;
}
