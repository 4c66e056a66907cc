// A query service on node:http (or node:https).
//   POST /query          body: a JSON query (see ./json-query.ts) -> JSON for small results, else
//                        the binary form (./result-encoding.ts); `Accept: application/octet-stream`
//                        or `?format=binary` asks for binary, `?format=json` for JSON.
//   GET  /explain?q=...  the plan (JSON) and its printout, without reading data.
// One request cannot take the server down: the planner counts chunks and result bytes from
// metadata and refuses over the limits (413) before enumerating anything; each request then
// reserves its estimated memory from a budget shared by all requests (queued briefly, else 503
// with Retry-After); bodies, URLs, headers, JSON depth, connections and every phase's time are
// bounded (http-limits.ts lists the limits and defaults). Bad queries answer 400 (404 for a
// missing array or label) with {"error": {code, message}}; a bearer token, when set, is checked
// before anything else (401).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isFloeError, type ErrorCode } from '../errors.ts';
import { query, type QueryOptions } from './builder.ts';
import { executePrepared } from './execute/executor.ts';
import { formatPlan } from './explain.ts';
import { listenOn, createLimitedServer, resolveServerLimits, type NodeServer, type ServerLimitOptions, type ServerLimits, type TlsOptions } from './http-limits.ts';
import { bearerTokenCheck, HttpError, readBody, requestUrl, sendError, unauthorized } from './http-request.ts';
import { applyJsonQuery, parseQueryJson } from './json-query.ts';
import { MemoryBudget, planningMemory, queryMemory } from './memory-budget.ts';
import { limitExceeded, type PlanEstimate } from './plan/plan-limits.ts';
import type { QueryPlan } from './plan/plan-types.ts';
import { planQuery, type PreparedQuery } from './plan/planner.ts';
import { BINARY_CONTENT_TYPE, encodeBinaryParts, encodeJson } from './result-encoding.ts';
import { resolveSource, type QuerySource } from './source.ts';

/**
 * Options of {@link createQueryServer}: how queries run ({@link QueryOptions}; its `limits` are
 * replaced by the server's `maxChunks`, `maxResultBytes` and `maxCoordinateLabels`), the server's
 * limits ({@link ServerLimitOptions}, docs/serving.md), a token and TLS.
 */
export interface QueryServerOptions extends QueryOptions, ServerLimitOptions {
  /** Told of every failure answered 500 (the client only sees a generic message). Default console.error. */
  onServerError?: ((err: unknown) => void) | undefined;
  /** Requests must send `Authorization: Bearer <token>` (401 otherwise). Default: no token. */
  token?: string | undefined;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: TlsOptions | undefined;
}

/** The HTTP query service {@link createQueryServer} returns. */
export interface QueryServer {
  readonly server: NodeServer;
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:41234. Port 0 picks one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections, closes open ones; resolves when the server has closed. */
  close(): Promise<void>;
}

/** Answers one request routed to `route` ('query' or 'explain'; anything else is a 404). */
export type QueryHandler = (req: IncomingMessage, res: ServerResponse, route: string, url: URL) => void;

/** What the handlers of one server share: its limits and its memory budget. */
export interface QueryServerContext {
  readonly limits: ServerLimits;
  readonly budget: MemoryBudget;
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400, INVALID_SELECTION: 400, INVALID_KEY: 400, INVALID_NAME: 400, NODE_TYPE_MISMATCH: 400, UNSUPPORTED: 400,
  NOT_FOUND: 404, AMBIGUOUS: 400, LIMIT_EXCEEDED: 413, TIMEOUT: 504,
};

/** Plans listed in /explain's JSON show at most this many requests (`plan.expected.requests` counts all). */
const LISTED_REQUESTS = 1_000;

/**
 * An HTTP query service (node:http, or node:https with `tls`) over a store or session:
 * `POST /query` with a JSON query answers JSON or the binary result form, `GET /explain?q=...`
 * the plan. Limits (docs/serving.md): 413 over `maxResultBytes`/`maxChunks` (counted before any
 * work), 503 while the memory budget is spent, 504 past `timeoutMs`; bad queries 400 (404 for a
 * missing array or label). Call `listen()` to start it (loopback by default).
 */
