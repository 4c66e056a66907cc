// Checked indexing (issue 16, noUncheckedIndexedAccess). Per-dimension lists of one array (shape,
// chunk shape, strides, projections, chunk coordinates) all have its rank as length; code that
// walks two of them together goes through zipMap / zipEvery / dot, which check the lengths and
// each element read instead of a non-null assertion on `b[d]` at each use. They run per chunk on
// read paths, mostly before V8 optimises them, so they are indexed loops: a for..of there
// allocates an iterator and a result object per element.
import { floeError, type ErrorCode, type FloeError } from '../errors.ts';

function rankMismatch(a: number, b: number): FloeError<'INVALID_ARGUMENT'> {
  return floeError('INVALID_ARGUMENT', `per-dimension lists of different lengths: ${a} and ${b} (a selection or shape of the wrong rank)`);
}

/** `[f(a[0], b[0], 0), f(a[1], b[1], 1), …]`; INVALID_ARGUMENT when `a` and `b` differ in length. */
export function zipMap<A, B, R>(a: readonly A[], b: readonly B[], f: (x: A, y: B, i: number) => R): R[] {
  if (a.length !== b.length) throw rankMismatch(a.length, b.length);
  const out: R[] = [];
  // `a[i] as A`: i < a.length, so this is the element for..of would give (a hole reads undefined).
  for (let i = 0; i < a.length; i++) out.push(f(a[i] as A, pairedAt(b, i, a.length), i));
  return out;
}

/** `b[i]` for an i below the checked common length; a hole or a shrunk `b` is a rank mismatch. */
function pairedAt<B>(b: readonly B[], i: number, length: number): B {
  const y = b[i];
  // `undefined` is a valid element when B allows it: only a missing index is an error.
  if (y === undefined && !(i in b)) throw rankMismatch(length, b.length);
  return y as B;
}

/** Whether `f(a[d], b[d], d)` holds for every d; INVALID_ARGUMENT when the lengths differ. */
export function zipEvery<A, B>(a: readonly A[], b: readonly B[], f: (x: A, y: B, i: number) => boolean): boolean {
  if (a.length !== b.length) throw rankMismatch(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!f(a[i] as A, pairedAt(b, i, a.length), i)) return false;
  return true;
}

/** `Σ a[d] * b[d]` (a flat offset from coordinates and strides); INVALID_ARGUMENT when the lengths differ. */
export function dot(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw rankMismatch(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += pairedAt(a, i, a.length) * pairedAt(b, i, a.length);
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
