// The snapshot list of a repo info file as an index. The file already is one: its snapshots are
// sorted by id (raw bytes) and each names its parent by position. The index keeps that shape —
// the list in id order, the ids as 32-bit words for a binary search without allocating, and
// each parent as a position — so a lookup costs ~17 word comparisons at 10^5 snapshots and an
// ancestry step one array read, where a linear search made every step O(n).
//
// One index per snapshot list, cached in a WeakMap keyed by the array (a RepoInfo and its spread
// copies share the array, so the index lives as long as the object it describes). It is built
// once: by the decoder from the file's own parent positions, by `appendSnapshot` from the
// previous list's index with typed-array copies (a commit), or from scratch on first use.
//
// It answers exactly what a linear search of the list would (the property tests hold it to that):
// with equal ids the first in list order wins, a parent not in the list ends a walk, and a walk
// that meets a snapshot twice (a damaged file's loop) stops there.
import { floeError } from '../../errors.ts';
import { ID12_LENGTH, type SnapshotId } from './ids.ts';

/** What the index needs of a snapshot entry. */
export interface HistoryNode {
  readonly id: SnapshotId;
  readonly parentId: SnapshotId | null;
}

/** `parentPosition` of a root. */
export const NO_PARENT = -1;
/** `parentPosition` of a snapshot whose parent id is not in the list. */
export const MISSING_PARENT = -2;

const WORDS = 3; // 12 bytes as three big-endian u32: word order is byte order

function wordsOf(id: Uint8Array, into: Uint32Array, at: number): void {
  if (id.length !== ID12_LENGTH) throw floeError('INVALID_ARGUMENT', `a snapshot id is ${ID12_LENGTH} bytes, got ${id.length}`);
  for (let w = 0; w < WORDS; w++) {
    let word = 0;
    for (let i = w * 4; i < w * 4 + 4; i++) word = (word << 8) | (id[i] ?? 0);
    into[at + w] = word >>> 0;
  }
}

/** Order of entry `a` of `keys` against entry `b` of `other` (sign only). */
function compareKeys(keys: Uint32Array, a: number, other: Uint32Array, b: number): number {
  for (let w = 0; w < WORDS; w++) {
    const x = keys[a * WORDS + w] ?? 0;
    const y = other[b * WORDS + w] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function keyOf(id: Uint8Array): Uint32Array {
  const words = new Uint32Array(WORDS);
  wordsOf(id, words, 0);
  return words;
}

export class HistoryIndex<T extends HistoryNode> {
  private constructor(
    /** The snapshots in id order; equal ids keep their list order. */
    readonly sorted: readonly T[],
    /** `WORDS` words per position. */
    private readonly keys: Uint32Array,
    /** Parent position per position, or NO_PARENT / MISSING_PARENT. */
    private readonly parents: Int32Array,
    /** Some parent links form a loop: walks then remember where they have been. */
    readonly cyclic: boolean,
    /** How many snapshots name a parent that is not in the list. */
    readonly missingParents: number,
  ) {}

  /** From any list: sorts (stably) and resolves every parent by binary search. O(n log n). */
  static build<T extends HistoryNode>(list: readonly T[]): HistoryIndex<T> {
    const n = list.length;
    const listKeys = new Uint32Array(n * WORDS);
    list.forEach((s, i) => wordsOf(s.id, listKeys, i * WORDS));
    const order = Array.from({ length: n }, (_, i) => i);
    if (!strictlyAscending(listKeys, n)) order.sort((a, b) => compareKeys(listKeys, a, listKeys, b) || a - b);
    const keys = new Uint32Array(n * WORDS);
    const sorted = order.map((from, to) => {
      keys.set(listKeys.subarray(from * WORDS, from * WORDS + WORDS), to * WORDS);
      return entry(list, from);
    });
    // Parents are resolved by searching the sorted keys, before the parent column exists.
    const partial = new HistoryIndex(sorted, keys, new Int32Array(0), false, 0);
    const parents = new Int32Array(n);
    sorted.forEach((s, pos) => (parents[pos] = partial.parentPositionOf(s)));
    return HistoryIndex.finish(sorted, keys, parents);
  }

  /**
   * From a decoded file: `parentIndices` are the file's parent positions (-1 for none, each
   * already checked to be in range). When the list is strictly sorted, as every writer stores it,
   * those positions are the answer; otherwise this falls back to `build`.
   */
  static fromFile<T extends HistoryNode>(list: readonly T[], parentIndices: Int32Array): HistoryIndex<T> {
    const n = list.length;
    const keys = new Uint32Array(n * WORDS);
    list.forEach((s, i) => wordsOf(s.id, keys, i * WORDS));
    if (!strictlyAscending(keys, n) || parentIndices.length !== n) return HistoryIndex.build(list);
    return HistoryIndex.finish(list, keys, parentIndices.map((p) => (p < 0 ? NO_PARENT : p)));
  }

  private static finish<T extends HistoryNode>(sorted: readonly T[], keys: Uint32Array, parents: Int32Array): HistoryIndex<T> {
    const missing = parents.reduce((count, p) => count + (p === MISSING_PARENT ? 1 : 0), 0);
    return new HistoryIndex(sorted, keys, parents, hasLoop(parents), missing);
  }

  get size(): number {
    return this.sorted.length;
  }

  /** The position of the first snapshot (in list order) with this id, or -1. */
  positionOf(id: SnapshotId): number {
    return this.positionOfKey(keyOf(id));
  }

  private positionOfKey(key: Uint32Array): number {
    const n = this.size;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys, mid, key, 0) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < n && compareKeys(this.keys, lo, key, 0) === 0 ? lo : -1;
  }

  /** Where `node`'s parent is in this index: a position, NO_PARENT or MISSING_PARENT. */
  private parentPositionOf(node: HistoryNode): number {
    if (node.parentId === null) return NO_PARENT;
    const pos = this.positionOf(node.parentId);
    return pos < 0 ? MISSING_PARENT : pos;
  }

  find(id: SnapshotId): T | undefined {
    const pos = this.positionOf(id);
    return pos < 0 ? undefined : this.at(pos);
  }

  at(pos: number): T {
    return entry(this.sorted, pos);
  }

  /** The parent's position, NO_PARENT or MISSING_PARENT. */
  parentPosition(pos: number): number {
    const parent = this.parents[pos];
    if (parent === undefined) throw outOfRange(pos, this.size);
    return parent;
  }

  /** The snapshot `from` and its ancestors, newest first; empty when `from` is not listed. */
  *ancestry(from: SnapshotId): Generator<T> {
    for (const pos of this.ancestryPositions(this.positionOf(from))) yield this.at(pos);
  }

  /** Positions of the ancestry starting at position `start` (nothing when negative). */
  *ancestryPositions(start: number): Generator<number> {
    const seen = this.cyclic ? new Uint8Array(this.size) : undefined;
    for (let pos = start; pos >= 0; pos = this.parentPosition(pos)) {
      if (seen) {
        if (seen[pos]) return;
        seen[pos] = 1;
      }
      yield pos;
    }
  }

  /**
   * The index of `list` plus `added` at its end, derived in O(n) typed-array copies. Falls back
   * to a fresh build when the addition could change an existing answer: an id already listed, or
   * a list with dangling parents (the new id could be one of them).
   */
  appended(added: T): HistoryIndex<T> | undefined {
    const key = keyOf(added.id);
    if (this.missingParents > 0 || this.positionOfKey(key) >= 0) return undefined;
    const n = this.size;
    const at = insertionPoint(this.keys, n, key);
    const keys = new Uint32Array((n + 1) * WORDS);
    keys.set(this.keys.subarray(0, at * WORDS));
    keys.set(key, at * WORDS);
    keys.set(this.keys.subarray(at * WORDS), (at + 1) * WORDS);
    const shift = (p: number) => (p >= at ? p + 1 : p);
    const parents = new Int32Array(n + 1);
    for (let pos = 0; pos < n; pos++) parents[shift(pos)] = shift(this.parentPosition(pos));
    const parent = this.parentPositionOf(added);
    parents[at] = parent < 0 ? parent : shift(parent);
    // A new leaf closes no loop: nothing listed names it as a parent (no dangling parents).
    return new HistoryIndex(this.sorted.toSpliced(at, 0, added), keys, parents, this.cyclic, parent === MISSING_PARENT ? 1 : 0);
  }
}

/** Where `key` goes among `n` sorted keys (after any equal ones). */
function insertionPoint(keys: Uint32Array, n: number, key: Uint32Array): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys, mid, key, 0) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function strictlyAscending(keys: Uint32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (compareKeys(keys, i - 1, keys, i) >= 0) return false;
  return true;
}

