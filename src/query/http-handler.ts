// The request handling of the query service (http.ts): routes /query and /explain, runs each
// request under its deadline and share of the memory budget, and answers errors as HTTP statuses.
// It loads with a server's first request, so `import 'floe'` does not pay for a server it may
// never start; `floe serve` routes to it directly (cli/serve/repository-server.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isFloeError, type ErrorCode } from '../errors.ts';
import { query, type QueryOptions } from './builder.ts';
import { executePrepared } from './execute/executor.ts';
import { formatPlan } from './explain.ts';
import type { ServerLimitOptions, ServerLimits, TlsOptions } from './http-limits.ts';
import { HttpError, readBody, requestUrl, sendError, unauthorized, type TokenCheck } from './http-request.ts';
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
 * The request listener of {@link createQueryServer}'s server: the token first (401), then the
 * routes. The server's memory budget is made here, with its first request.
 */
export function queryServerListener(source: QuerySource, options: QueryServerOptions, limits: ServerLimits, checkToken: TokenCheck): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = createQueryHandler(source, options, { limits, budget: new MemoryBudget(limits.memoryBudgetBytes) });
  return (req, res) => {
    try {
      const verdict = checkToken(req);
      if (verdict !== 'ok') throw unauthorized(verdict);
      const url = requestUrl(req, limits.maxUrlBytes);
      handle(req, res, url.pathname.slice(1), url);
    } catch (err) {
      answerError(res, err, options.onServerError);
    }
  };
}

/** The query routes of one source, for a server that does its own routing (`floe serve`). */
export function createQueryHandler(source: QuerySource, options: QueryServerOptions, context: QueryServerContext): QueryHandler {
  const { limits } = context;
  const planLimits = { maxChunks: limits.maxChunks, maxResultBytes: limits.maxResultBytes, maxCoordinateLabels: limits.maxCoordinateLabels };
  const prepare = (json: unknown, signal: AbortSignal, admit: (e: PlanEstimate) => Promise<void>, decode: QueryOptions['decode']) => {
    const builder = applyJsonQuery(query(source, options), json);
    // Resolved per request: a session's cache use follows its current state.
    return planQuery(resolveSource(source, options.caches), builder.toOperationNode(), { ...options, limits: planLimits, signal, admit, decode });
  };
  const concurrency = options.concurrency ?? resolveSource(source, options.caches).store.readConcurrency ?? 8;

  const answer = async (req: IncomingMessage, res: ServerResponse, route: string, url: URL, control: RequestControl): Promise<void> => {
    if (route === 'explain') {
      if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use GET /explain?q=<JSON query>', { allow: 'GET' });
      const q = url.searchParams.get('q');
      if (!q) throw new HttpError(400, 'INVALID_ARGUMENT', 'GET /explain needs ?q=<URL-encoded JSON query>');
      const { plan } = await prepare(parseQueryJson(q, limits.maxJsonDepth), control.signal, (e) => control.reserve(planningMemory(e)), requestDecode(url, options.decode));
      return send(res, 200, 'application/json', JSON.stringify({ plan: listedPlan(plan), text: formatPlan(plan) }));
    }
    if (route !== 'query') throw new HttpError(404, 'NOT_FOUND', `no route /${route}; use POST /query or GET /explain`);
    if (req.method !== 'POST') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'use POST /query with a JSON body', { allow: 'POST' });
    const body = await readBody(req, limits.maxBodyBytes);
    const format = answerFormat(req, url);
    const decode = requestDecode(url, options.decode);
    const keepStored = decode === 'cf' && flag(url, 'stored');
    let json = false;
    const prepared: PreparedQuery = await prepare(parseQueryJson(body, limits.maxJsonDepth), control.signal, (e) => {
      json = format === 'json' || keepStored || e.arrays.some((a) => !a.fixedSize) || (format === 'auto' && e.resultBytes <= limits.jsonMaxBytes);
      return control.reserve(queryMemory(e, { concurrency, json }));
    }, decode);
    const { arrays, report } = await executePrepared(prepared, { ...options, decode, keepStored });
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

/** `?decode=cf|none` (docs/serving.md), else the server's default. */
function requestDecode(url: URL, fallback: QueryOptions['decode']): 'cf' | 'none' {
  const decode = url.searchParams.get('decode');
  if (decode === null) return fallback ?? 'none';
  if (decode === 'cf' || decode === 'none') return decode;
  throw new HttpError(400, 'INVALID_ARGUMENT', `decode=${decode}: use decode=cf (physical values) or decode=none (stored values)`);
}

/** A yes/no query parameter: `1`/`true` or `0`/`false` (absent: no). */
function flag(url: URL, name: string): boolean {
  const value = url.searchParams.get(name);
  if (value === null || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true' || value === '') return true;
  throw new HttpError(400, 'INVALID_ARGUMENT', `${name}=${value}: use ${name}=1 or ${name}=0`);
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
