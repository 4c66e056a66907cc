// The HTTP backend's requests (http.ts has the public class and the header notes): GET and HEAD
// with checked ranges, bounded bodies, ETag revalidation of mutable objects, redirects that keep
// headers on their own origin, and typed failures. Listing is http-listing.ts (with its XML parser).
import { floeError, isFloeError } from '../../errors.ts';
import { abortedError, throwIfAborted } from '../abort.ts';
import { discard, failure, lastModifiedOf, lengthOf, readBody, versionOf, type HttpSender } from './http-answers.ts';
import type { HttpStorageOptions, LinkEstimate } from './http-options.ts';
import { systemClock, type Clock } from './clock.ts';
import {
  byterangesBoundary, expectedInterval, parseByteranges, parseContentRange, partialAnswerMatches, rangeHeader, rangeLengthBound, rangesCovered, unsatisfiedTotal, type RangePart,
} from './http-ranges.ts';
import type { HttpListing } from './http-listing.ts';
import type { MultiRangeResult } from './range-batching.ts';
import { validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
import { checkObjectSize, objectBound, objectTooLarge } from './object-bound.ts';
import { validateRange } from './ranges.ts';
import { transientError } from './transient.ts';
import type { AbortOptions, ByteRange, ObjectGetOptions, GetResult, ListDirResult, ListOptions, ObjectInfo } from './types.ts';

/** Largest object read whole (a 200 answer), unless a range bounds it. */
const MAX_OBJECT_BYTES = 2 ** 31 - 1;
/** Mutable objects kept for revalidation: the repo info file and a few refs. */
const MAX_REVALIDATED = 64;
/** Bodies shorter than this say more about latency than about the link's rate. */
const MIN_RATE_SAMPLE_BYTES = 8 * 1024;
/** Weight of a new sample in the link estimate. */
const SMOOTHING = 0.2;

const defaultMutable = (key: string): boolean => key === 'repo' || key === 'config.yaml' || key.startsWith('refs/');

const smoothed = (previous: number | undefined, sample: number): number => (previous === undefined ? sample : previous + SMOOTHING * (sample - previous));

function defaultWarning(message: string): void {
  const processLike = (globalThis as { process?: { emitWarning?: (m: string, o: { code: string }) => void } }).process;
  if (processLike?.emitWarning) processLike.emitWarning(message, { code: 'FLOE_HTTP_RANGE_IGNORED' });
  else console.warn(message);
}

interface Revalidated {
  readonly etag: string;
  readonly bytes: Uint8Array;
}

/** One request's signal: the caller's and the per-request deadline, and which of them fired. */
interface RequestSignal {
  readonly signal: AbortSignal;
  readonly caller: AbortSignal | undefined;
  readonly deadline: AbortSignal;
}

/** The requests of one {@link HttpStorage}, loaded with its first call. */
export class HttpRequests implements HttpSender {
  private readonly base: URL;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly isMutable: (key: string) => boolean;
  private readonly clock: Clock;
  private readonly revalidated = new Map<string, Revalidated>();
  private warnedRangeIgnored = false;
  /** Set once the host answered a multi-range request with anything but the parts asked for. */
  private multiRangeRefused = false;
  private roundTripMs: number | undefined;
  private bytesPerMs: number | undefined;
  private listing: Promise<HttpListing> | undefined;

  constructor(
    url: string,
    private readonly options: HttpStorageOptions,
  ) {
    this.base = new URL(url);
    this.headers = options.headers ?? {};
    this.fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.isMutable = options.isMutable ?? defaultMutable;
    this.clock = options.clock ?? systemClock;
  }

  /** The URL of a key: each segment percent-encoded under the base. */
  urlOf(key: string): URL {
    return new URL(key.split('/').map(encodeURIComponent).join('/'), this.base);
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    const caller = options?.signal;
    throwIfAborted(caller, key);
    validateKey(key);
    if (range) validateRange(range, key);
    if (range && rangeLengthBound(range) === 0) {
      // HTTP cannot ask for zero bytes ('bytes=-0' is refused or ignored): the object's existence is the answer.
      const info = await this.head(key, options);
      return info ? { bytes: new Uint8Array(0), version: info.version ?? '' } : null;
    }
    const cached = !range && this.isMutable(key) ? this.revalidated.get(key) : undefined;
    const headers: Record<string, string> = {};
    if (range) {
      headers.range = rangeHeader(range);
      headers['accept-encoding'] = 'identity'; // a compressed partial answer is not the object's bytes
    }
    if (cached) headers['if-none-match'] = cached.etag;
    return this.withRequest(key, caller, async (signal) => {
      const started = performance.now();
      const response = await this.send(this.urlOf(key), 'GET', headers, signal, this.isMutable(key));
      const answered = performance.now();
      this.roundTripMs = smoothed(this.roundTripMs, answered - started);
      if (response.status === 206 && range) return this.measured(answered, await this.partial(key, range, response));
      if (response.status === 404 || response.status === 410) return discard(response, null);
      if (response.status === 304 && cached) {
        checkObjectSize(key, cached.bytes.length, range, options);
        return discard(response, { bytes: cached.bytes, version: cached.etag });
      }
      if (response.status === 416 && range) return this.unsatisfied(key, range, response, options);
      if (response.status === 200) return this.measured(answered, await this.whole(key, range, response, cached !== undefined || this.isMutable(key), objectBound(range, options)));
      throw await failure(response, key, 'GET', this.clock.nowMs());
    });
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    const caller = options?.signal;
    throwIfAborted(caller, key);
    validateKey(key);
    return this.withRequest(key, caller, async (signal) => {
      const response = await this.send(this.urlOf(key), 'HEAD', {}, signal, this.isMutable(key));
      if (response.status === 404 || response.status === 410) return discard(response, null);
      if (response.status !== 200) throw await failure(response, key, 'HEAD', this.clock.nowMs());
      const length = lengthOf(response);
      const info = (size: number): ObjectInfo => ({ key, size, lastModified: lastModifiedOf(response), version: versionOf(response) });
      if (length !== undefined) return discard(response, info(length));
      // No Content-Length (a compressing server): a one-byte range tells the size in Content-Range.
      await discard(response, null);
      const size = await this.sizeByRange(key, signal);
      return size === null ? null : info(size);
    });
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    validatePrefix(prefix);
    yield* (await this.listingOf()).list(prefix, options);
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    validateDirPrefix(prefix);
    return (await this.listingOf()).listDir(prefix, options);
  }

  /** Whether multi-range requests are worth sending: true until the host shows it does not honour them. */
  get multiRange(): boolean {
    return !this.multiRangeRefused;
  }

  /**
   * Several ranges of one object in one request (`Range: bytes=a-b,c-d`, answered as
   * multipart/byteranges): each part is checked as a single range is, and each wanted range must
   * lie inside one part. A host that answers otherwise (one range, the whole object) is noted and
   * asked one range at a time from then on; what it did send is still used when it covers a range.
   * `null` when the object does not exist.
   */
  async getRanges(key: string, wanted: readonly { offset: number; length: number }[], options?: AbortOptions): Promise<MultiRangeResult | null> {
    const caller = options?.signal;
    throwIfAborted(caller, key);
    validateKey(key);
    const header = `bytes=${wanted.map((w) => `${w.offset}-${w.offset + w.length - 1}`).join(',')}`;
    const bound = wanted.reduce((sum, w) => sum + w.length, 0) + 512 * wanted.length + 4096;
    let version = '';
    const parts = await this.withRequest(key, caller, async (signal): Promise<RangePart[] | null | 'refused'> => {
      const response = await this.send(this.urlOf(key), 'GET', { range: header, 'accept-encoding': 'identity' }, signal);
      version = versionOf(response);
      if (response.status === 404 || response.status === 410) return discard(response, null);
      if (response.status === 416) return discard(response, 'refused');
      if (response.status === 200) {
        // The whole object: every range is in it (a host that ignores multi-range requests).
        const whole = await readBody(response, MAX_OBJECT_BYTES, key);
        return [{ start: 0, end: whole.length - 1, total: whole.length, bytes: whole }];
      }
      if (response.status !== 206) throw await failure(response, key, 'GET', this.clock.nowMs());
      if (response.headers.get('content-encoding')) return discard(response, 'refused');
      const boundary = byterangesBoundary(response.headers.get('content-type'));
      const body = await readBody(response, bound, key);
      if (boundary) return parseByteranges(body, boundary) ?? 'refused';
      const single = parseContentRange(response.headers.get('content-range'));
      return single && single.total !== null && body.length === single.end - single.start + 1 ? [{ ...single, bytes: body }] : 'refused';
    });
    if (parts === null) return null;
    const covered = parts === 'refused' ? undefined : rangesCovered(wanted, parts);
    const whole = parts !== 'refused' && parts.length === 1 && wanted.length > 1 && parts[0]!.start === 0 && parts[0]!.end + 1 === parts[0]!.total;
    // Not the parts asked for, or the whole object: ask one range at a time from now on.
    if (!covered || whole) this.multiRangeRefused = true;
    if (covered) return { bytes: covered, version };
    const one = await Promise.all(wanted.map((w) => this.get(key, w, options)));
    return one.some((r) => r === null) ? null : { bytes: one.map((r) => r!.bytes), version: one[0]!.version };
  }

  /** The link as measured so far; undefined before the first answer with a sizeable body. */
  linkEstimate(): LinkEstimate | undefined {
    return this.roundTripMs === undefined || this.bytesPerMs === undefined ? undefined : { roundTripMs: this.roundTripMs, bytesPerMs: this.bytesPerMs };
  }

  /** Records how fast a body arrived (from its headers to its end), for sizeable bodies. */
  private measured(answered: number, result: GetResult): GetResult {
    const ms = performance.now() - answered;
    // At least a millisecond: a body that came with its headers gives a lower bound, not infinity.
    if (result.bytes.length >= MIN_RATE_SAMPLE_BYTES) this.bytesPerMs = smoothed(this.bytesPerMs, result.bytes.length / Math.max(ms, 1));
    return result;
  }

  /** Sends one request, following redirects by hand so headers stay on the storage's own origin. */
  async send(url: URL, method: 'GET' | 'HEAD', headers: Readonly<Record<string, string>>, signal: AbortSignal, mutable = false): Promise<Response> {
    let target = url;
    for (let hop = 0; ; hop++) {
      const own = target.origin === this.base.origin;
      const response = await this.fetchFn(target, {
        method,
        headers: own ? { ...this.headers, ...headers } : headers,
        redirect: 'manual',
        signal,
        // A browser's HTTP cache may hold an old repo info file: revalidate mutable objects always.
        ...(mutable ? { cache: 'no-cache' as const } : {}),
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || response.status === 304 || !location) return response;
      await discard(response, null);
      if (hop >= this.maxRedirects) {
        throw floeError('STORAGE_ERROR', `${method} ${target.href} redirected more than ${this.maxRedirects} times`, { where: url.href, details: { status: response.status } });
      }
      target = new URL(location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw floeError('STORAGE_ERROR', `${method} ${url.href} redirected to a ${target.protocol} URL; only http and https are followed`, { where: url.href, details: { status: response.status } });
      }
    }
  }

  /** Runs one request under the caller's signal and the per-request deadline, classifying what fails. */
  async withRequest<T>(key: string, caller: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const request: RequestSignal = { signal: caller ? AbortSignal.any([caller, deadline]) : deadline, caller, deadline };
    try {
      return await run(request.signal);
    } catch (err) {
      throw this.networkFailure(err, key, request);
    }
  }

  private networkFailure(err: unknown, key: string, request: RequestSignal): unknown {
    if (request.caller?.aborted) return abortedError(request.caller, key);
    if (request.deadline.aborted) return floeError('TIMEOUT', `HTTP request for ${this.urlOf(key).href} took longer than ${this.timeoutMs} ms`, { where: key, cause: err });
    if (isFloeError(err)) return err;
    const text = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
    return transientError(`HTTP request for ${this.urlOf(key).href} failed: ${text}`, key, err);
  }

  /** A 200 answer: the whole object, sliced when a range was asked for. */
  private async whole(key: string, range: ByteRange | undefined, response: Response, mutable: boolean, maxBytes?: number): Promise<GetResult> {
    const version = versionOf(response);
    if (range && this.options.rangeIgnored === 'refuse') {
      await discard(response, null);
      throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: the server ignored the Range header and sent the whole object (200); it cannot serve ranged reads (Zarr shards, packed chunks), so use a server that honours Range, or rangeIgnored: 'slice'`, { where: key, details: { status: 200, reason: 'http-range-ignored' } });
    }
    const bytes = maxBytes !== undefined && maxBytes < MAX_OBJECT_BYTES
      ? await readBody(response, maxBytes, key, (size) => objectTooLarge(key, size, maxBytes))
      : await readBody(response, MAX_OBJECT_BYTES, key);
    if (range) {
      this.warnRangeIgnored(key);
      const { start, end } = expectedInterval(range, bytes.length);
      return { bytes: bytes.subarray(start, end), version };
    }
    if (mutable && response.headers.get('etag')) this.remember(key, version, bytes);
    return { bytes, version };
  }

  /** A 206 answer: used only when its Content-Range is exactly the range asked for. */
  private async partial(key: string, range: ByteRange, response: Response): Promise<GetResult> {
    const encoding = response.headers.get('content-encoding');
    if (encoding && encoding.toLowerCase() !== 'identity') {
      await discard(response, null);
      throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: the server compressed a partial answer (Content-Encoding: ${encoding}), so its bytes are not the object's; turn compression off for these files (nginx: gzip off, or only for text types)`, { where: key, details: { status: 206, reason: 'http-encoded-range' } });
    }
    const answered = parseContentRange(response.headers.get('content-range'));
    const bound = answered ? answered.end - answered.start + 1 : (rangeLengthBound(range) ?? MAX_OBJECT_BYTES);
    const bytes = answered ? await readBody(response, bound, key) : await discard(response, new Uint8Array(0));
    if (!answered || !partialAnswerMatches(range, answered, bytes.length)) {
      throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: asked for ${rangeHeader(range)}, the server answered Content-Range ${JSON.stringify(response.headers.get('content-range'))} with ${bytes.length} bytes; refusing bytes that are not the range asked for`, { where: key, details: { status: 206, reason: 'http-range-mismatch' } });
    }
    return { bytes, version: versionOf(response) };
  }

  /** A 416: an offset at or past the end reads as empty bytes, as every backend answers it. */
  private async unsatisfied(key: string, range: ByteRange, response: Response, options: AbortOptions | undefined): Promise<GetResult> {
    const total = unsatisfiedTotal(response.headers.get('content-range'));
    const version = versionOf(response);
    await discard(response, null);
    const past = 'offset' in range && (total === undefined || range.offset >= total);
    if (!past && !('suffixLength' in range && total === 0)) {
      throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: the server refused ${rangeHeader(range)} (416) for an object of ${total ?? 'unknown'} bytes`, { where: key, details: { status: 416, reason: 'http-range-mismatch' } });
    }
    if (version) return { bytes: new Uint8Array(0), version };
    const info = await this.head(key, options);
    if (!info) throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: answered 416, then 404`, { where: key, details: { status: 416, transient: true } });
    return { bytes: new Uint8Array(0), version: info.version ?? '' };
  }

  /** An object's size from a one-byte ranged GET; null when it is gone. */
  private async sizeByRange(key: string, signal: AbortSignal): Promise<number | null> {
    const response = await this.send(this.urlOf(key), 'GET', { range: 'bytes=0-0', 'accept-encoding': 'identity' }, signal);
    if (response.status === 404 || response.status === 410) return discard(response, null);
    if (response.status === 200) return (await readBody(response, MAX_OBJECT_BYTES, key)).length;
    const header = response.headers.get('content-range');
    const total = response.status === 206 ? parseContentRange(header)?.total : response.status === 416 ? unsatisfiedTotal(header) : undefined;
    if (total === undefined || total === null) {
      if (response.status !== 206 && response.status !== 416) throw await failure(response, key, 'GET', this.clock.nowMs());
      await discard(response, null);
      throw floeError('STORAGE_ERROR', `${this.urlOf(key).href}: neither Content-Length nor Content-Range tells the object's size`, { where: key, details: { status: response.status, reason: 'http-range-mismatch' } });
    }
    return discard(response, total);
  }

  private remember(key: string, etag: string, bytes: Uint8Array): void {
    if (this.revalidated.size >= MAX_REVALIDATED && !this.revalidated.has(key)) this.revalidated.clear();
    this.revalidated.set(key, { etag, bytes });
  }

  private warnRangeIgnored(key: string): void {
    if (this.warnedRangeIgnored) return;
    this.warnedRangeIgnored = true;
    (this.options.onWarning ?? defaultWarning)(
      `Floe: the HTTP server at ${this.base.origin} ignores Range requests (it sent all of ${this.urlOf(key).pathname} for a part of it); Floe takes the part it needs, but every ranged read downloads the whole object. Serve the data from a server that honours Range (nginx, a bucket, floe serve).`,
    );
  }

  private listingOf(): Promise<HttpListing> {
    return (this.listing ??= import('./http-listing.ts').then((m) => new m.HttpListing(this, this.clock, this.base, this.options.listing ?? 'auto')));
  }
}

