// Listing over HTTP, where the host offers one: the S3 ListObjectsV2 XML answer (`?list-type=2`)
// that public buckets (AWS, Ceph, MinIO, R2) give anonymous readers. Plain static servers offer
// none; then the operations that list are refused by name (UNSUPPORTED), and everything that
// reads known keys still works. The XML is parsed by fast-xml-parser (an optional peer, loaded
// with the first listing), with each page's size bounded before it is parsed.
import { floeError } from '../../errors.ts';
import { importOptional } from '../../optional-dependency.ts';
import { discard, failure, readBody, type HttpSender } from './http-answers.ts';
import type { Clock } from './clock.ts';
import type { AbortOptions, ListDirResult, ListOptions, ObjectInfo } from './types.ts';

/** Largest listing page read (1,000 keys of S3 XML are ~300 KB). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
/** Pages followed for one listing: 10 million keys at S3's 1,000 a page. */
const MAX_PAGES = 10_000;

/** Where a bucket lists: its URL and the key prefix of the storage's base URL inside it. */
export interface ListingTarget {
  readonly bucketUrl: URL;
  readonly prefix: string;
}

interface Page {
  readonly objects: ObjectInfo[];
  readonly prefixes: string[];
  readonly next: string | undefined;
}

type Parser = { parse(xml: string): unknown };
let parserLoading: Promise<Parser> | undefined;
const loadParser = (): Promise<Parser> =>
  (parserLoading ??= importOptional('fast-xml-parser', 'listing over HTTP (S3-style XML)', () => import('fast-xml-parser')).then(
    (m) => new m.XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'Contents' || name === 'CommonPrefixes', processEntities: true, htmlEntities: false }),
  ));

