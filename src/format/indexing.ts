// Checked indexing for the format layer. With `noUncheckedIndexedAccess` an index read is
// `T | undefined`; where the index comes from decoded bytes, a metadata document or a caller, it
// can be out of range, and the answer is a FloeError saying which, never a made-up default.
import { floeError } from '../errors.ts';

/**
 * The codes an index check throws; the code says where the index came from: bytes read from
 * storage (CORRUPT_OBJECT), a metadata document (INVALID_METADATA), or a caller (INVALID_ARGUMENT).
 */
export type IndexErrorCode = 'CORRUPT_OBJECT' | 'INVALID_METADATA' | 'INVALID_ARGUMENT';

/**
 * `items[i]`, or a FloeError of `code` when `i` is out of range. `what` names the sequence in
 * the message. Element types exclude `undefined`, so a miss can only mean out of range.
 */
export function checkedAt<T extends {} | null>(items: ArrayLike<T>, i: number, code: IndexErrorCode, what: string, where?: string): T {
  const item = items[i];
  if (item === undefined) throw outOfRange(code, what, i, items.length, where);
  return item;
}

// Kept out of the checks' bodies so that they stay small enough to inline in hot loops.
function outOfRange(code: IndexErrorCode, what: string, i: number, length: number, where?: string): Error {
  return floeError(code, `${what}: index ${i} is out of range [0, ${length})`, { where });
}

/**
 * Lexicographic order of two number sequences (byte strings, code points, chunk indices): the
 * difference at the first position they differ, else shorter first. Only the sign is meaningful.
 */
export function compareSequences(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const a = x[i];
    const b = y[i];
    // i < both lengths; only a sparse array can have no element there.
    if (a === undefined || b === undefined) throw outOfRange('INVALID_ARGUMENT', 'a compared sequence', i, a === undefined ? x.length : y.length);
    if (a !== b) return a - b;
  }
  return x.length - y.length;
}

/**
 * compareSequences for chunk indices (number lists). A separate function on purpose: the byte
 * sequences (ids, UTF-8 keys) and the index lists kept one shared comparator polymorphic, which
 * measured ~4% on a 20,000-chunk commit that sorts and checks its refs with it.
 */
export function compareIndexLists(x: readonly number[], y: readonly number[]): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const a = x[i];
    const b = y[i];
    if (a === undefined || b === undefined) throw outOfRange('INVALID_ARGUMENT', 'a compared chunk index', i, a === undefined ? x.length : y.length);
    if (a !== b) return a - b;
  }
  return x.length - y.length;
}

/**
 * The item of sorted `items` for which `compare` (the item's order relative to the target)
 * is 0, or undefined.
 */
export function binarySearch<T extends {} | null>(items: readonly T[], compare: (item: T) => number): T | undefined {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const item = items[mid];
    // 0 <= lo <= mid <= hi < length; only a sparse array can have no element there.
    if (item === undefined) throw outOfRange('INVALID_ARGUMENT', 'a searched array', mid, items.length);
    const d = compare(item);
    if (d === 0) return item;
    if (d < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
