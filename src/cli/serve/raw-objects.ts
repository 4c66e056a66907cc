// `floe serve`'s raw route: the repository's own objects, read-only, so that an HTTP storage
// (Floe's, the reference's fetch storage) opens the served repository as it would a static copy.
//   GET|HEAD /.icechunk/<key>                          one object: Range, ETag / If-None-Match
//   GET      /.icechunk/?list-type=2&prefix=…          an S3-style XML listing (spec-1 refs, tools)
// The repo info file (and a spec-1 repository's refs and config) change, so they are sent with
// `Cache-Control: no-cache` and revalidated by ETag; every other object is write-once and is sent
// as immutable. Keys are checked by the storage as on every other path (no `..`, no links out).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isFloeError } from '../../errors.ts';
import type { ObjectInfo, ObjectStorage } from '../../engine/storage/types.ts';
import { HttpError } from '../../query/http-request.ts';
import { byteranges, etagMatches, rangedAnswer, resolveRanges } from './byte-range.ts';

/** The first path segment of the raw route (no branch or tag can be named so: names cannot start with '.'). */
export const RAW_ROUTE = '.icechunk';

const MAX_LIST_KEYS = 1000;

/** Reserves `bytes` of the server's memory budget for one answer (released when it is sent). */
export type Reserve = (res: ServerResponse, bytes: number) => Promise<void>;

const isMutable = (key: string): boolean => key === 'repo' || key === 'config.yaml' || key.startsWith('refs/');

/** A storage version token as an HTTP entity tag (quoted, no inner quotes). */
function entityTag(version: string | undefined, info: { size: number; lastModified: Date }): string {
  if (version && /^(W\/)?"[^"]*"$/.test(version)) return version;
  return `"${(version ?? `${info.size}-${info.lastModified.getTime()}`).replace(/["\\\s]/g, '')}"`;
}

/** Answers one request of the raw route; `key` is the decoded path after `/.icechunk/`. */
export async function serveRawObject(storage: ObjectStorage, req: IncomingMessage, res: ServerResponse, key: string, url: URL, reserve: Reserve, cors: Readonly<Record<string, string>>): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'the raw route is read-only: use GET, HEAD or OPTIONS', { allow: 'GET, HEAD, OPTIONS' });
  if (key === '' && url.searchParams.get('list-type') === '2') return sendListing(storage, res, url, cors);
  const info = await statObject(storage, key);
  if (!info) throw new HttpError(404, 'NOT_FOUND', `no object ${JSON.stringify(key)} in this repository`);
  const etag = entityTag(info.version, info);
  const headers: Record<string, string> = {
    ...cors,
    etag,
    'last-modified': info.lastModified.toUTCString(),
    'accept-ranges': 'bytes',
    'cache-control': isMutable(key) ? 'no-cache' : 'public, max-age=31536000, immutable',
    'content-type': 'application/octet-stream',
  };
  if (etagMatches(req.headers['if-none-match'], etag)) return end(res, 304, headers);
  const several = resolveRanges(req.headers.range, info.size);
  if (several === 'unsatisfiable') return end(res, 416, { ...headers, 'content-range': `bytes */${info.size}` });
  if (several) return sendByteranges(storage, req, res, key, info, etag, headers, several, reserve);
  const answer = rangedAnswer(req.headers.range, info.size);
  if (answer.status === 416) return end(res, 416, { ...headers, ...answer.headers });
  const { status, offset, length } = answer;
  Object.assign(headers, answer.headers);
  if (method === 'HEAD') return end(res, status, headers);
  await reserve(res, length);
  const read = await storage.get(key, status === 206 ? { offset, length } : undefined);
  // An object replaced between the stat and the read (only the repo info file can be): its
  // headers would not describe these bytes, so the client is told to ask again.
  if (!read || entityTag(read.version, info) !== etag || read.bytes.length !== length) {
    throw new HttpError(503, 'CHANGED', `${key} changed while it was read; retry`, { 'retry-after': '0' });
  }
  res.writeHead(status, headers);
  res.end(read.bytes);
}

