// The reference model's snapshot trees: path -> node, each node with a stable identity, the
// identity of its zarr.json and of every chunk, so "what changed between two trees" is a plain
// comparison of identities (the model's stand-in for a transaction log).
import { HISTORY_ARRAY } from '../arbitraries/repository-history.ts';

export interface ModelNode {
  readonly id: number;
  readonly kind: 'group' | 'array';
  /** Write id of its zarr.json: new on creation and on every attribute write. */
  readonly meta: number;
  /** The user attribute `v`, once one was written. */
  readonly attr: number | undefined;
  /** chunk index -> [value, write id] */
  readonly chunks: Map<number, readonly [number, number]>;
}
export type Tree = Map<string, ModelNode>;

/** What a reader sees of one node: 'group' or an array's values, wrapped when it has an attribute. */
export type ListedNode = 'group' | number[] | { readonly attr: number; readonly node: 'group' | number[] };
/** What a reader sees: node path -> listed node (arrays read fill 0 where no chunk). */
export type TreeListing = Record<string, ListedNode>;

export const cloneTree = (t: Tree): Tree => new Map([...t].map(([p, n]) => [p, { ...n, chunks: new Map(n.chunks) }]));
export const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/')) || '/';
/** `p` is `root` or below it. */
export const within = (p: string, root: string): boolean => p === root || p.startsWith(root + '/');

/** node id -> [path, node]. */
export function byId(t: Tree): Map<number, readonly [string, ModelNode]> {
  return new Map([...t].map(([p, n]) => [n.id, [p, n] as const]));
}

export function sameTree(a: Tree, b: Tree): boolean {
  if (a.size !== b.size) return false;
  for (const [p, n] of a) {
    const m = b.get(p);
    if (!m || m.id !== n.id || m.meta !== n.meta || m.chunks.size !== n.chunks.size) return false;
    for (const [c, [, id]] of n.chunks) if (m.chunks.get(c)?.[1] !== id) return false;
  }
  return true;
}

/** What a reader of a model tree sees: node path to group, or to array values (fill 0) and attribute. */
export function listTree(t: Tree): TreeListing {
  const out: TreeListing = {};
  for (const p of [...t.keys()].sort()) {
    const n = t.get(p)!;
    const node = n.kind === 'group'
      ? 'group'
      : Array.from({ length: HISTORY_ARRAY.chunks * HISTORY_ARRAY.chunkLength }, (_, i) => n.chunks.get(Math.floor(i / HISTORY_ARRAY.chunkLength))?.[0] ?? 0);
    out[p] = n.attr === undefined ? node : { attr: n.attr, node };
  }
  return out;
}
