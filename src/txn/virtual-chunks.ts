// Reading virtual chunks: byte ranges of objects outside the repository. A location is served
// only by a virtual chunk container of the repository's config whose url prefix it starts with,
// and only if the caller authorized that container when opening the repository (the
// reference's `authorizeVirtualChunkAccess`). Local files (`file://`) and HTTP(S) are fetched
// here; other stores are refused with a clear error rather than read wrongly. Locations are
// matched on normalised URLs and whole path segments (virtual-urls.ts), and the normalised URL is
// the one requested, so a container's headers never reach a URL outside its prefix.
// A recorded checksum guards against stale data: HTTP reads send it as If-Match /
// If-Unmodified-Since and also check the ETag / Last-Modified the server answers with (a server
// may ignore conditional headers; the reference checks the response the same way); a local
// file's modification time is compared with a recorded last-modified time (an ETag recorded for
// a local file is not checked). A changed source is CHECKSUM_MISMATCH. HTTP redirects are
// refused: authorization covers the container's prefix, not wherever it points.
import type * as NodeFs from 'node:fs/promises';
import { floeError, type ErrorDetails } from '../errors.ts';
import { loadPackage } from '../optional-dependency.ts';
import { abortable, abortedError, throwIfAborted } from '../engine/abort.ts';
import { coalesceRanges, type CoalesceOptions } from '../engine/storage/coalesce.ts';
import { nextTurn } from '../engine/storage/range-batching.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { VirtualChunkRef } from '../format/icechunk/manifest.ts';
import type { VirtualChunkContainer } from './config.ts';
import { matchLength, normalizeUrl, realFileWithin, type NormalizedUrl, type UrlVerdict } from './virtual-urls.ts';

/** The reference's credential shapes; Floe uses only their presence for file and HTTP access. */
export type VirtualCredentials =
  | { type: 'HttpAccess' }
  | { type: 'S3'; field0: unknown }
  | { type: 'Gcs'; field0: unknown }
  | { type: 'Azure'; field0: unknown };

/** url prefix -> credentials (null: access without credentials). */
export type VirtualChunkAuthorization = Record<string, VirtualCredentials | null | undefined>;

export interface VirtualChunkAccess {
  containers: readonly VirtualChunkContainer[];
  authorized: VirtualChunkAuthorization;
}

const refused = (message: string, location: string, reason: ErrorDetails<'UNAUTHORIZED'>['reason'] | 'virtual-chunk-store-unsupported') =>
  reason === 'virtual-chunk-store-unsupported'
    ? floeError('UNSUPPORTED', message, { where: location, details: { reason } })
    : floeError('UNAUTHORIZED', message, { where: location, details: { reason } });

/** A location matched to its container: both normalised; `url.href` is what is read. */
interface Resolved {
  container: VirtualChunkContainer;
  prefix: NormalizedUrl;
  url: NormalizedUrl;
}

// Container prefixes are few and fixed per repository; parsing each once keeps reads cheap.
const prefixCache = new Map<string, UrlVerdict>();
function normalizedPrefix(prefix: string): UrlVerdict {
  let verdict = prefixCache.get(prefix);
  if (!verdict) {
    verdict = normalizeUrl(prefix, 'prefix');
    if (prefixCache.size >= 1024) prefixCache.clear();
    prefixCache.set(prefix, verdict);
  }
  return verdict;
}

/**
 * The container serving `location` (the one covering most path segments), or a refusal: the
 * location cannot be matched safely, or normalises outside every container. A container whose
 * prefix cannot be parsed serves nothing.
 */
function resolveContainer(containers: readonly VirtualChunkContainer[], location: string): Resolved {
  const parsed = normalizeUrl(location, 'location');
  if (!parsed.ok) {
    throw refused(
      `virtual chunk location ${JSON.stringify(location)} ${parsed.why}, so it cannot be matched to a container safely; record the plain, normalised URL instead`,
      location,
      'virtual-chunk-unsafe-url',
    );
  }
  let best: Resolved | undefined;
  let bestLength = -1;
  for (const container of containers) {
    const prefix = normalizedPrefix(container.urlPrefix);
    if (!prefix.ok) continue;
    const n = matchLength(prefix.url, parsed.url);
    if (n < 0) continue;
    if (!best || n > bestLength || (n === bestLength && container.urlPrefix.length > best.container.urlPrefix.length)) {
      best = { container, prefix: prefix.url, url: parsed.url };
      bestLength = n;
    }
  }
  if (best) return best;
  const textual = containers.find((c) => location.startsWith(c.urlPrefix));
  if (textual) {
    throw refused(
      `virtual chunk location ${JSON.stringify(location)} starts with the container prefix ${textual.urlPrefix} as text but normalises to ${parsed.url.href}, outside it; its credentials are not sent there`,
      location,
      'virtual-chunk-outside-container',
    );
  }
  throw refused(`no virtual chunk container serves ${location}; add one with this url prefix to the repository config`, location, 'virtual-chunk-no-container');
}

