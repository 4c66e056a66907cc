// Element access for codec code compiled with noUncheckedIndexedAccess. Where the index comes
// from the bytes being decoded, out of range means the stored chunk is damaged (CORRUPT_OBJECT);
// where it comes from a codec's configuration or the array spec, the caller passed shapes that
// do not fit (INVALID_ARGUMENT). Never a default value: a silent 0 would hide either.
// Hot byte loops do not call these (shared by every element type, their loads are polymorphic):
// they compare `src[i]` with undefined inline, read through a DataView (which checks its own
// range), or, in the few loops where neither measured free, keep a documented non-null assertion.
import { floeError } from '../../errors.ts';
import { corrupt } from './bytes-codec-support.ts';

/** `xs[i]` where the decoded bytes chose `i`: a CORRUPT_OBJECT error from `codec` when it is out of range. */
export function decodedAt<T>(xs: ArrayLike<T>, i: number, codec: string, what: string): T {
  const x = xs[i];
  if (x === undefined) throw corrupt(codec, `${what} (index ${i} of ${xs.length})`);
  return x;
}

/** `xs[i]` where a codec's configuration or the chunk spec chose `i`: INVALID_ARGUMENT when it is out of range. */
export function argumentAt<T>(xs: ArrayLike<T>, i: number, what: string): T {
  const x = xs[i];
  if (x === undefined) throw floeError('INVALID_ARGUMENT', `${what}: index ${i} is outside 0..${xs.length - 1}`);
  return x;
}
