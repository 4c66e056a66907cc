// Byte-range checks and resolution shared by backends, so every backend answers the same range
// the same way: ranges are clamped to the object (a range past the end gives empty bytes, a suffix
// longer than the object gives all of it), and malformed numbers are refused up front.
import { floeError } from '../../errors.ts';
import type { ByteRange } from './types.ts';

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** Throws INVALID_ARGUMENT unless the range holds non-negative safe integers. */
export function validateRange(range: ByteRange, where?: string): void {
  const ok =
    'suffixLength' in range
      ? isCount(range.suffixLength)
      : isCount(range.offset) && (range.length === undefined || isCount(range.length));
  if (!ok) {
    throw floeError(
      'INVALID_ARGUMENT',
      `invalid byte range ${JSON.stringify(range)}: offset, length and suffixLength must be non-negative integers`,
      where ? { where } : {},
    );
  }
}

/** The half-open interval [start, end) a range selects in an object of `size` bytes. */
export function resolveRange(range: ByteRange | undefined, size: number): { start: number; end: number } {
  if (range === undefined) return { start: 0, end: size };
  if ('suffixLength' in range) return { start: Math.max(0, size - range.suffixLength), end: size };
  const start = Math.min(range.offset, size);
  const end = range.length === undefined ? size : Math.min(size, range.offset + range.length);
  return { start, end: Math.max(start, end) };
}
