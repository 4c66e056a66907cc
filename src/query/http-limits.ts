// Every limit of the query server and `floe serve`, in one table: its default and what it bounds.
// `floe serve` makes a flag of each (maxResultBytes -> --max-result-bytes) and docs/serving.md
// lists them (a test checks both against this table). The node:http (or node:https) server is
// made here with the connection limits and timeouts applied, so no server Floe starts has
// Node's defaults (no idle timeout, 60 s for headers, checked only every 30 s).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { floeError } from '../errors.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Each limit's default and meaning (docs/serving.md repeats them). */
export const SERVER_LIMITS = {
  maxResultBytes: { default: 256 * MiB, doc: 'result size in memory one query may return (413 past it)' },
  maxChunks: { default: 100_000, doc: 'chunks (inner chunks of shards), and boxes, one query may touch (413)' },
  maxCoordinateLabels: { default: 10_000_000, doc: 'labels of a coordinate array read to resolve labels (413)' },
  memoryBudgetBytes: { default: 512 * MiB, doc: 'memory all requests together may reserve; one request over it gets 413' },
  queueTimeoutMs: { default: 2_000, doc: 'how long a request waits for memory before 503 with Retry-After' },
  timeoutMs: { default: 30_000, doc: 'time one query may take (504; the query is aborted)' },
  jsonMaxBytes: { default: 64 * KiB, doc: 'results up to this size go as JSON unless binary is asked for' },
  maxBodyBytes: { default: 1 * MiB, doc: 'request body size (413)' },
  maxUrlBytes: { default: 8 * KiB, doc: 'request URL length (414)' },
  maxHeaderBytes: { default: 16 * KiB, doc: 'request line and headers together (431, by Node)' },
  maxJsonDepth: { default: 32, doc: 'nesting depth of a query\'s JSON (400)' },
  headersTimeoutMs: { default: 10_000, doc: 'time to receive a request\'s headers (408, then the connection closes)' },
  requestTimeoutMs: { default: 30_000, doc: 'time to receive a whole request, body included (408)' },
  keepAliveTimeoutMs: { default: 5_000, doc: 'how long an idle keep-alive connection stays open' },
  idleTimeoutMs: { default: 120_000, doc: 'a socket with no traffic either way this long is closed' },
  maxConnections: { default: 256, doc: 'open connections; more are closed on arrival' },
} as const satisfies Record<string, { readonly default: number; readonly doc: string }>;

export type ServerLimitName = keyof typeof SERVER_LIMITS;
export type ServerLimits = { readonly [K in ServerLimitName]: number };

/** Server limits as options: each optional, `undefined` meaning the default. */
export type ServerLimitOptions = { readonly [K in ServerLimitName]?: number | undefined };

/** Limits that must be at least 1 (a zero would refuse everything or disable the guard). */
const POSITIVE: ReadonlySet<ServerLimitName> = new Set(['maxConnections', 'maxJsonDepth', 'maxUrlBytes', 'maxHeaderBytes', 'headersTimeoutMs', 'requestTimeoutMs', 'idleTimeoutMs', 'timeoutMs', 'memoryBudgetBytes']);

export function resolveServerLimits(options: ServerLimitOptions): ServerLimits {
  const out = {} as Record<ServerLimitName, number>;
  for (const name of Object.keys(SERVER_LIMITS) as ServerLimitName[]) {
    const value = options[name] ?? SERVER_LIMITS[name].default;
    const least = POSITIVE.has(name) ? 1 : 0;
    if (!Number.isSafeInteger(value) || value < least) {
      throw floeError('INVALID_ARGUMENT', `server limit ${name} must be a whole number of at least ${least}, got ${String(value)}`);
    }
    out[name] = value;
  }
  if (out.headersTimeoutMs > out.requestTimeoutMs) {
    throw floeError('INVALID_ARGUMENT', `headersTimeoutMs (${out.headersTimeoutMs}) must not exceed requestTimeoutMs (${out.requestTimeoutMs}): headers are part of the request`);
  }
  if (out.idleTimeoutMs <= out.timeoutMs) {
    throw floeError('INVALID_ARGUMENT', `idleTimeoutMs (${out.idleTimeoutMs}) must exceed timeoutMs (${out.timeoutMs}): a socket is silent while its query runs`);
  }
  return out;
}

/** A certificate and key (PEM) make the server HTTPS. */
export interface TlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** node:http's server, or node:https's (the same API: listen, close, address, connection events). */
export type AnyServer = Server | HttpsServer;

/** A node:http or node:https server with the limits' timeouts and connection cap applied. */
export function createLimitedServer(handler: Handler, limits: ServerLimits, tls?: TlsOptions): AnyServer {
  const options: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // Node checks the two timeouts above only this often (default 30 s, which let a slow client hold a socket that long).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  // A TLS handshake comes before any header: it gets the headers' time (Node's default is 120 s).
  const server: AnyServer = tls
    ? createHttpsServer({ ...options, cert: tls.cert, key: tls.key, handshakeTimeout: limits.headersTimeoutMs }, handler)
    : createHttpServer(options, handler);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // No 'timeout' listener: Node destroys a socket idle this long.
  server.setTimeout(limits.idleTimeoutMs);
  return server;
}

/** The server's base URL once listening (IPv6 hosts bracketed). */
export function baseUrl(server: AnyServer, host: string, tls: boolean): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
