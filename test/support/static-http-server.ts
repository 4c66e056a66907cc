// A static HTTP host on 127.0.0.1 for the HTTP storage tests, with the misbehaviours real hosts
// have, chosen per test: ranges honoured, ignored (the whole object with 200, as python's
// http.server), shifted (a 206 with a Content-Range off by one) or gzip-compressed; no ETag; no
// Content-Length on HEAD; an S3-style XML listing (path-style, paged); a bearer token (401);
// forbidden keys (403); and a hook for one-off answers (429 with Retry-After, redirects, stalls).
// Objects come from a Map (keys under `prefix`) or a directory read at start. Every request is
// recorded. `stop()` ends open connections and closes the server.
import { readdirSync, readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface StaticServerOptions {
  /** The objects, by key (under `prefix` in URLs). */
  readonly objects: Map<string, Uint8Array>;
  /** The URL path the keys go under: '' or ending in '/', e.g. 'bucket/repo/'. */
  readonly prefix?: string;
  /** 'honour' answers several ranges as multipart/byteranges; 'first-only' answers only the first of them. */
  readonly ranges?: 'honour' | 'ignore' | 'shifted' | 'gzip' | 'first-only';
  /** Send ETags. Default true. */
  readonly etags?: boolean;
  /** Send Content-Length on HEAD answers. Default true. */
  readonly headLength?: boolean;
  /** Serve an S3 ListObjectsV2 listing at `/<bucket>/?list-type=2` (the prefix's first segment). */
  readonly listing?: boolean;
  /** Keys per listing page. Default 1000. */
  readonly pageSize?: number;
  /** Require `Authorization: Bearer <token>` (401 otherwise). */
  readonly token?: string;
  /** Keys answered 403. */
  readonly forbidden?: (key: string) => boolean;
  /** Answers a request itself when it returns true (faults, redirects). */
  readonly hook?: (req: IncomingMessage, res: ServerResponse, key: string) => boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

export interface StaticServer {
  /** The base URL of the objects: origin + '/' + prefix. */
  readonly url: string;
  readonly origin: string;
  readonly requests: RecordedRequest[];
  stop(): Promise<void>;
}

/** Every file under `dir`, by its slash-separated relative path. */
export function objectsInDirectory(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) out.set(rel, new Uint8Array(readFileSync(path.join(dir, rel))));
    }
  };
  walk('');
  return out;
}

const etagOf = (key: string, bytes: Uint8Array): string => `"${bytes.length.toString(16)}-${Buffer.from(key).toString('hex').slice(0, 16)}-${bytes.reduce((a, b) => (a * 31 + b) >>> 0, 7).toString(16)}"`;

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function listing(options: StaticServerOptions, url: URL, bucketPrefix: string): string {
  const prefix = url.searchParams.get('prefix') ?? '';
  const delimiter = url.searchParams.get('delimiter');
  const after = url.searchParams.get('continuation-token') ?? url.searchParams.get('start-after') ?? '';
  const max = Math.min(Number(url.searchParams.get('max-keys') ?? 1000), options.pageSize ?? 1000);
  const keys = [...options.objects.keys()].map((k) => bucketPrefix + k).filter((k) => k.startsWith(prefix) && k > after).sort();
  const entries: string[] = [];
  const seen = new Set<string>();
  let last = '';
  let truncated = false;
  for (const key of keys) {
    const rest = key.slice(prefix.length);
    const slash = delimiter === '/' ? rest.indexOf('/') : -1;
    const common = slash >= 0 ? prefix + rest.slice(0, slash + 1) : undefined;
    if (common && seen.has(common)) {
      last = key;
      continue;
    }
    if (entries.length >= max) {
      truncated = true;
      break;
    }
    if (common) {
      seen.add(common);
      entries.push(`<CommonPrefixes><Prefix>${xml(common)}</Prefix></CommonPrefixes>`);
    } else {
      const bytes = options.objects.get(key.slice(bucketPrefix.length)) ?? new Uint8Array(0);
      entries.push(`<Contents><Key>${xml(key)}</Key><LastModified>2026-01-02T03:04:05.000Z</LastModified><ETag>${etagOf(key, bytes)}</ETag><Size>${bytes.length}</Size></Contents>`);
    }
    last = key;
  }
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><Prefix>${xml(prefix)}</Prefix><IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextContinuationToken>${xml(last)}</NextContinuationToken>` : ''}${entries.join('')}</ListBucketResult>`;
}