export function createQueryServer(source: QuerySource, options: QueryServerOptions = {}): QueryServer {
  const limits = resolveServerLimits(options);
  const context = { limits, budget: new MemoryBudget(limits.memoryBudgetBytes) };
  const handle = createQueryHandler(source, options, context);
  const checkToken = bearerTokenCheck(options.token);
  const server = createLimitedServer((req, res) => {
    try {
      const verdict = checkToken(req);
      if (verdict !== 'ok') throw unauthorized(verdict);
      const url = requestUrl(req, limits.maxUrlBytes);
      handle(req, res, url.pathname.slice(1), url);
    } catch (err) {
      answerError(res, err, options.onServerError);
    }
  }, limits, options.tls);
  return {
    server,
    listen: (port = 0, host = '127.0.0.1') => listenOn(server, port, host, options.tls !== undefined),
    close: () =>
      new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The query routes of one source, for a server that does its own routing (`floe serve`). */
export function createQueryHandler(source: QuerySource, options: QueryServerOptions, context: QueryServerContext): QueryHandler {
  const { limits } = context;
  const planLimits = { maxChunks: limits.maxChunks, maxResultBytes: limits.maxResultBytes, maxCoordinateLabels: limits.maxCoordinateLabels };
  const prepare = (json: unknown, signal: AbortSignal, admit: (e: PlanEstimate) => Promise<void>) => {
    const builder = applyJsonQuery(query(source, options), json);
    // Resolved per request: a session's cache use follows its current state.
    return planQuery(resolveSource(source, options.caches), builder.toOperationNode(), { ...options, limits: planLimits, signal, admit });
  };
  const concurrency = options.concurrency ?? 8;

  const answer = async (req: IncomingMessage, res: ServerResponse, route: string, url: URL, control: RequestControl): Promise<void> => {
    if (route === 'explain') {
      if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use GET /explain?q=<JSON query>', { allow: 'GET' });
      const q = url.searchParams.get('q');
      if (!q) throw new HttpError(400, 'INVALID_ARGUMENT', 'GET /explain needs ?q=<URL-encoded JSON query>');
      const { plan } = await prepare(parseQueryJson(q, limits.maxJsonDepth), control.signal, (e) => control.reserve(planningMemory(e)));
      return send(res, 200, 'application/json', JSON.stringify({ plan: listedPlan(plan), text: formatPlan(plan) }));
    }
    if (route !== 'query') throw new HttpError(404, 'NOT_FOUND', `no route /${route}; use POST /query or GET /explain`);
    if (req.method !== 'POST') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use POST /query with a JSON body', { allow: 'POST' });
    const body = await readBody(req, limits.maxBodyBytes);
    const format = answerFormat(req, url);
    let json = false;
    const prepared: PreparedQuery = await prepare(parseQueryJson(body, limits.maxJsonDepth), control.signal, (e) => {
      json = format === 'json' || e.arrays.some((a) => !a.fixedSize) || (format === 'auto' && e.resultBytes <= limits.jsonMaxBytes);
      return control.reserve(queryMemory(e, { concurrency, json }));
    });
    const { arrays, report } = await executePrepared(prepared, options);
    if (json) return send(res, 200, 'application/json', encodeJson(arrays, report));
    sendParts(res, BINARY_CONTENT_TYPE, encodeBinaryParts(arrays, report));
  };

  return (req, res, route, url) => {
    const control = new RequestControl(context);
    const timer = setTimeout(() => control.timeOut(limits.timeoutMs), limits.timeoutMs);
    // A client that goes away stops its query: no further request starts.
    res.once('close', () => {
      if (!res.writableFinished) control.abort(new HttpError(499, 'CLIENT_CLOSED', 'the client closed the connection'));
    });
    const work = answer(req, res, route, url, control);
    Promise.race([work, control.timedOut])
      .catch((err: unknown) => answerError(res, err, options.onServerError))
      .finally(() => clearTimeout(timer));
    // Memory goes back once the query has stopped and its answer has been sent or abandoned.
    void Promise.allSettled([work, new Promise((resolve) => (res.closed ? resolve(undefined) : res.once('close', resolve)))]).then(() => control.release());
  };
}

/** One request's abort signal, deadline and share of the memory budget. */
class RequestControl {
  readonly #controller = new AbortController();
  #release: (() => void) | undefined;
  #rejectTimeout: ((err: unknown) => void) | undefined;
  /** Rejects when the request runs past `timeoutMs` (then the query is aborted too). */
  readonly timedOut = new Promise<never>((_, reject) => (this.#rejectTimeout = reject));

  constructor(private readonly context: QueryServerContext) {
    this.timedOut.catch(() => undefined);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  async reserve(bytes: number): Promise<void> {
    const { limits, budget } = this.context;
    const answer = await budget.reserve(bytes, limits.queueTimeoutMs, this.signal);
    if (answer.kind === 'too-large') throw limitExceeded('memoryBudgetBytes', bytes, budget.totalBytes);
    if (answer.kind === 'busy') {
      this.signal.throwIfAborted();
      throw new HttpError(503, 'BUSY', `the server's memory budget is in use; retry shortly (this query needs ${bytes} bytes)`, { 'retry-after': '1' });
    }
    this.#release = answer.release;
  }

  timeOut(ms: number): void {
    const err = new HttpError(504, 'TIMEOUT', `the query took longer than ${ms} ms`);
    this.abort(err);
    this.#rejectTimeout?.(err);
  }

  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  release(): void {
    this.#release?.();
  }
}

/** `?format=` wins, then `Accept: application/octet-stream`; otherwise the result's size decides. */
function answerFormat(req: IncomingMessage, url: URL): 'json' | 'binary' | 'auto' {
  const format = url.searchParams.get('format');
  if (format === 'json' || format === 'binary') return format;
  return (req.headers.accept ?? '').includes('application/octet-stream') ? 'binary' : 'auto';
}

function listedPlan(plan: QueryPlan): QueryPlan & { readonly requestsListed: number } {
  const requests = plan.requests.slice(0, LISTED_REQUESTS);
  return { ...plan, requests, requestsListed: requests.length };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  if (res.headersSent || res.destroyed) return; // a timed-out request already answered
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendParts(res: ServerResponse, type: string, parts: readonly Uint8Array[]): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { 'content-type': type, 'content-length': parts.reduce((n, p) => n + p.byteLength, 0) });
  for (const part of parts) res.write(part);
  res.end();
}

/** Answers a failure: its HTTP status and `{"error": {code, message}}`; 500s are reported, not shown. */
export function answerError(res: ServerResponse, err: unknown, onServerError: ((err: unknown) => void) | undefined): number {
  if (err instanceof HttpError) {
    sendError(res, err.status, err.code, err.message, err.headers);
    return err.status;
  }
  const status = isFloeError(err) ? (STATUS[err.code] ?? 500) : 500;
  if (status === 500) (onServerError ?? console.error)(err);
  sendError(res, status, isFloeError(err) ? err.code : 'INTERNAL', status === 500 ? 'the server failed to answer the query' : (err as Error).message);
  return status;
}
