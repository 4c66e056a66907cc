// `floe serve`: any branch, tag or snapshot of a repository as a read-only Zarr v3 store over
// HTTP, plus the query service on each version.
//   GET|HEAD /                      the refs: {"branches": {name: id}, "tags": {name: id}}
//   GET|HEAD /<ref>/<key>           a Zarr key of that version (Range, ETag/If-None-Match, CORS)
//   POST     /<ref>/query           a JSON query (src/query/http-handler.ts) on that version,
//                                   CF decoded unless ?decode=none (?stored=1 adds stored values)
//   GET      /<ref>/explain?q=...   its plan
//   GET|HEAD /.icechunk/<key>       the repository's own objects, read-only (raw-objects.ts), so
//                                   HTTP storages (Floe's, the reference's) open it as a static copy
//   GET|HEAD /ui/                   the viewer page's constant files, without the token
//                                   (viewer-assets.ts); a browser's GET / (Accept: text/html) links to it
// <ref> is a branch, tag, snapshot id or ref~N. Branches and tags are resolved on every request,
// so a commit shows up at once; snapshot URLs never change and are served as immutable.
// The query server's limits apply to every route (src/query/http-limits.ts): one memory budget
// covers queries and key reads of every version; with a token every request but a CORS
// preflight needs it (401); `tls` serves HTTPS.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReadSource } from '../../engine/read-source.ts';
import { answerError, createQueryHandler, type QueryHandler, type QueryServerContext } from '../../query/http-handler.ts';
import { listenOn, createLimitedServer, resolveServerLimits, type NodeServer, type ServerLimitOptions, type TlsOptions } from '../../query/http-limits.ts';
import { bearerTokenCheck, decodeSegment, HttpError, requestUrl, unauthorized } from '../../query/http-request.ts';
import { MemoryBudget } from '../../query/memory-budget.ts';
import type { Repository } from '../../txn/index.ts';
import { etagMatches, rangedAnswer } from './byte-range.ts';
import { RAW_ROUTE, serveRawObject } from './raw-objects.ts';
import { statKey } from './stored-object.ts';
import { isViewerAsset, ROOT_PAGE, VIEWER_CSP, VIEWER_ROUTE, viewerAssets, wantsHtml } from './viewer-assets.ts';

export interface RepositoryServerOptions extends ServerLimitOptions {
  /** Snapshots kept open (sessions and their query services). Default 16. */
  readonly openSnapshots?: number;
  /** Told of failures answered 500. Default: ignored. */
  readonly onError?: (err: unknown) => void;
  /** Every request but a CORS preflight must send `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  /** Serve HTTPS with this certificate and key (PEM). */
  readonly tls?: TlsOptions | undefined;
  /** How /query answers when a request does not say (`?decode=`): 'cf' (the default) or 'none' (docs/cf.md). */
  readonly decode?: 'cf' | 'none' | undefined;
  /** Where the viewer page's built files are. Default: the package's dist/viewer/. */
  readonly viewerDir?: string | undefined;
}

export interface RepositoryServer {
  readonly server: NodeServer;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'Range, If-None-Match, Content-Type, Accept, Authorization',
  'access-control-expose-headers': 'Content-Length, Content-Range, Accept-Ranges, ETag',
  'access-control-max-age': '86400',
} as const;

interface OpenSnapshot {
  /** A read-only session, seen only through the read seam. */
  readonly source: ReadSource;
  query?: QueryHandler;
}