/** Several ranges of one object in one multipart/byteranges answer (Floe's HttpStorage asks so). */
async function sendByteranges(
  storage: ObjectStorage, req: IncomingMessage, res: ServerResponse, key: string, info: ObjectInfo, etag: string,
  headers: Record<string, string>, ranges: readonly { offset: number; length: number }[], reserve: Reserve,
): Promise<void> {
  const boundary = `floe-${etag.replace(/[^0-9A-Za-z]/g, '').slice(0, 40)}`;
  const answer = byteranges(ranges, info.size, boundary);
  Object.assign(headers, { 'content-type': `multipart/byteranges; boundary=${boundary}`, 'content-length': String(answer.length) });
  if (req.method === 'HEAD') return end(res, 206, headers);
  await reserve(res, answer.length);
  const bodies: Uint8Array[] = [];
  for (const { offset, length } of ranges) {
    const read = await storage.get(key, { offset, length });
    if (!read || entityTag(read.version, info) !== etag || read.bytes.length !== length) {
      throw new HttpError(503, 'CHANGED', `${key} changed while it was read; retry`, { 'retry-after': '0' });
    }
    bodies.push(read.bytes);
  }
  res.writeHead(206, headers);
  for (const piece of answer.pieces(bodies)) res.write(piece);
  res.end();
}

async function statObject(storage: ObjectStorage, key: string): Promise<ObjectInfo | null> {
  try {
    return await storage.head(key);
  } catch (err) {
    if (isFloeError(err, 'INVALID_KEY')) throw new HttpError(400, 'INVALID_KEY', err.message);
    throw err;
  }
}

function end(res: ServerResponse, status: number, headers: Record<string, string>): void {
  res.writeHead(status, headers);
  res.end();
}

const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * An S3 ListObjectsV2 answer over the storage's listing: `prefix`, `delimiter` ('/' only),
 * `start-after`, `continuation-token` (the last key sent) and `max-keys` (at most 1,000).
 */
async function sendListing(storage: ObjectStorage, res: ServerResponse, url: URL, cors: Readonly<Record<string, string>>): Promise<void> {
  const prefix = url.searchParams.get('prefix') ?? '';
  const delimiter = url.searchParams.get('delimiter');
  if (delimiter !== null && delimiter !== '/') throw new HttpError(400, 'INVALID_ARGUMENT', "the raw route's listing supports only delimiter '/'");
  const maxKeys = Math.min(MAX_LIST_KEYS, Math.max(1, Number(url.searchParams.get('max-keys') ?? MAX_LIST_KEYS) || MAX_LIST_KEYS));
  const after = url.searchParams.get('continuation-token') ?? url.searchParams.get('start-after') ?? '';
  const entries: { key: string; info?: ObjectInfo }[] = [];
  const seenPrefixes = new Set<string>();
  let truncated = false;
  try {
    for await (const info of storage.list(prefix, after ? { startAfter: after } : {})) {
      const rest = info.key.slice(prefix.length);
      const slash = delimiter ? rest.indexOf('/') : -1;
      const entry = slash >= 0 ? { key: prefix + rest.slice(0, slash + 1) } : { key: info.key, info };
      if (slash >= 0 && seenPrefixes.has(entry.key)) continue;
      if (entries.length === maxKeys) {
        truncated = true;
        break;
      }
      if (slash >= 0) seenPrefixes.add(entry.key);
      entries.push(entry);
    }
  } catch (err) {
    if (isFloeError(err, 'INVALID_KEY')) throw new HttpError(400, 'INVALID_KEY', err.message);
    throw err;
  }
  const last = entries.at(-1);
  // A common prefix ends the page at its last key: the next page starts after every key under it.
  const next = last && !last.info ? `${last.key}\u{10FFFF}` : last?.key;
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    `<Name>${RAW_ROUTE}</Name><Prefix>${xmlText(prefix)}</Prefix><KeyCount>${entries.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>`,
    ...(delimiter ? [`<Delimiter>${delimiter}</Delimiter>`] : []),
    `<IsTruncated>${truncated}</IsTruncated>`,
    ...(truncated && next ? [`<NextContinuationToken>${xmlText(next)}</NextContinuationToken>`] : []),
    ...entries.map((e) =>
      e.info
        ? `<Contents><Key>${xmlText(e.key)}</Key><LastModified>${e.info.lastModified.toISOString()}</LastModified><ETag>${xmlText(entityTag(e.info.version, e.info))}</ETag><Size>${e.info.size}</Size></Contents>`
        : `<CommonPrefixes><Prefix>${xmlText(e.key)}</Prefix></CommonPrefixes>`,
    ),
    '</ListBucketResult>',
  ].join('');
  res.writeHead(200, { ...cors, 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-cache' });
  res.end(body);
}