/** Whether following parent links from some position comes back to a position on the same path. */
function hasLoop(parents: Int32Array): boolean {
  const UNSEEN = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Uint8Array(parents.length);
  const path: number[] = [];
  for (let start = 0; start < parents.length; start++) {
    let pos = start;
    while (pos >= 0 && state[pos] === UNSEEN) {
      state[pos] = ON_PATH;
      path.push(pos);
      pos = parents[pos] ?? NO_PARENT;
    }
    if (pos >= 0 && state[pos] === ON_PATH) return true;
    for (const p of path) state[p] = DONE;
    path.length = 0;
  }
  return false;
}

function entry<T>(items: readonly T[], pos: number): T {
  const item = items[pos];
  if (item === undefined) throw outOfRange(pos, items.length);
  return item;
}

function outOfRange(pos: number, size: number): Error {
  return floeError('INVALID_ARGUMENT', `snapshot position ${pos} is outside the history index of ${size} snapshots`);
}

const cache = new WeakMap<readonly HistoryNode[], HistoryIndex<HistoryNode>>();

/** The index of a snapshot list, built on first use and kept while the list lives. */
export function historyIndex<T extends HistoryNode>(list: readonly T[]): HistoryIndex<T> {
  const cached = cache.get(list);
  // The cache is keyed by the very array, so its index holds entries of that array's type.
  if (cached) return cached as HistoryIndex<T>;
  const built = HistoryIndex.build(list);
  cache.set(list, built);
  return built;
}

/** Records the index the decoder derived from the file's parent positions. */
export function indexDecodedList<T extends HistoryNode>(list: readonly T[], parentIndices: Int32Array): void {
  cache.set(list, HistoryIndex.fromFile(list, parentIndices));
}

/**
 * `list` with `added` at its end, as a new array whose index is derived from `list`'s rather
 * than rebuilt: what a commit does to the snapshot list, in time linear with small constants.
 */
export function appendSnapshot<T extends HistoryNode>(list: readonly T[], added: T): readonly T[] {
  const next = [...list, added];
  const derived = historyIndex(list).appended(added);
  if (derived) cache.set(next, derived);
  return next;
}
