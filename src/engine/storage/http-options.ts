// The options of the HTTP backend and their checks, apart from the backend (http.ts) so its
// requests (http-requests.ts) can name them without an import cycle.
import { floeError } from '../../errors.ts';
import type { Clock } from './clock.ts';

/** Options of {@link HttpStorage}. */
export interface HttpStorageOptions {
  /** The base URL (`http://` or `https://`) under which each key is an object. */
  url: string;
  /**
   * Headers for every request under `url` (a bearer token for `floe serve --token`, a private
   * host's auth): never sent to a redirect outside `url`.
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * A server that answers a ranged request with the whole object (200): `'slice'` takes the
   * range from it, warning once per storage (correct, but every read downloads whole objects);
   * `'refuse'` fails with STORAGE_ERROR `http-range-ignored`. Default `'slice'`.
   */
  rangeIgnored?: 'slice' | 'refuse' | undefined;
  /** Receives the one-time warnings (default: `process.emitWarning`, or `console.warn` without it). */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * Object listing: `'auto'` looks for an S3-style XML listing (`?list-type=2`) at the host's root
   * (virtual-hosted buckets) and under the URL's first path segment (path-style); `'none'` never
   * lists; or the bucket's own URL and the key prefix of `url` inside it. Default `'auto'`.
   */
  listing?: 'auto' | 'none' | { bucketUrl: string; prefix: string } | undefined;
  /** Abort one HTTP request (its body included) after this long: TIMEOUT. Default 30 000 ms. */
  requestTimeoutMs?: number | undefined;
  /** Redirects followed per request. Default 5. */
  maxRedirects?: number | undefined;
  /**
   * Which keys hold objects that change (revalidated with If-None-Match and never taken from an
   * HTTP cache unchecked). Default: the repo info file `repo`, `config.yaml` and `refs/...`.
   */
  isMutable?: ((key: string) => boolean) | undefined;
  /** Reads the time for Retry-After dates. Default: the system clock. */
  clock?: Clock | undefined;
  /** The fetch to use (tests, a proxy agent). Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
}

/**
 * What a storage has measured of its link: the round trip to an answer's headers and the rate its
 * bodies arrive at, smoothed over recent requests. Range batching bridges a gap between two wanted
 * ranges when sending its bytes takes less time than a round trip.
 */
export interface LinkEstimate {
  readonly roundTripMs: number;
  readonly bytesPerMs: number;
}

/** The URL, checked: http or https, no credentials in it, no query or fragment; ends in '/'. */
export function httpBaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw floeError('INVALID_ARGUMENT', `HTTP storage needs an http:// or https:// URL, got ${JSON.stringify(url)}`, { cause: err });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw floeError('INVALID_ARGUMENT', `HTTP storage needs an http:// or https:// URL, got ${parsed.protocol} in ${JSON.stringify(url)}`);
  }
  if (parsed.username || parsed.password) {
    throw floeError('INVALID_ARGUMENT', `HTTP storage URLs cannot hold credentials (${parsed.host}); pass them as a header (options.headers, or FLOE_HTTP_HEADERS for the CLI)`);
  }
  if (parsed.search || parsed.hash) {
    throw floeError('INVALID_ARGUMENT', `HTTP storage URL ${JSON.stringify(url)} has a query or fragment; give the base URL the keys go under`);
  }
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Throws INVALID_ARGUMENT for a header or option HTTP storage cannot honour. */
export function validateHttpOptions(options: HttpStorageOptions): void {
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw floeError('INVALID_ARGUMENT', `HTTP storage header ${JSON.stringify(name)} is not a valid header name and value`);
    }
  }
  for (const name of ['requestTimeoutMs', 'maxRedirects'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= (name === 'maxRedirects' ? 0 : 1))) {
      throw floeError('INVALID_ARGUMENT', `HTTP storage option ${name} must be a ${name === 'maxRedirects' ? 'non-negative' : 'positive'} integer, got ${String(value)}`);
    }
  }
  if (options.rangeIgnored !== undefined && options.rangeIgnored !== 'slice' && options.rangeIgnored !== 'refuse') {
    throw floeError('INVALID_ARGUMENT', `HTTP storage option rangeIgnored must be 'slice' or 'refuse', got ${JSON.stringify(options.rangeIgnored)}`);
  }
}

