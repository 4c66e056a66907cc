// Checked indexing (issue 16, noUncheckedIndexedAccess). Per-dimension lists of one array (shape,
// chunk shape, strides, projections, chunk coordinates) all have its rank as length; code that
// walks two of them together goes through zipMap / dot, which pair elements by iteration and throw
// when the ranks differ, instead of a non-null assertion on `b[d]` at each use.
import { floeError, type ErrorCode, type FloeError } from '../errors.ts';

function rankMismatch(a: number, b: number): FloeError<'INVALID_ARGUMENT'> {
  return floeError('INVALID_ARGUMENT', `per-dimension lists of different lengths: ${a} and ${b} (a selection or shape of the wrong rank)`);
}

/** `[f(a[0], b[0], 0), f(a[1], b[1], 1), …]`; INVALID_ARGUMENT when `a` and `b` differ in length. */
export function zipMap<A, B, R>(a: readonly A[], b: readonly B[], f: (x: A, y: B, i: number) => R): R[] {
  if (a.length !== b.length) throw rankMismatch(a.length, b.length);
  const out: R[] = [];
  const ys = b.values();
  for (const x of a) {
    const y = ys.next();
    if (y.done === true) throw rankMismatch(a.length, b.length);
    out.push(f(x, y.value, out.length));
  }
  return out;
}

/** Whether `f(a[d], b[d], d)` holds for every d; INVALID_ARGUMENT when the lengths differ. */
export function zipEvery<A, B>(a: readonly A[], b: readonly B[], f: (x: A, y: B, i: number) => boolean): boolean {
  if (a.length !== b.length) throw rankMismatch(a.length, b.length);
  let i = 0;
  const ys = b.values();
  for (const x of a) {
    const y = ys.next();
    if (y.done === true) throw rankMismatch(a.length, b.length);
    if (!f(x, y.value, i++)) return false;
  }
  return true;
}

/** `Σ a[d] * b[d]` (a flat offset from coordinates and strides); INVALID_ARGUMENT when the lengths differ. */
export function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  zipEvery(a, b, (x, y) => ((sum += x * y), true));
  return sum;
}

/**
 * `xs[i]`, or a FloeError of `code` when `i` is not an index of `xs`: for indices that input
 * decides (a caller's selection, a stored index), where out of range is an error to report.
 */
export function checkedAt<T>(xs: ArrayLike<T>, i: number, code: 'INVALID_ARGUMENT' | 'INVALID_SELECTION' | 'CORRUPT_OBJECT' | 'NOT_FOUND', message: string, where?: string): T {
  if (Number.isInteger(i) && i >= 0 && i < xs.length) {
    const x = xs[i];
    if (x !== undefined || i in (xs as object)) return x as T;
  }
  throw floeError(code as ErrorCode, `${message} (index ${i} of ${xs.length})`, where === undefined ? {} : { where });
}