/** The candidates 'auto' tries: the host's root (virtual-hosted bucket), then the first path segment (path-style). */
export function listingCandidates(base: URL): ListingTarget[] {
  const path = decodeURIComponent(base.pathname.slice(1));
  const candidates: ListingTarget[] = [{ bucketUrl: new URL('/', base), prefix: path }];
  const slash = path.indexOf('/');
  if (slash > 0) candidates.push({ bucketUrl: new URL(`/${base.pathname.split('/')[1]}/`, base), prefix: path.slice(slash + 1) });
  return candidates;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** One ListObjectsV2 page, its keys made relative to `prefix`; undefined when the XML is not a listing. */
export function parseListingPage(parsed: unknown, prefix: string, where: string): Page | undefined {
  const result = (parsed as { ListBucketResult?: Record<string, unknown> } | null)?.ListBucketResult;
  if (!result || typeof result !== 'object') return undefined;
  const objects: ObjectInfo[] = [];
  for (const entry of (result.Contents as Record<string, unknown>[] | undefined) ?? []) {
    const key = text(entry?.Key);
    const size = Number(text(entry?.Size));
    if (key === undefined || !Number.isSafeInteger(size) || size < 0) throw badListing(where, 'an entry without a Key or a valid Size');
    if (!key.startsWith(prefix) || key.length === prefix.length) continue;
    const modified = Date.parse(text(entry.LastModified) ?? '');
    const etag = text(entry.ETag);
    objects.push({ key: key.slice(prefix.length), size, lastModified: new Date(Number.isNaN(modified) ? 0 : modified), ...(etag ? { version: etag } : {}) });
  }
  const prefixes: string[] = [];
  for (const entry of (result.CommonPrefixes as Record<string, unknown>[] | undefined) ?? []) {
    const value = text(entry?.Prefix);
    if (value?.startsWith(prefix) && value.length > prefix.length) prefixes.push(value.slice(prefix.length));
  }
  const truncated = text(result.IsTruncated) === 'true';
  const next = truncated ? text(result.NextContinuationToken) : undefined;
  if (truncated && !next) throw badListing(where, 'IsTruncated without a NextContinuationToken');
  return { objects, prefixes, next };
}

function badListing(where: string, what: string): Error {
  return floeError('STORAGE_ERROR', `the S3-style listing at ${where} has ${what}; the host's listing is not usable`, { where });
}

/** Listing of one {@link HttpStorage}: finds where its host lists (once), then pages through it. */
export class HttpListing {
  private target: Promise<ListingTarget | null> | undefined;

  constructor(
    private readonly requests: HttpSender,
    private readonly clock: Clock,
    private readonly base: URL,
    private readonly mode: 'auto' | 'none' | { bucketUrl: string; prefix: string },
  ) {}

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    const target = await this.targetFor(`list ${JSON.stringify(prefix)}`, options);
    const startAfter = options?.startAfter !== undefined ? target.prefix + options.startAfter : undefined;
    for await (const page of this.pages(target, prefix, { startAfter }, options)) yield* page.objects;
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    const target = await this.targetFor(`list the directory ${JSON.stringify(prefix)}`, options);
    const out: ListDirResult = { objects: [], prefixes: [] };
    for await (const page of this.pages(target, prefix, { delimiter: '/' }, options)) {
      out.objects.push(...page.objects);
      out.prefixes.push(...page.prefixes);
    }
    return out;
  }

  /** Every page of one listing, following continuation tokens (at most MAX_PAGES). */
  private async *pages(target: ListingTarget, prefix: string, query: { startAfter?: string | undefined; delimiter?: string }, options: AbortOptions | undefined): AsyncIterable<Page> {
    let token: string | undefined;
    for (let count = 0; count < MAX_PAGES; count++) {
      const page = await this.page(target, prefix, token ? { token, ...(query.delimiter ? { delimiter: query.delimiter } : {}) } : query, options);
      yield page;
      if (!page.next) return;
      token = page.next;
    }
    throw floeError('STORAGE_ERROR', `listing ${JSON.stringify(prefix)} over HTTP passed ${MAX_PAGES} pages; refusing to go on`, { where: prefix });
  }

  private async targetFor(operation: string, options: AbortOptions | undefined): Promise<ListingTarget> {
    const target = await (this.target ??= this.discover(options));
    if (target) return target;
    throw floeError('UNSUPPORTED',
      `cannot ${operation}: the HTTP server at ${this.base.origin} offers no S3-style listing (?list-type=2), and HTTP storage has no other way to list. ` +
      'Over plain HTTP, what needs a listing is refused: spec-1 repositories (their refs), `floe ls` of a plain Zarr v3 store without consolidated metadata, gc and expiry; ' +
      'spec-2 repositories and arrays at known paths need none. Publish a spec-2 repository, or serve from a bucket that allows anonymous listing.',
      { where: this.base.href, details: { reason: 'http-listing-unavailable' } });
  }

  private async discover(options: AbortOptions | undefined): Promise<ListingTarget | null> {
    if (this.mode === 'none') return null;
    if (this.mode !== 'auto') return { bucketUrl: new URL(this.mode.bucketUrl), prefix: this.mode.prefix };
    for (const candidate of listingCandidates(this.base)) {
      try {
        await this.page(candidate, '', { maxKeys: 1 }, options);
        return candidate;
      } catch (err) {
        if (options?.signal?.aborted) throw err;
        // not a listing here: try the next candidate
      }
    }
    return null;
  }

  private async page(
    target: ListingTarget,
    prefix: string,
    query: { token?: string | undefined; startAfter?: string | undefined; delimiter?: string; maxKeys?: number },
    options: AbortOptions | undefined,
  ): Promise<Page> {
    const url = new URL(target.bucketUrl);
    url.searchParams.set('list-type', '2');
    url.searchParams.set('prefix', target.prefix + prefix);
    if (query.delimiter) url.searchParams.set('delimiter', query.delimiter);
    if (query.token) url.searchParams.set('continuation-token', query.token);
    if (query.startAfter) url.searchParams.set('start-after', query.startAfter);
    if (query.maxKeys) url.searchParams.set('max-keys', String(query.maxKeys));
    const where = url.href;
    const xml = await this.requests.withRequest(prefix, options?.signal, async (signal) => {
      const response = await this.requests.send(url, 'GET', {}, signal);
      if (response.status !== 200) throw await failure(response, prefix, 'LIST', this.clock.nowMs());
      if (!/xml/i.test(response.headers.get('content-type') ?? 'xml')) return discard(response, '');
      return new TextDecoder().decode(await readBody(response, MAX_PAGE_BYTES, prefix));
    });
    const parser = await loadParser();
    let parsed: unknown;
    try {
      parsed = parser.parse(xml);
    } catch (err) {
      throw floeError('STORAGE_ERROR', `the listing at ${where} is not well-formed XML`, { where, cause: err });
    }
    const page = parseListingPage(parsed, target.prefix, where);
    if (!page) throw floeError('STORAGE_ERROR', `${where} answered something other than an S3 ListBucketResult`, { where });
    return page;
  }
}
