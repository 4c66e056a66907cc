// The reference model of an Icechunk repository: snapshots with parents, branch and tag refs, and
// per-snapshot trees (path -> node, array node -> chunk values). Sessions hold a base snapshot and
// a working tree. The rules it encodes (docs/transactions.md, Icechunk spec):
// - a commit whose branch moved since the session's base fails with a conflict (no rebase here);
// - a commit with no change since the session opened fails ("no changes"), checked first;
// - tags are immutable: creating an existing tag fails ("already exists");
// - a move is a transaction of its own (Icechunk's rearrange session) committed on the branch tip.
// Node and chunk identities are tracked so "did anything change" has one answer; a history where
// the answer depends on an implementation's bookkeeping (a change undone in the same session) has
// its commit skipped rather than guessed.
import { HISTORY_ARRAY, type HistoryOp, type HistoryPath } from '../arbitraries/repository-history.ts';

export type ErrorClass = 'conflict' | 'no-changes' | 'already-exists' | 'not-found' | 'other';

interface ModelNode {
  readonly id: number;
  readonly kind: 'group' | 'array';
  /** chunk index -> [value, write id] */
  readonly chunks: Map<number, readonly [number, number]>;
}
type Tree = Map<string, ModelNode>;

/** What a reader sees: node path -> 'group', or an array's values (fill 0 where no chunk). */
export type TreeListing = Record<string, 'group' | number[]>;

export type ReadSource = { readonly slot: number } | { readonly branch: string } | { readonly tag: string };

export type Action =
  | { readonly do: 'open'; readonly slot: number; readonly branch: string }
  | { readonly do: 'createGroup' | 'createArray' | 'deleteNode'; readonly slot: number; readonly path: string }
  | { readonly do: 'writeChunk'; readonly slot: number; readonly path: string; readonly chunk: number; readonly value: number }
  | { readonly do: 'eraseChunk'; readonly slot: number; readonly path: string; readonly chunk: number }
  | { readonly do: 'commit'; readonly slot: number; readonly snapshot: number }
  | { readonly do: 'move'; readonly branch: string; readonly from: string; readonly to: string; readonly snapshot: number }
  | { readonly do: 'createBranch' | 'createTag'; readonly name: string; readonly at: string }
  | { readonly do: 'reset'; readonly branch: string; readonly to: number };

export interface Expectation {
  readonly action: Action;
  /** undefined: the action succeeds. */
  readonly error?: ErrorClass;
  /** Reads to make afterwards and what they must return. */
  readonly reads: readonly { readonly source: ReadSource; readonly tree: TreeListing }[];
}

interface ModelSession { branch: string; base: number; tree: Tree; touched: boolean }

const cloneTree = (t: Tree): Tree => new Map([...t].map(([p, n]) => [p, { ...n, chunks: new Map(n.chunks) }]));
const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/')) || '/';
const within = (p: string, root: string): boolean => p === root || p.startsWith(root + '/');

function sameTree(a: Tree, b: Tree): boolean {
  if (a.size !== b.size) return false;
  for (const [p, n] of a) {
    const m = b.get(p);
    if (!m || m.id !== n.id || m.chunks.size !== n.chunks.size) return false;
    for (const [c, [, id]] of n.chunks) if (m.chunks.get(c)?.[1] !== id) return false;
  }
  return true;
}

/** The `i`-th (modulo) path in sorted order among nodes that `fits`; undefined when none does. */
function nth(t: Tree, i: number, fits: (n: ModelNode) => boolean): string | undefined {
  const paths = [...t].filter(([, n]) => fits(n)).map(([p]) => p).sort();
  return paths.length ? paths[i % paths.length] : undefined;
}

export function listTree(t: Tree): TreeListing {
  const out: TreeListing = {};
  for (const p of [...t.keys()].sort()) {
    const n = t.get(p)!;
    out[p] = n.kind === 'group'
      ? 'group'
      : Array.from({ length: HISTORY_ARRAY.chunks * HISTORY_ARRAY.chunkLength }, (_, i) => n.chunks.get(Math.floor(i / HISTORY_ARRAY.chunkLength))?.[0] ?? 0);
  }
  return out;
}

export class RepositoryModel {
  /** Snapshot index -> parent index and tree; 0 is the root commit (an empty root group). */
  readonly snapshots: { readonly parent: number | null; readonly tree: Tree }[] = [{ parent: null, tree: new Map() }];
  readonly branches = new Map<string, number>([['main', 0]]);
  readonly tags = new Map<string, number>();
  private readonly sessions: ModelSession[];
  private nextId = 1;

  constructor(slots = 2) {
    this.sessions = Array.from({ length: slots }, () => ({ branch: 'main', base: 0, tree: new Map(), touched: false }));
  }

  private branchAt(i: number): string {
    const names = [...this.branches.keys()];
    return names[i % names.length]!;
  }

