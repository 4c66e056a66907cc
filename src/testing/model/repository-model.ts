// The reference model of an Icechunk repository: snapshots with parents, branch and tag refs, and
// per-snapshot trees (path -> node, array node -> chunk values). Sessions hold a base snapshot and
// a working tree. The rules it encodes (docs/transactions.md, docs/CONFORMANCE.md, Icechunk spec):
// - a commit whose branch moved since the session's base fails with a conflict (it does not rebase);
// - a rebase replays the session's changes over each commit made on its branch since, oldest first,
//   with the conflict rules of repository-conflicts.ts; any conflict fails it and leaves the
//   session as it was;
// - a commit with no change since the session opened fails ("no changes"), checked first;
// - tags are immutable: creating an existing tag fails ("already exists");
// - a move is a transaction of its own (Icechunk's rearrange session) committed on the branch tip.
// Node, zarr.json and chunk identities are tracked so "did anything change" has one answer; where
// the answer depends on an implementation's bookkeeping (a change undone in the same session), the
// op that would depend on it is skipped rather than guessed.
import { type HistoryOp, type HistoryPath } from '../arbitraries/repository-history.ts';
import { checkedAt } from '../../engine/indexing.ts';
import { changesBetween, conflictsWith, fitTo, replay, type ModelConflict } from './repository-conflicts.ts';
import { byId, cloneTree, listTree, parentOf, sameTree, within, type ModelNode, type Tree, type TreeListing } from './repository-tree.ts';

export { listTree, type ListedNode, type TreeListing } from './repository-tree.ts';
export type { ConflictKind, ModelConflict } from './repository-conflicts.ts';

/** How the model classifies a failure; adapters map their errors onto these. */
export type ErrorClass = 'conflict' | 'no-changes' | 'already-exists' | 'not-found' | 'other';

/** What a read looks at: a session slot, a branch tip or a tag. */
export type ReadSource = { readonly slot: number } | { readonly branch: string } | { readonly tag: string };

export type Action =
  | { readonly do: 'open'; readonly slot: number; readonly branch: string }
  | { readonly do: 'createGroup' | 'createArray' | 'deleteNode'; readonly slot: number; readonly path: string }
  | { readonly do: 'setAttribute'; readonly slot: number; readonly path: string; readonly value: number }
  | { readonly do: 'writeChunk'; readonly slot: number; readonly path: string; readonly chunk: number; readonly value: number }
  | { readonly do: 'eraseChunk'; readonly slot: number; readonly path: string; readonly chunk: number }
  | { readonly do: 'commit'; readonly slot: number; readonly snapshot: number }
  | { readonly do: 'rebase'; readonly slot: number }
  | { readonly do: 'move'; readonly branch: string; readonly from: string; readonly to: string; readonly snapshot: number }
  | { readonly do: 'createBranch' | 'createTag'; readonly name: string; readonly at: string }
  | { readonly do: 'reset'; readonly branch: string; readonly to: number };

/**
 * What one history op must do on every implementation: its action, whether it fails, and the reads
 * to check afterwards.
 */
export interface Expectation {
  readonly action: Action;
  /** undefined: the action succeeds. */
  readonly error?: ErrorClass;
  /** For a failed rebase: the conflicts the model found (for reports). */
  readonly conflicts?: readonly ModelConflict[];
  /** Reads to make afterwards and what they must return. */
  readonly reads: readonly { readonly source: ReadSource; readonly tree: TreeListing }[];
}

interface ModelSession {
  branch: string;
  base: number;
  tree: Tree;
  touched: boolean;
  /** `node id/chunk index` of every chunk written or erased since the session opened. */
  chunksTouched: Set<string>;
}

interface ModelSnapshot {
  readonly parent: number | null;
  readonly tree: Tree;
  /** The commit changed a chunk and changed it back: whether that counts is implementation-defined. */
  readonly undone: boolean;
  /** A move's commit (from, to). */
  readonly move?: readonly [string, string];
}

