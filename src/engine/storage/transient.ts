// Which failures are worth retrying. Backends mark a STORAGE_ERROR as transient (network reset,
// throttling, 5xx on an idempotent call) in its details; TIMEOUT is transient too. A failed
// precondition never is: retrying it would only fail again or, worse, overwrite a newer version.
import { floeError, isFloeError, type FloeError } from '../../errors.ts';

export function transientError(message: string, where: string, cause: unknown): FloeError {
  return floeError('STORAGE_ERROR', message, { where, cause, details: { transient: true } });
}

/**
 * Whether a failure is worth retrying: a `TIMEOUT`, or a `STORAGE_ERROR` the backend marked
 * transient (network reset, throttling, 5xx). A failed precondition never is.
 */
export function isTransientError(err: unknown): boolean {
  if (isFloeError(err, 'TIMEOUT')) return true;
  return isFloeError(err, 'STORAGE_ERROR') && err.details.transient === true;
}