export function createRepositoryServer(repo: Repository, options: RepositoryServerOptions = {}): RepositoryServer {
  const limit = options.openSnapshots ?? 16;
  const limits = resolveServerLimits(options);
  const context: QueryServerContext = { limits, budget: new MemoryBudget(limits.memoryBudgetBytes) };
  const checkToken = bearerTokenCheck(options.token);
  const ignore = () => undefined;
  const open = new Map<string, OpenSnapshot>(); // insertion order = least recently used first
  const serveViewer = viewerAssets(options.viewerDir);

  const snapshot = async (ref: string): Promise<{ entry: OpenSnapshot; immutable: boolean }> => {
    const { snapshotId: id, fixed } = await repo.resolve(ref);
    let entry = open.get(id);
    if (entry) open.delete(id);
    else entry = { source: await repo.readonlySession({ snapshotId: id }) };
    open.set(id, entry);
    // The least recently used goes; its requests in flight keep their own references.
    const [oldest] = open.keys();
    if (open.size > limit && oldest !== undefined) open.delete(oldest);
    // Only a full snapshot id names the same snapshot forever (`main~1` moves with main).
    return { entry, immutable: fixed };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') return end(res, 204, {}); // a preflight carries no token and reveals nothing
    // The page's files and the link to them hold no data: a browser's navigation cannot send the token.
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith(`/${VIEWER_ROUTE}/`) && isViewerAsset(path.slice(VIEWER_ROUTE.length + 2))) return serveViewer(req, res, path.slice(VIEWER_ROUTE.length + 2));
    if (path === '/' && method === 'GET' && wantsHtml(req)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': VIEWER_CSP, 'cache-control': 'no-cache', vary: 'Accept' });
      return void res.end(ROOT_PAGE);
    }
    const verdict = checkToken(req);
    if (verdict !== 'ok') throw unauthorized(verdict);
    const url = requestUrl(req, limits.maxUrlBytes);
    const [rawRef = '', ...rest] = url.pathname.slice(1).split('/');
    const ref = decodeSegment(rawRef);
    const key = rest.map(decodeSegment).join('/');
    if (rawRef === RAW_ROUTE) return serveRawObject(repo.storage, req, res, key, url, reserveForKey, CORS);
    if (ref === '') {
      if (method !== 'GET' && method !== 'HEAD') return notAllowed(res, 'GET, HEAD, OPTIONS');
      const refs = await listRefs(repo);
      return sendJson(res, 200, refs, method === 'HEAD');
    }
    const { entry, immutable } = await snapshot(ref);
    if (key === 'query' || key === 'explain') {
      for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
      // Queries answer physical values (CF decoded) unless a request asks for decode=none.
      entry.query ??= createQueryHandler(entry.source, { onServerError: options.onError ?? ignore, decode: options.decode ?? 'cf' }, context);
      return entry.query(req, res, key, url);
    }
    if (method !== 'GET' && method !== 'HEAD') return notAllowed(res, 'GET, HEAD, OPTIONS');
    const object = key === '' ? undefined : await statKey(entry.source, key);
    if (!object) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no key ${JSON.stringify(key)} in ${ref}` } }, method === 'HEAD');
    const headers: Record<string, string> = {
      etag: object.etag,
      'accept-ranges': 'bytes',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'content-type': key.endsWith('zarr.json') ? 'application/json' : 'application/octet-stream',
    };
    if (etagMatches(req.headers['if-none-match'], object.etag)) return end(res, 304, headers);
    const answer = rangedAnswer(req.headers.range, object.size);
    if (answer.status === 416) return end(res, 416, { ...headers, ...answer.headers });
    const { status, offset, length } = answer;
    Object.assign(headers, answer.headers);
    if (method === 'HEAD') return end(res, status, headers);
    await reserveForKey(res, length);
    const bytes = length === 0 ? new Uint8Array(0) : await entry.source.store.getRange(key, { offset, length });
    if (!bytes) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no key ${JSON.stringify(key)} in ${ref}` } }, false);
    res.writeHead(status, { ...CORS, ...headers });
    res.end(bytes);
  };

  /** A key's bytes are held while they are sent: they come out of the same budget as queries. */
  const reserveForKey = async (res: ServerResponse, bytes: number): Promise<void> => {
    const answer = await context.budget.reserve(bytes, limits.queueTimeoutMs);
    if (answer.kind === 'too-large') throw new HttpError(413, 'LIMIT_EXCEEDED', `the answer would be ${bytes} bytes, over the server's memory budget of ${context.budget.totalBytes}; ask for a smaller Range`);
    if (answer.kind === 'busy') throw new HttpError(503, 'BUSY', 'the server\'s memory budget is in use; retry shortly, or ask for a smaller Range', { 'retry-after': '1' });
    if (res.closed) return answer.release();
    res.once('close', answer.release);
  };

  const server = createLimitedServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      for (const [k, v] of Object.entries(CORS)) if (!res.headersSent) res.setHeader(k, v);
      answerError(res, err, options.onError ?? ignore);
    });
  }, limits, options.tls);

  return {
    server,
    listen: (port = 0, host = '127.0.0.1') => listenOn(server, port, host, options.tls !== undefined),
    close: async () => {
      open.clear();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function listRefs(repo: Repository) {
  const branches: Record<string, string> = {};
  const tags: Record<string, string> = {};
  for (const b of await repo.listBranches()) branches[b] = await repo.lookupBranch(b);
  for (const t of await repo.listTags()) tags[t] = await repo.lookupTag(t);
  return { branches, tags };
}

function end(res: ServerResponse, status: number, headers: Record<string, string>): void {
  res.writeHead(status, { ...CORS, ...headers });
  res.end();
}

function notAllowed(res: ServerResponse, allow: string): void {
  res.writeHead(405, { ...CORS, allow, 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: `use ${allow}` } }));
}

function sendJson(res: ServerResponse, status: number, value: unknown, headOnly: boolean): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...CORS, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-cache' });
  res.end(headOnly ? undefined : body);
}