/** Options of {@link RepositoryModel}: how to treat ops whose outcome implementations dispute. */
export interface RepositoryModelOptions {
  /**
   * Rules where Floe and the reference Icechunk differ (docs/CONFORMANCE.md): 'skip' the ops they
   * decide (default), or hold them to 'floe' (rebases replay over moves; a new node whose parent
   * group is gone or replaced, and deleting a group the other side added to, conflict) or to the
   * 'reference' (any rebase over a move conflicts; a replaced parent group takes our new node; the
   * cases where it leaves nodes without a parent are still skipped).
   */
  readonly disputed?: 'skip' | 'floe' | 'reference';
}

/** The `i`-th (modulo) path in sorted order among nodes that `fits`; undefined when none does. */
function nth(t: Tree, i: number, fits: (n: ModelNode) => boolean): string | undefined {
  const paths = [...t].filter(([, n]) => fits(n)).map(([p]) => p).sort();
  return paths.length ? paths[i % paths.length] : undefined;
}

/**
 * The reference model of an Icechunk repository (snapshots, refs, per-snapshot trees, session
 * slots): it decides what each history op must do; see {@link RepositoryModel.step}.
 */
export class RepositoryModel {
  /** Snapshot index -> parent index and tree; 0 is the root commit (an empty root group). */
  readonly snapshots: ModelSnapshot[] = [{ parent: null, tree: new Map(), undone: false }];
  readonly branches = new Map<string, number>([['main', 0]]);
  readonly tags = new Map<string, number>();
  private readonly sessions: ModelSession[];
  private nextId = 1;

  constructor(slots = 2, private readonly options: RepositoryModelOptions = {}) {
    this.sessions = Array.from({ length: slots }, () => ({ branch: 'main', base: 0, tree: new Map(), touched: false, chunksTouched: new Set() }));
  }

  private branchAt(i: number): string {
    const names = [...this.branches.keys()];
    return checkedAt(names, i % names.length, 'INVALID_ARGUMENT', 'branch pick');
  }

  /** A snapshot by model index (indices come from the model's own refs and sessions). */
  private snapshot(i: number): ModelSnapshot {
    return checkedAt(this.snapshots, i, 'INVALID_ARGUMENT', 'no such model snapshot');
  }

  /** A session slot; the generated ops pick slots below the count the model was made with. */
  private session(slot: number): ModelSession {
    return checkedAt(this.sessions, slot, 'INVALID_ARGUMENT', 'no such session slot');
  }

