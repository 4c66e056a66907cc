// The precondition check every backend applies to a write, and the error it throws, so that the
// meaning of `ifMatch` / `ifNoneMatch` is decided in one place.
import { floeError } from '../../errors.ts';
import type { PutOptions, VersionToken } from './types.ts';

/** Throws INVALID_ARGUMENT for contradictory or malformed conditions. */
export function validatePutOptions(options: PutOptions | undefined, key: string): void {
  if (!options) return;
  if (options.ifNoneMatch !== undefined && options.ifNoneMatch !== '*') {
    throw floeError('INVALID_ARGUMENT', `ifNoneMatch must be '*', got ${JSON.stringify(options.ifNoneMatch)}`, { where: key });
  }
  if (options.ifMatch !== undefined && (typeof options.ifMatch !== 'string' || options.ifMatch === '')) {
    throw floeError('INVALID_ARGUMENT', 'ifMatch must be a non-empty version token', { where: key });
  }
  if (options.ifMatch !== undefined && options.ifNoneMatch !== undefined) {
    throw floeError('INVALID_ARGUMENT', 'ifMatch and ifNoneMatch cannot be combined', { where: key });
  }
}

export function preconditionFailed(key: string, why: string, cause?: unknown): Error {
  return floeError(
    'PRECONDITION_FAILED',
    `conditional write of ${JSON.stringify(key)} not applied: ${why}; re-read the object and decide again`,
    { where: key, cause },
  );
}

/**
 * Throws PRECONDITION_FAILED unless a write with `options` may replace an object whose current
 * version is `current` (undefined when the key does not exist).
 */
export function checkPrecondition(key: string, current: VersionToken | undefined, options: PutOptions | undefined): void {
  if (options?.ifNoneMatch === '*' && current !== undefined) {
    throw preconditionFailed(key, 'the object already exists (ifNoneMatch: *)');
  }
  if (options?.ifMatch !== undefined) {
    if (current === undefined) throw preconditionFailed(key, 'the object does not exist (ifMatch)');
    if (current !== options.ifMatch) throw preconditionFailed(key, 'its version changed (ifMatch)');
  }
}
