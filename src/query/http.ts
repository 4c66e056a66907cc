// A query service on node:http.
//   POST /query          body: a JSON query (see ./json-query.ts) -> JSON for small results, else
//                        the binary form (./result-encoding.ts); `Accept: application/octet-stream`
//                        or `?format=binary` asks for binary, `?format=json` for JSON.
//   GET  /explain?q=...  the plan (JSON) and its printout, without reading data.
// Limits: `maxResultBytes` (413 before any data is fetched), `timeoutMs` (504; the query is
// aborted: requests in flight finish, no new one starts), request bodies up to 1 MiB.
// Bad queries answer 400 (404 for a missing array or label) with {"error": {code, message}}.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floeError, isFloeError, type ErrorCode } from '../errors.ts';
import { parseJson as parseJsonDocument } from '../format/json.ts';
import { query, type QueryOptions } from './builder.ts';
import { executePrepared } from './execute/executor.ts';
import { formatPlan } from './explain.ts';
import { applyJsonQuery } from './json-query.ts';
import { planQuery } from './plan/planner.ts';
import { BINARY_CONTENT_TYPE, encodeBinary, encodeJson, isBinaryCapable } from './result-encoding.ts';
import { resolveSource, type QuerySource } from './source.ts';

export interface QueryServerOptions extends QueryOptions {
  /** Largest result (bytes in memory, all arrays) a query may return. Default 256 MiB. */
  maxResultBytes?: number | undefined;
  /** Time allowed per request. Default 30 s. */
  timeoutMs?: number | undefined;
  /** Results up to this size go as JSON unless binary is asked for. Default 64 KiB. */
  jsonMaxBytes?: number | undefined;
  /** Told of every failure answered 500 (the client only sees a generic message). Default console.error. */
  onServerError?: ((err: unknown) => void) | undefined;
}

/** The HTTP query service {@link createQueryServer} returns. */
export interface QueryServer {
  readonly server: Server;
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:41234. Port 0 picks one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections; resolves when the server has closed. */
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400, INVALID_SELECTION: 400, INVALID_KEY: 400, INVALID_NAME: 400, NODE_TYPE_MISMATCH: 400, UNSUPPORTED: 400,
  NOT_FOUND: 404, TIMEOUT: 504,
};

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * An HTTP query service (node:http) over a store or session: `POST /query` with a JSON query answers
 * JSON or the binary result form, `GET /explain?q=...` the plan. Results over `maxResultBytes`
 * answer 413 and queries over `timeoutMs` 504; bad queries 400 (404 for a missing array or label).
 * Call `listen()` to start it.
 */
export function createQueryServer(source: QuerySource, options: QueryServerOptions = {}): QueryServer {
  const limits = { maxResultBytes: options.maxResultBytes ?? 256 * 2 ** 20, timeoutMs: options.timeoutMs ?? 30_000, jsonMaxBytes: options.jsonMaxBytes ?? 64 * 1024 };
  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, signal: AbortSignal): Promise<void> => {
    // Resolved per request: a session's cache use follows its current state.
    const prepare = async (json: unknown) => {
      const builder = applyJsonQuery(query(source, options), json);
      return planQuery(resolveSource(source, options.caches), builder.toOperationNode(), { ...options, signal });
    };
    if (url.pathname === '/explain') {
      if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use GET /explain?q=<JSON query>');
      const q = url.searchParams.get('q');
      if (!q) throw new HttpError(400, 'INVALID_ARGUMENT', 'GET /explain needs ?q=<URL-encoded JSON query>');
      const { plan } = await prepare(parseJson(q));
      return send(res, 200, 'application/json', JSON.stringify({ plan, text: formatPlan(plan) }));
    }
    if (url.pathname !== '/query') throw new HttpError(404, 'NOT_FOUND', `no route ${url.pathname}; use POST /query or GET /explain`);
    if (req.method !== 'POST') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use POST /query with a JSON body');
    const prepared = await prepare(parseJson(await readBody(req)));
    const size = prepared.plan.arrays.reduce((n, a) => n + a.resultBytes, 0);
    if (size > limits.maxResultBytes) {
      throw new HttpError(413, 'RESULT_TOO_LARGE', `the result would be ${size} bytes, over the server's limit of ${limits.maxResultBytes}; narrow the query or use stride()`);
    }
    const { arrays, report } = await executePrepared(prepared, options);
    const format = url.searchParams.get('format');
    const wantsBinary = format === 'binary' || (format !== 'json' && (req.headers.accept ?? '').includes('application/octet-stream'));
    if (isBinaryCapable(arrays) && (wantsBinary || (format !== 'json' && size > limits.jsonMaxBytes))) {
      return send(res, 200, BINARY_CONTENT_TYPE, encodeBinary(arrays, report));
    }
    return send(res, 200, 'application/json', encodeJson(arrays, report));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = floeError('TIMEOUT', `the query took longer than ${limits.timeoutMs} ms`);
        abort.abort(err);
        reject(err);
      }, limits.timeoutMs);
    });
    const work = handle(req, res, url, abort.signal);
    work.catch(() => undefined); // after a timeout its rejection (the abort) has no one to answer
    Promise.race([work, timeout])
      .catch((err: unknown) => {
        if (sendError(res, err) === 500) (options.onServerError ?? console.error)(err);
      })
      .finally(() => clearTimeout(timer));
  });

  return {
    server,
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const addr = server.address() as AddressInfo;
          resolve(`http://${host}:${addr.port}`);
        });
      }),
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** The query JSON, held to the JSON size and depth limits (format/json.ts): malformed or over them is 400. */
function parseJson(text: string): unknown {
  try {
    return parseJsonDocument(text, 'the query', { exactIntegers: false });
  } catch (err) {
    if (isFloeError(err, 'INVALID_METADATA', 'LIMIT_EXCEEDED')) throw new HttpError(400, 'INVALID_ARGUMENT', `the query is not valid JSON: ${err.message}`);
    throw err;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY) throw new HttpError(413, 'BODY_TOO_LARGE', `the query body is over ${MAX_BODY} bytes`);
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  if (res.headersSent) return; // a timed-out request already answered
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown): number {
  const [status, code, message] =
    err instanceof HttpError ? [err.status, err.code, err.message]
    : isFloeError(err) ? [STATUS[err.code] ?? 500, err.code, err.message]
    : [500, 'INTERNAL', 'the server failed to answer the query'];
  send(res, status, 'application/json', JSON.stringify({ error: { code, message } }));
  return status;
}