  /** The expectation for one history op, applied to the model; undefined when the op is skipped. */
  step(op: HistoryOp): Expectation | undefined {
    switch (op.op) {
      case 'open': {
        const branch = this.branchAt(op.branch);
        const base = this.branches.get(branch)!;
        this.sessions[op.slot] = { branch, base, tree: cloneTree(this.snapshot(base).tree), touched: false, chunksTouched: new Set() };
        return { action: { do: 'open', slot: op.slot, branch }, reads: [{ source: { slot: op.slot }, tree: listTree(this.snapshot(base).tree) }] };
      }
      case 'createGroup':
      case 'createArray': {
        const s = this.session(op.slot);
        const parent = parentOf(op.path);
        if (s.tree.has(op.path) || (parent !== '/' && s.tree.get(parent)?.kind !== 'group')) return undefined;
        const id = this.nextId++;
        s.tree.set(op.path, { id, kind: op.op === 'createGroup' ? 'group' : 'array', meta: id, attr: undefined, chunks: new Map() });
        s.touched = true;
        return { action: { do: op.op, slot: op.slot, path: op.path }, reads: [] };
      }
      case 'deleteNode': {
        const s = this.session(op.slot);
        const path = nth(s.tree, op.node, () => true);
        if (!path) return undefined;
        for (const p of [...s.tree.keys()]) if (within(p, path)) s.tree.delete(p);
        s.touched = true;
        return { action: { do: 'deleteNode', slot: op.slot, path }, reads: [] };
      }
      case 'setAttr': {
        const s = this.session(op.slot);
        const path = nth(s.tree, op.node, () => true);
        if (!path) return undefined;
        const node = s.tree.get(path)!;
        // Rewriting zarr.json with the bytes it has is no change (the reference's rule).
        if (node.attr !== op.value) {
          s.tree.set(path, { ...node, meta: this.nextId++, attr: op.value });
          s.touched = true;
        }
        return { action: { do: 'setAttribute', slot: op.slot, path, value: op.value }, reads: [] };
      }
      case 'writeChunk':
      case 'eraseChunk': {
        const s = this.session(op.slot);
        const path = nth(s.tree, op.node, (n) => n.kind === 'array');
        if (!path) return undefined;
        const node = s.tree.get(path)!;
        if (op.op === 'eraseChunk') {
          if (!node.chunks.has(op.chunk)) return undefined; // erasing nothing is a change in some bookkeepings only
          node.chunks.delete(op.chunk);
        } else node.chunks.set(op.chunk, [op.value, this.nextId++]);
        s.touched = true;
        s.chunksTouched.add(`${node.id}/${op.chunk}`);
        return { action: op.op === 'writeChunk' ? { do: 'writeChunk', slot: op.slot, path, chunk: op.chunk, value: op.value } : { do: 'eraseChunk', slot: op.slot, path, chunk: op.chunk }, reads: [] };
      }
      case 'commit':
        return this.commit(op.slot);
      case 'rebase':
        return this.rebase(op.slot);
      case 'move':
        return this.move(this.branchAt(op.branch), op.node, op.to);
      case 'branch':
      case 'tag': {
        const at = this.branchAt(op.from);
        const refs = op.op === 'branch' ? this.branches : this.tags;
        const name = `${op.op === 'branch' ? 'b' : 't'}${refs.size}`;
        refs.set(name, this.branches.get(at)!);
        const source = op.op === 'branch' ? { branch: name } : { tag: name };
        return { action: { do: op.op === 'branch' ? 'createBranch' : 'createTag', name, at }, reads: [{ source, tree: listTree(this.snapshot(refs.get(name)!).tree) }] };
      }
      case 'retag': {
        if (this.tags.size === 0) return undefined;
        const name = checkedAt([...this.tags.keys()], op.tag % this.tags.size, 'INVALID_ARGUMENT', 'tag pick');
        return { action: { do: 'createTag', name, at: 'main' }, error: 'already-exists', reads: [] };
      }
      case 'reset': {
        const branch = this.branchAt(op.branch);
        const to = Math.max(0, this.snapshots.length - 1 - op.back);
        this.branches.set(branch, to);
        return { action: { do: 'reset', branch, to }, reads: [{ source: { branch }, tree: listTree(this.snapshot(to).tree) }] };
      }
    }
  }

  /** A chunk the session wrote or erased is back as its base had it (e.g. written, then erased). */
  private undoneChunks(s: ModelSession): boolean {
    const base = byId(this.snapshot(s.base).tree);
    const now = byId(s.tree);
    return [...s.chunksTouched].some((key) => {
      const [id, chunk] = key.split('/').map(Number) as [number, number];
      const before = base.get(id)?.[1];
      const after = now.get(id)?.[1];
      return before !== undefined && after !== undefined && before.chunks.get(chunk)?.[1] === after.chunks.get(chunk)?.[1];
    });
  }

  private commit(slot: number): Expectation | undefined {
    const s = this.session(slot);
    const base = this.snapshot(s.base).tree;
    if (s.touched && sameTree(s.tree, base)) return undefined; // undone changes: implementation-defined
    const snapshot = this.snapshots.length;
    const action: Action = { do: 'commit', slot, snapshot };
    // An empty session is refused before the branch is even looked at (Floe and Icechunk agree).
    if (!s.touched) return { action, error: 'no-changes', reads: [] };
    if (this.branches.get(s.branch) !== s.base) return { action, error: 'conflict', reads: [] };
    this.snapshots.push({ parent: s.base, tree: cloneTree(s.tree), undone: this.undoneChunks(s) });
    this.branches.set(s.branch, snapshot);
    s.base = snapshot;
    s.touched = false;
    s.chunksTouched = new Set();
    const tree = listTree(s.tree);
    return { action, reads: [{ source: { branch: s.branch }, tree }, { source: { slot }, tree }] };
  }