  /** The expectation for one history op, applied to the model; undefined when the op is skipped. */
  step(op: HistoryOp): Expectation | undefined {
    switch (op.op) {
      case 'open': {
        const branch = this.branchAt(op.branch);
        const base = this.branches.get(branch)!;
        this.sessions[op.slot] = { branch, base, tree: cloneTree(this.snapshots[base]!.tree), touched: false };
        return { action: { do: 'open', slot: op.slot, branch }, reads: [{ source: { slot: op.slot }, tree: listTree(this.snapshots[base]!.tree) }] };
      }
      case 'createGroup':
      case 'createArray': {
        const s = this.sessions[op.slot]!;
        const parent = parentOf(op.path);
        if (s.tree.has(op.path) || (parent !== '/' && s.tree.get(parent)?.kind !== 'group')) return undefined;
        s.tree.set(op.path, { id: this.nextId++, kind: op.op === 'createGroup' ? 'group' : 'array', chunks: new Map() });
        s.touched = true;
        return { action: { do: op.op, slot: op.slot, path: op.path }, reads: [] };
      }
      case 'deleteNode': {
        const s = this.sessions[op.slot]!;
        const path = nth(s.tree, op.node, () => true);
        if (!path) return undefined;
        for (const p of [...s.tree.keys()]) if (within(p, path)) s.tree.delete(p);
        s.touched = true;
        return { action: { do: 'deleteNode', slot: op.slot, path }, reads: [] };
      }
      case 'writeChunk':
      case 'eraseChunk': {
        const s = this.sessions[op.slot]!;
        const path = nth(s.tree, op.node, (n) => n.kind === 'array');
        if (!path) return undefined;
        const node = s.tree.get(path)!;
        if (op.op === 'eraseChunk') {
          if (!node.chunks.has(op.chunk)) return undefined; // erasing nothing is a change in some bookkeepings only
          node.chunks.delete(op.chunk);
        } else node.chunks.set(op.chunk, [op.value, this.nextId++]);
        s.touched = true;
        return { action: op.op === 'writeChunk' ? { do: 'writeChunk', slot: op.slot, path, chunk: op.chunk, value: op.value } : { do: 'eraseChunk', slot: op.slot, path, chunk: op.chunk }, reads: [] };
      }
      case 'commit':
        return this.commit(op.slot);
      case 'move':
        return this.move(this.branchAt(op.branch), op.node, op.to);
      case 'branch':
      case 'tag': {
        const at = this.branchAt(op.from);
        const refs = op.op === 'branch' ? this.branches : this.tags;
        const name = `${op.op === 'branch' ? 'b' : 't'}${refs.size}`;
        refs.set(name, this.branches.get(at)!);
        const source = op.op === 'branch' ? { branch: name } : { tag: name };
        return { action: { do: op.op === 'branch' ? 'createBranch' : 'createTag', name, at }, reads: [{ source, tree: listTree(this.snapshots[refs.get(name)!]!.tree) }] };
      }
      case 'retag': {
        if (this.tags.size === 0) return undefined;
        const name = [...this.tags.keys()][op.tag % this.tags.size]!;
        return { action: { do: 'createTag', name, at: 'main' }, error: 'already-exists', reads: [] };
      }
      case 'reset': {
        const branch = this.branchAt(op.branch);
        const to = Math.max(0, this.snapshots.length - 1 - op.back);
        this.branches.set(branch, to);
        return { action: { do: 'reset', branch, to }, reads: [{ source: { branch }, tree: listTree(this.snapshots[to]!.tree) }] };
      }
    }
  }

  private commit(slot: number): Expectation | undefined {
    const s = this.sessions[slot]!;
    const base = this.snapshots[s.base]!.tree;
    if (s.touched && sameTree(s.tree, base)) return undefined; // undone changes: implementation-defined
    const snapshot = this.snapshots.length;
    const action: Action = { do: 'commit', slot, snapshot };
    // An empty session is refused before the branch is even looked at (Floe and Icechunk agree).
    if (!s.touched) return { action, error: 'no-changes', reads: [] };
    if (this.branches.get(s.branch) !== s.base) return { action, error: 'conflict', reads: [] };
    this.snapshots.push({ parent: s.base, tree: cloneTree(s.tree) });
    this.branches.set(s.branch, snapshot);
    s.base = snapshot;
    s.touched = false;
    const tree = listTree(s.tree);
    return { action, reads: [{ source: { branch: s.branch }, tree }, { source: { slot }, tree }] };
  }

  private move(branch: string, node: number, to: HistoryPath): Expectation | undefined {
    const tip = this.branches.get(branch)!;
    const tree = this.snapshots[tip]!.tree;
    const from = nth(tree, node, () => true);
    const parent = parentOf(to);
    if (!from || tree.has(to) || within(to, from) || (parent !== '/' && tree.get(parent)?.kind !== 'group')) return undefined;
    const moved: Tree = new Map();
    for (const [p, n] of cloneTree(tree)) moved.set(within(p, from) ? to + p.slice(from.length) : p, n);
    const snapshot = this.snapshots.length;
    this.snapshots.push({ parent: tip, tree: moved });
    this.branches.set(branch, snapshot);
    return { action: { do: 'move', branch, from, to, snapshot }, reads: [{ source: { branch }, tree: listTree(moved) }] };
  }

  /** Reads to check at the end: every branch and tag. */
  finalReads(): { source: ReadSource; tree: TreeListing }[] {
    const tip = (i: number) => listTree(this.snapshots[i]!.tree);
    return [
      ...[...this.branches].map(([branch, i]) => ({ source: { branch }, tree: tip(i) })),
      ...[...this.tags].map(([tag, i]) => ({ source: { tag }, tree: tip(i) })),
    ];
  }
}
