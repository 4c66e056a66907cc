// Classifies what the AWS SDK throws into Floe errors, in one place for every S3 call.
import { floeError, isFloeError } from '../../errors.ts';
import { abortedError } from '../abort.ts';
import { transientError } from './transient.ts';

interface SdkErrorShape {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

export function httpStatusOf(err: unknown): number | undefined {
  return (err as SdkErrorShape | null)?.$metadata?.httpStatusCode;
}

export function isNotFound(err: unknown): boolean {
  const status = httpStatusOf(err);
  const name = (err as SdkErrorShape | null)?.name;
  return status === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

export function isPreconditionFailed(err: unknown): boolean {
  return httpStatusOf(err) === 412 || (err as SdkErrorShape | null)?.name === 'PreconditionFailed';
}

export function isInvalidRange(err: unknown): boolean {
  return httpStatusOf(err) === 416 || (err as SdkErrorShape | null)?.name === 'InvalidRange';
}

/**
 * A conditional write whose outcome is unknown: 409 (a concurrent conditional request), any 5xx
 * (Ceph answers losers of an If-Match race with 500), or no HTTP answer at all.
 */
export function isAmbiguousWriteFailure(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status === undefined || status === 409 || status >= 500;
}

function isTransient(err: unknown): boolean {
  const status = httpStatusOf(err);
  const name = (err as SdkErrorShape | null)?.name ?? '';
  if (status === undefined) return true; // connection reset, DNS, socket timeout
  if (status >= 500 || status === 429 || status === 408) return true;
  return /SlowDown|Throttl|RequestTimeout/.test(name);
}

/**
 * Wraps an SDK failure as STORAGE_ERROR (transient when a retry may help) or TIMEOUT; as ABORTED
 * when the caller's `signal` fired (the SDK then fails with its own AbortError).
 */
export function storageFailure(operation: string, where: string, err: unknown, signal?: AbortSignal): Error {
  if (isFloeError(err)) return err;
  if (signal?.aborted) return abortedError(signal, where);
  const name = (err as SdkErrorShape | null)?.name ?? 'Error';
  const message = `S3 ${operation} failed: ${name} ${httpStatusOf(err) ?? ''} ${(err as Error)?.message ?? ''}`.trim();
  if (name === 'AbortError' || name === 'TimeoutError') return floeError('TIMEOUT', message, { where, cause: err });
  if (isTransient(err)) return transientError(message, where, err);
  return floeError('STORAGE_ERROR', message, { where, cause: err });
}