  /** Snapshots from `base` (exclusive) to `tip`, oldest first; undefined when `base` is not an ancestor. */
  private commitsSince(base: number, tip: number): number[] | undefined {
    const out: number[] = [];
    for (let at: number | null = tip; at !== base; at = this.snapshot(at).parent) {
      if (at === null) return undefined;
      out.push(at);
    }
    return out.reverse();
  }

  private rebase(slot: number): Expectation | undefined {
    const s = this.session(slot);
    const commits = this.commitsSince(s.base, this.branches.get(s.branch)!);
    // The session's base is not an ancestor of the tip (a reset): Floe refuses, the reference
    // replays the tip's whole ancestry (docs/CONFORMANCE.md). Neither is specified: skipped.
    if (!commits) return undefined;
    if (commits.length > 0 && (this.undoneChunks(s) || commits.some((i) => this.snapshot(i).undone))) return undefined;
    const rules = this.options.disputed ?? 'skip';
    if (rules === 'skip' && commits.some((i) => this.snapshot(i).move)) return undefined;
    const action: Action = { do: 'rebase', slot };
    let ours = changesBetween(this.snapshot(s.base).tree, s.tree);
    for (const i of commits) {
      const { parent, tree, move } = this.snapshot(i);
      const found: ModelConflict[] = move && rules === 'reference'
        ? [{ kind: 'MoveOperationCannotBeRebased', path: move[0] }]
        : conflictsWith(ours, this.snapshot(parent!).tree, tree);
      const conflicts = rules === 'reference' ? found.filter((c) => c.disputed !== 'replaced-parent') : found;
      // Only conflicts the rules leave open (all disputed ones when skipping; the reference's orphans).
      const open = (c: ModelConflict) => (rules === 'skip' ? c.disputed !== undefined : rules === 'reference' && c.disputed === 'orphan');
      if (conflicts.length > 0 && conflicts.every(open)) return undefined;
      if (conflicts.length > 0) return { action, error: 'conflict', conflicts, reads: [{ source: { slot }, tree: listTree(s.tree) }] };
      ours = fitTo(ours, tree);
    }
    const tip = commits.at(-1);
    if (tip !== undefined) {
      s.tree = replay(ours, s.tree, this.snapshot(tip).tree);
      s.base = tip;
    }
    return { action, reads: [{ source: { slot }, tree: listTree(s.tree) }] };
  }

  private move(branch: string, node: number, to: HistoryPath): Expectation | undefined {
    const tip = this.branches.get(branch)!;
    const tree = this.snapshot(tip).tree;
    const from = nth(tree, node, () => true);
    const parent = parentOf(to);
    if (!from || tree.has(to) || within(to, from) || (parent !== '/' && tree.get(parent)?.kind !== 'group')) return undefined;
    const moved: Tree = new Map();
    for (const [p, n] of cloneTree(tree)) moved.set(within(p, from) ? to + p.slice(from.length) : p, n);
    const snapshot = this.snapshots.length;
    this.snapshots.push({ parent: tip, tree: moved, undone: false, move: [from, to] });
    this.branches.set(branch, snapshot);
    return { action: { do: 'move', branch, from, to, snapshot }, reads: [{ source: { branch }, tree: listTree(moved) }] };
  }

  /** Reads to check at the end: every branch and tag. */
  finalReads(): { source: ReadSource; tree: TreeListing }[] {
    const tip = (i: number) => listTree(this.snapshot(i).tree);
    return [
      ...[...this.branches].map(([branch, i]) => ({ source: { branch }, tree: tip(i) })),
      ...[...this.tags].map(([tag, i]) => ({ source: { tag }, tree: tip(i) })),
    ];
  }
}
