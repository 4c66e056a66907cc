// Reading HTTP answers, shared by the backend's requests and its listing: bodies read within a
// bound, failures as typed errors (401/403 UNAUTHORIZED, 408/429/5xx transient with Retry-After),
// version tokens and sizes from headers.
import { floeError, type FloeError } from '../../errors.ts';
import { joinBytes } from '../../format/bytes.ts';

/** What the listing needs of the requests: sending one request, under a deadline, classified. */
export interface HttpSender {
  send(url: URL, method: 'GET' | 'HEAD', headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Response>;
  withRequest<T>(key: string, caller: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** An answer's version token: its ETag, else its Last-Modified (python's http.server sends no ETag). */
export function versionOf(response: Response): string {
  const etag = response.headers.get('etag');
  if (etag) return etag;
  const modified = response.headers.get('last-modified');
  return modified ? `last-modified:${modified}` : '';
}

/** Retry-After (seconds or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d{1,9}\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Drops a response's body (freeing its connection) and returns `value`. */
export async function discard<T>(response: Response, value: T): Promise<T> {
  try {
    await response.body?.cancel();
  } catch {
    // the body was already consumed or its stream failed: nothing more to free
  }
  return value;
}

export function lengthOf(response: Response): number | undefined {
  const text = response.headers.get('content-length');
  if (text === null || !/^\d{1,16}$/.test(text) || response.headers.get('content-encoding')) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function lastModifiedOf(response: Response): Date {
  const text = response.headers.get('last-modified');
  const ms = text ? Date.parse(text) : NaN;
  return new Date(Number.isNaN(ms) ? 0 : ms);
}

/**
 * Reads a body of at most `limit` bytes: refused from its Content-Length before reading, or as
 * soon as the stream passes the limit (a server that sends more than it said, or than asked).
 * `tooLarge` makes the error instead, given the declared length, or Infinity when an undeclared
 * body ran past the limit (a caller's own bound, not a protocol fault: LIMIT_EXCEEDED).
 */
export async function readBody(response: Response, limit: number, key: string, tooLarge?: (size: number) => FloeError): Promise<Uint8Array> {
  const declared = lengthOf(response);
  if (declared !== undefined && declared > limit) {
    await discard(response, null);
    throw tooLarge?.(declared) ?? tooLong(response, limit, key, `declares ${declared} bytes`);
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge?.(Infinity) ?? tooLong(response, limit, key, `sent more than ${limit} bytes`);
    }
    parts.push(value);
  }
  return parts.length === 1 ? (parts[0] as Uint8Array) : joinBytes(parts, length);
}

function tooLong(response: Response, limit: number, key: string, what: string): FloeError {
  return floeError('STORAGE_ERROR', `${response.url || key}: the answer ${what}, more than the ${limit} expected; refusing it`, { where: key, details: { status: response.status, reason: 'http-range-mismatch' } });
}

/** A failed answer as a typed error: 401/403 UNAUTHORIZED, 408/429/5xx transient (with Retry-After). */
export async function failure(response: Response, key: string, method: string, nowMs: number): Promise<FloeError> {
  await discard(response, null);
  const status = response.status;
  const url = response.url || key;
  if (status === 401) {
    return floeError('UNAUTHORIZED', `${method} ${url}: the server asks for credentials (401); pass a header with them (options.headers, or FLOE_HTTP_HEADERS / FLOE_HTTP_TOKEN for the CLI)`, { where: key, details: { reason: 'http-unauthorized', status } });
  }
  if (status === 403) {
    return floeError('UNAUTHORIZED', `${method} ${url}: the server refused access (403): the credentials sent are not allowed here, or none were sent (a bucket also answers 403 for a missing key when its listing is private)`, { where: key, details: { reason: 'http-forbidden', status } });
  }
  const message = `${method} ${url} failed: HTTP ${status} ${response.statusText}`.trim();
  if (status === 408 || status === 429 || status >= 500) {
    const after = retryAfterMs(response.headers.get('retry-after'), nowMs);
    return floeError('STORAGE_ERROR', message, { where: key, details: { transient: true, status, ...(after !== undefined ? { retryAfterMs: after } : {}) } });
  }
  return floeError('STORAGE_ERROR', message, { where: key, details: { status } });
}
