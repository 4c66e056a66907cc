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
// This module only checks the options and makes the server; the request handling
// (http-handler.ts) loads with the first request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLimitedServer, listenOn, resolveServerLimits, type NodeServer } from './http-limits.ts';
import type { QueryServerOptions } from './http-handler.ts';
import { bearerTokenCheck, sendError } from './http-request.ts';
import type { QuerySource } from './source.ts';

export type { QueryServerOptions } from './http-handler.ts';

/** The HTTP query service {@link createQueryServer} returns. */
export interface QueryServer {
  readonly server: NodeServer;
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:41234. Port 0 picks one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections, closes open ones; resolves when the server has closed. */
  close(): Promise<void>;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * An HTTP query service (node:http, or node:https with `tls`) over a store or session:
 * `POST /query` with a JSON query answers JSON or the binary result form, `GET /explain?q=...`
 * the plan. Limits (docs/serving.md): 413 over `maxResultBytes`/`maxChunks` (counted before any
 * work), 503 while the memory budget is spent, 504 past `timeoutMs`; bad queries 400 (404 for a
 * missing array or label). Call `listen()` to start it (loopback by default).
 */
export function createQueryServer(source: QuerySource, options: QueryServerOptions = {}): QueryServer {
  // Bad options fail here, at once; only the handling of requests waits for the first one.
  const limits = resolveServerLimits(options);
  const checkToken = bearerTokenCheck(options.token);
  let loading: Promise<Listener> | undefined;
  let listener: Listener | undefined;
  const server = createLimitedServer((req, res) => {
    if (listener) return listener(req, res);
    loading ??= import('./http-handler.ts').then((m) => (listener = m.queryServerListener(source, options, limits, checkToken)));
    void loading.then(
      (ready) => ready(req, res),
      (err: unknown) => {
        (options.onServerError ?? console.error)(err);
        sendError(res, 500, 'INTERNAL', 'the server failed to answer the query');
      },
    );
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
