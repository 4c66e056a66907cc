// The check behind ObjectGetOptions.maxBytes: a whole object larger than its reader can use (a chunk
// larger than any encoding of it) is refused, from the size a backend knows before reading where
// it can, so a hostile store cannot make a reader hold gigabytes it will refuse anyway.
import { limitExceeded } from '../../format/limits.ts';
import type { FloeError } from '../../errors.ts';
import type { ByteRange, ObjectGetOptions } from './types.ts';

/** The bound a read of `range` is under: only whole-object reads (no range) take one. */
export function objectBound(range: ByteRange | undefined, options: ObjectGetOptions | undefined): number | undefined {
  return range === undefined ? options?.maxBytes : undefined;
}

export function objectTooLarge(key: string, size: number, maxBytes: number): FloeError<'LIMIT_EXCEEDED'> {
  const what = Number.isFinite(size) ? `holds ${size} bytes` : `holds more than ${maxBytes} bytes`;
  return limitExceeded('encoded-bytes', maxBytes, `${key} ${what}, more than the ${maxBytes} its reader can use (a chunk larger than any encoding of it); the object is damaged or hostile, so it is not read`, {
    ...(Number.isFinite(size) ? { actual: size } : {}),
    where: key,
  });
}

/** Throws when a whole-object read of `size` bytes passes the caller's bound. */
export function checkObjectSize(key: string, size: number, range: ByteRange | undefined, options: ObjectGetOptions | undefined): void {
  const bound = objectBound(range, options);
  if (bound !== undefined && size > bound) throw objectTooLarge(key, size, bound);
}