function answerObject(options: StaticServerOptions, req: IncomingMessage, res: ServerResponse, key: string, bytes: Uint8Array): void {
  const headers: Record<string, string> = { 'last-modified': 'Fri, 02 Jan 2026 03:04:05 GMT', 'content-type': 'application/octet-stream' };
  const etag = etagOf(key, bytes);
  if (options.etags !== false) headers.etag = etag;
  if (options.etags !== false && req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const mode = options.ranges ?? 'honour';
  const several = /^bytes=\d+-\d+(,\d+-\d+)+$/.test(req.headers.range ?? '');
  if (several && req.method !== 'HEAD' && (mode === 'honour' || mode === 'first-only')) {
    const ranges = (req.headers.range ?? '').slice(6).split(',').map((r) => r.split('-').map(Number) as [number, number]);
    if (mode === 'first-only') req.headers.range = `bytes=${ranges[0]![0]}-${ranges[0]![1]}`;
    else return answerMultipart(res, headers, bytes, ranges);
  }
  const match = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (req.method === 'HEAD') {
    if (options.headLength !== false) headers['content-length'] = String(bytes.length);
    res.writeHead(200, headers);
    res.end();
    return;
  }
  if (!match || mode === 'ignore') {
    res.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
    res.end(bytes);
    return;
  }
  const [, first = '', last = ''] = match;
  let start: number;
  let end: number;
  if (first === '') {
    start = Math.max(0, bytes.length - Number(last));
    end = bytes.length - 1;
  } else {
    start = Number(first);
    end = last === '' ? bytes.length - 1 : Math.min(Number(last), bytes.length - 1);
  }
  if (start >= bytes.length || bytes.length === 0) {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${bytes.length}` });
    res.end();
    return;
  }
  if (mode === 'shifted' && start > 0) start -= 1;
  let body: Uint8Array = bytes.subarray(start, end + 1);
  if (mode === 'gzip') {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': String(body.length) });
  res.end(body);
}

/** Several ranges as multipart/byteranges (RFC 9110 §14.6), as nginx sends them. */
function answerMultipart(res: ServerResponse, headers: Record<string, string>, bytes: Uint8Array, ranges: readonly [number, number][]): void {
  const boundary = '00000000000000000042';
  const chunks: Buffer[] = [];
  for (const [first, last] of ranges) {
    const end = Math.min(last, bytes.length - 1);
    chunks.push(Buffer.from(`\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${first}-${end}/${bytes.length}\r\n\r\n`), Buffer.from(bytes.subarray(first, end + 1)));
  }
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  const body = Buffer.concat(chunks);
  res.writeHead(206, { ...headers, 'content-type': `multipart/byteranges; boundary=${boundary}`, 'content-length': String(body.length) });
  res.end(body);
}

export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const prefix = options.prefix ?? '';
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname.slice(1));
    const key = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
    if (options.hook?.(req, res, key)) return;
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' });
      res.end();
      return;
    }
    const bucket = prefix.split('/')[0] ?? '';
    if (options.listing && url.searchParams.get('list-type') === '2' && pathname === `${bucket}/`) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(listing(options, url, prefix.slice(bucket.length + 1)));
      return;
    }
    if (options.forbidden?.(key)) {
      res.writeHead(403);
      res.end();
      return;
    }
    const bytes = pathname.startsWith(prefix) ? options.objects.get(key) : undefined;
    if (!bytes) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    answerObject(options, req, res, key, bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/${prefix}`,
    origin,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
