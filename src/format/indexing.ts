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
  if (item === undefined) throw floeError(code, `${what}: index ${i} is out of range [0, ${items.length})`, { where });
  return item;
}

/**
 * Lexicographic order of two number sequences (byte strings, code points, chunk indices): the
 * difference at the first position they differ, else shorter first. Only the sign is meaningful.
 */
export function compareSequences(x: Iterable<number>, y: ArrayLike<number>): number {
  let i = 0;
  for (const a of x) {
    const b = y[i++];
    // y ran out first: it is a proper prefix of x, which sorts after it.
    if (b === undefined) return 1;
    if (a !== b) return a - b;
  }
  // x is a prefix of y: equal when as long, else first.
  return i - y.length;
}