/** The container serving `location` on normalised whole segments, or undefined (refused). */
export function containerFor(containers: readonly VirtualChunkContainer[], location: string): VirtualChunkContainer | undefined {
  try {
    return resolveContainer(containers, location).container;
  } catch {
    return undefined;
  }
}

/** Throws unless some container of the config serves `location`. */
export function checkContainerExists(containers: readonly VirtualChunkContainer[], location: string): void {
  resolveContainer(containers, location);
}

/** Reads `length` bytes at `offset` inside the ref's range (the whole ref by default). */
export async function fetchVirtualChunk(
  access: VirtualChunkAccess, ref: VirtualChunkRef, within?: { offset: number; length: number }, options?: AbortOptions,
): Promise<Uint8Array> {
  const location = ref.location;
  const signal = options?.signal;
  throwIfAborted(signal, location);
  const { container, prefix, url } = resolveContainer(access.containers, location);
  if (!(container.urlPrefix in access.authorized)) {
    throw refused(
      `reading virtual chunks from ${container.urlPrefix} is not authorized; pass authorizeVirtualChunkAccess: { ${JSON.stringify(container.urlPrefix)}: null } when opening the repository if you trust it (the floe command: --allow-virtual ${container.urlPrefix})`,
      location,
      'virtual-chunk-not-authorized',
    );
  }
  const offset = ref.offset + (within?.offset ?? 0);
  const length = within?.length ?? ref.length;
  let source: Omit<Source, 'wants'>;
  if (url.origin.startsWith('file:') && container.store.type === 'LocalFileSystem') source = { kind: 'file', ref, prefix, url, headers: {}, containerPrefix: container.urlPrefix };
  else if (/^https?:\/\//.test(url.origin) && container.store.type === 'Http') source = { kind: 'http', ref, prefix, url, headers: container.store.field0.headers ?? {}, containerPrefix: container.urlPrefix };
  else {
    throw refused(
      `virtual chunks in ${container.store.type} containers (${location}) are not readable by Floe yet; only file:// and http(s):// containers are`,
      location,
      'virtual-chunk-store-unsupported',
    );
  }
  return enqueue(access, source, offset, length, signal);
}

// Batching: the chunks of one read are asked for together (in one turn of the event loop). The
// wants of one source file (same location, same recorded checksum, same access) are served
// together: a local file is resolved (realpath, containment), stat'ed (the change check, done
// now, for this batch) and opened once, and nearby ranges are coalesced into fewer reads; over
// HTTP, nearby ranges become one ranged GET each carrying the same conditional headers.

/** One want of a batch. */
interface Want {
  readonly offset: number;
  readonly length: number;
  readonly signal: AbortSignal | undefined;
  resolve(bytes: Uint8Array): void;
  reject(err: unknown): void;
}

/** The wants of one source in one batch. */
interface Source {
  readonly kind: 'file' | 'http';
  /** The first ref asked for (all share its location and checksum). */
  readonly ref: VirtualChunkRef;
  readonly prefix: NormalizedUrl;
  readonly url: NormalizedUrl;
  readonly headers: Record<string, string>;
  /** The container's url prefix as configured (for messages). */
  readonly containerPrefix: string;
  readonly wants: Want[];
}

/** Local reads: gaps up to 64 KiB bridged at most 25 % overread, reads of at most 16 MiB. */
const FILE_COALESCING: CoalesceOptions = { gapBytes: 64 * 1024, maxOverread: 0.25, maxSpanBytes: 16 * 1024 * 1024 };
/** HTTP: a round trip costs far more than a few hundred KiB more of a loopback or LAN answer. */
const HTTP_COALESCING: CoalesceOptions = { gapBytes: 256 * 1024, maxOverread: 1, maxSpanBytes: 16 * 1024 * 1024 };

/**
 * One source's queue: at most MAX_BATCHES_IN_FLIGHT batches read at once; wants arriving
 * meanwhile wait and form the next batch (so a read keeping N chunks in flight, each asked for as
 * another finishes, still reads them in batches rather than one by one).
 */
interface Lane {
  running: number;
  scheduled: boolean;
  next: Source | undefined;
}

const MAX_BATCHES_IN_FLIGHT = 2;
const lanesByAccess = new WeakMap<VirtualChunkAccess, Map<string, Lane>>();

function enqueue(access: VirtualChunkAccess, source: Omit<Source, 'wants'>, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
  let lanes = lanesByAccess.get(access);
  if (!lanes) lanesByAccess.set(access, (lanes = new Map()));
  const checksum = source.ref.checksum;
  const key = JSON.stringify([source.containerPrefix, source.kind, source.url.href, checksum && 'etag' in checksum ? `e${checksum.etag}` : checksum ? `m${checksum.lastModified}` : '']);
  let lane = lanes.get(key);
  if (!lane) lanes.set(key, (lane = { running: 0, scheduled: false, next: undefined }));
  const batch = lane.next ?? (lane.next = { ...source, wants: [] });
  const answer = new Promise<Uint8Array>((resolve, reject) => {
    batch.wants.push({ offset, length, signal, resolve, reject });
  });
  schedule(lanes, key, lane);
  return signal ? abortable(answer, signal, source.ref.location) : answer;
}

/** Starts the lane's next batch after this turn, if it may run. */
function schedule(lanes: Map<string, Lane>, key: string, lane: Lane): void {
  if (lane.scheduled || lane.running >= MAX_BATCHES_IN_FLIGHT || !lane.next) return;
  lane.scheduled = true;
  nextTurn(() => {
    lane.scheduled = false;
    const batch = lane.next;
    if (!batch) return;
    lane.next = undefined;
    lane.running++;
    void readSource(batch).finally(() => {
      lane.running--;
      if (lane.next) schedule(lanes, key, lane);
      else if (lane.running === 0 && !lane.scheduled) lanes.delete(key);
    });
  });
}

/** The signal shared by every want, if they share one (else none: each want's own still ends its wait). */
function sharedSignal(wants: readonly Want[]): AbortSignal | undefined {
  const signals = new Set(wants.map((w) => w.signal));
  return signals.size === 1 ? [...signals][0] : undefined;
}

async function readSource(source: Source): Promise<void> {
  try {
    if (source.kind === 'file') await readFileSource(source);
    else await readHttpSource(source);
  } catch (err) {
    for (const w of source.wants) w.reject(err);
  }
}

/** Resolves each want inside one of `spans` from its bytes (`read`), rejecting the span's wants if it fails. */
async function serveSpans(wants: readonly Want[], options: CoalesceOptions, read: (offset: number, length: number) => Promise<Uint8Array>): Promise<void> {
  const spans = coalesceRanges(wants, options);
  await Promise.all(spans.map(async (span) => {
    const inside = wants.filter((w) => w.offset >= span.offset && w.offset + w.length <= span.offset + span.length)
      .sort((a, b) => a.offset - b.offset);
    try {
      const bytes = await read(span.offset, span.length);
      // Each want gets a view of the bytes read; a want overlapping another gets a copy, so a
      // decoder working in place never changes another caller's bytes.
      for (const [i, w] of inside.entries()) {
        const start = w.offset - span.offset;
        const end = w.offset + w.length;
        const overlaps = (i > 0 && inside[i - 1]!.offset + inside[i - 1]!.length > w.offset) || (i + 1 < inside.length && inside[i + 1]!.offset < end);
        w.resolve(overlaps ? bytes.slice(start, start + w.length) : bytes.subarray(start, start + w.length));
      }
    } catch (err) {
      for (const w of inside) w.reject(err);
    }
  }));
  // A zero-length want is in no span.
  for (const w of wants) if (w.length === 0) w.resolve(new Uint8Array(0));
}

async function readFileSource(source: Source): Promise<void> {
  const { ref, prefix, url } = source;
  const location = ref.location;
  const file = await realFileWithin(prefix, url);
  if (file === 'outside') {
    throw refused(`virtual chunk file ${location} resolves (through a symlink) outside its container ${source.containerPrefix}`, location, 'virtual-chunk-outside-container');
  }
  if (file === 'missing') throw floeError('NOT_FOUND', `the file behind a virtual chunk is missing: ${url.href}`, { where: location });
  const { open, stat } = loadPackage<typeof NodeFs>('node:fs/promises');
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    throw floeError('NOT_FOUND', `the file behind a virtual chunk is missing: ${file}`, { where: location, cause: err });
  }
  if (ref.checksum && 'lastModified' in ref.checksum && Math.floor(info.mtimeMs / 1000) > ref.checksum.lastModified) {
    throw changed(ref, `the file was modified at ${info.mtime.toISOString()}, after the recorded ${new Date(ref.checksum.lastModified * 1000).toISOString()}`);
  }
  const wants: Want[] = [];
  for (const w of source.wants) {
    if (w.offset + w.length > info.size) {
      w.reject(floeError('CORRUPT_OBJECT', `virtual chunk range ${w.offset}+${w.length} is past the end of ${file} (${info.size} bytes)`, { where: location }));
    } else wants.push(w);
  }
  if (wants.length === 0) return;
  const signal = sharedSignal(wants);
  const handle = await open(file, 'r');
  try {
    await serveSpans(wants, FILE_COALESCING, async (offset, length) => {
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        throwIfAborted(signal, location);
        const { bytesRead } = await handle.read(out, done, length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return out;
    });
  } finally {
    await handle.close();
  }
}

async function readHttpSource(source: Source): Promise<void> {
  const signal = sharedSignal(source.wants);
  await serveSpans(source.wants, HTTP_COALESCING, (offset, length) => readHttpRange(source.ref, source.url.href, offset, length, source.headers, signal));
}

async function readHttpRange(
  ref: VirtualChunkRef, href: string, offset: number, length: number, headers: Record<string, string>, signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const request: Record<string, string> = { ...headers, range: `bytes=${offset}-${offset + length - 1}` };
  const checksum = ref.checksum;
  if (checksum && 'etag' in checksum) request['if-match'] = quotedEtag(checksum.etag);
  if (checksum && 'lastModified' in checksum) request['if-unmodified-since'] = new Date(checksum.lastModified * 1000).toUTCString();
  let response: Response;
  try {
    // Redirects are not followed: the container authorized is the prefix, not wherever it points.
    response = await fetch(href, { headers: request, redirect: 'manual', ...(signal ? { signal } : {}) });
  } catch (err) {
    if (signal?.aborted) throw abortedError(signal, ref.location);
    throw floeError('STORAGE_ERROR', `fetching virtual chunk ${ref.location} failed: ${(err as Error).message}`, { where: ref.location, cause: err });
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw refused(
      `virtual chunk ${ref.location} redirects (HTTP ${response.status}) to ${response.headers.get('location') ?? 'elsewhere'}; Floe reads only the authorized container's own URLs, so record the final location instead`,
      ref.location,
      'virtual-chunk-redirect',
    );
  }
  if (response.status === 412) {
    await response.body?.cancel();
    throw changed(ref, 'the server refused the recorded checksum (HTTP 412)');
  }
  if (response.status === 404) {
    await response.body?.cancel();
    throw floeError('NOT_FOUND', `virtual chunk source ${ref.location} is gone (HTTP 404)`, { where: ref.location });
  }
  if (response.status !== 206 && response.status !== 200) {
    await response.body?.cancel();
    throw floeError('STORAGE_ERROR', `fetching virtual chunk ${ref.location} answered HTTP ${response.status}`, { where: ref.location });
  }
  // A server may ignore the conditional headers: check the validators it sent, as the reference does.
  checkValidators(ref, response.headers);
  const contentRange = response.headers.get('content-range');
  if (response.status === 206 && contentRange !== null) {
    const match = /^bytes (\d+)-(\d+)\//.exec(contentRange);
    if (!match || Number(match[1]) !== offset || Number(match[2]) !== offset + length - 1) {
      await response.body?.cancel();
      throw floeError('CORRUPT_OBJECT', `virtual chunk ${ref.location}: asked for bytes ${offset}-${offset + length - 1}, the server sent ${contentRange}`, { where: ref.location });
    }
  }
  const body = new Uint8Array(await abortable(response.arrayBuffer(), signal, ref.location));
  // A server that ignores Range sends the whole object: cut the range out of it.
  const bytes = response.status === 200 ? body.subarray(offset, offset + length) : body;
  if (bytes.length !== length) {
    throw floeError('CORRUPT_OBJECT', `virtual chunk ${ref.location} returned ${bytes.length} bytes, expected ${length}`, { where: ref.location });
  }
  return bytes;
}

const changed = (ref: VirtualChunkRef, why: string) =>
  floeError('CHECKSUM_MISMATCH', `${ref.location} changed since the virtual chunk was recorded (${why}); the chunk would be stale, so it is not read`, { where: ref.location });

/** An ETag as If-Match needs it: quoted (a bare `abc` is recorded by some tools). */
function quotedEtag(etag: string): string {
  return /^(W\/)?".*"$/.test(etag) ? etag : `"${etag}"`;
}

/** The response's ETag / Last-Modified against the ref's checksum; a missing one cannot be verified. */
function checkValidators(ref: VirtualChunkRef, headers: Headers): void {
  const checksum = ref.checksum;
  if (!checksum) return;
  if ('etag' in checksum) {
    const etag = headers.get('etag');
    if (etag === null) throw changed(ref, 'the server sent no ETag to compare with the recorded one');
    if (etag !== quotedEtag(checksum.etag)) throw changed(ref, `ETag ${etag}, recorded ${quotedEtag(checksum.etag)}`);
    return;
  }
  const modified = headers.get('last-modified');
  const seconds = modified === null ? Number.NaN : Math.floor(Date.parse(modified) / 1000);
  if (!Number.isFinite(seconds)) throw changed(ref, 'the server sent no Last-Modified to compare with the recorded time');
  if (seconds > checksum.lastModified) throw changed(ref, `modified ${modified}, recorded ${new Date(checksum.lastModified * 1000).toUTCString()}`);
}
