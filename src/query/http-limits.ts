// Every limit of the query server and `floe serve`, in one table: its default and what it bounds.
// `floe serve` makes a flag of each (maxResultBytes -> --max-result-bytes) and docs/serving.md
// lists them (a test checks both against this table). The node:http (or node:https) server is
// made here with the connection limits and timeouts applied, so no server Floe starts has
// Node's defaults (no idle timeout, 60 s for headers, checked only every 30 s).
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createRequire } from 'node:module';
import { floeError } from '../errors.ts';

// node:https (and with it node:tls) loads only when a server asks for TLS, not on `import 'floe'`.
const loadHttps = (): typeof import('node:https') => createRequire(import.meta.url)('node:https') as typeof import('node:https');
// node:http too (~130 KB of heap): `import 'floe'` should not load it for a process that never serves.
const loadHttp = (): typeof import('node:http') => createRequire(import.meta.url)('node:http') as typeof import('node:http');

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The limits of a query server or `floe serve`, each optional (`undefined` means the default).
 * docs/serving.md explains them; `floe serve` takes each as a flag (`--max-result-bytes`, ...).
 */
export interface ServerLimitOptions {
  /** Result size in memory one query may return (413 past it). Default 256 MiB. */
  readonly maxResultBytes?: number | undefined;
  /** Chunks (inner chunks of shards), and boxes, one query may touch (413). Default 100,000. */
  readonly maxChunks?: number | undefined;
  /** Labels of a coordinate array read to resolve labels (413). Default 10,000,000. */
  readonly maxCoordinateLabels?: number | undefined;
  /** Memory all requests together may reserve; one request estimated above it gets 413. Default 512 MiB. */
  readonly memoryBudgetBytes?: number | undefined;
  /** How long a request waits for memory before 503 with Retry-After. Default 2,000 ms. */
  readonly queueTimeoutMs?: number | undefined;
  /** Time one query may take (504; the query is aborted). Default 30,000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Results up to this size go as JSON unless binary is asked for. Default 64 KiB. */
  readonly jsonMaxBytes?: number | undefined;
  /** Request body size (413). Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /** Request URL length (414). Default 8 KiB. */
  readonly maxUrlBytes?: number | undefined;
  /** Request line and headers together (431, answered by Node). Default 16 KiB. */
  readonly maxHeaderBytes?: number | undefined;
  /** Nesting depth of a query's JSON (400). Default 32. */
  readonly maxJsonDepth?: number | undefined;
  /** Time to receive a request's headers, and a TLS handshake (408). Default 10,000 ms. */
  readonly headersTimeoutMs?: number | undefined;
  /** Time to receive a whole request, body included (408). Default 30,000 ms. */
  readonly requestTimeoutMs?: number | undefined;
  /** How long an idle keep-alive connection stays open. Default 5,000 ms. */
  readonly keepAliveTimeoutMs?: number | undefined;
  /** A socket with no traffic either way this long is closed (Node checks lazily: up to twice this). Default 120,000 ms. */
  readonly idleTimeoutMs?: number | undefined;
  /** Open connections; more are closed on arrival. Default 256. */
  readonly maxConnections?: number | undefined;
}

export type ServerLimitName = keyof ServerLimitOptions;
export type ServerLimits = { readonly [K in ServerLimitName]: number };

/** Each limit's default and meaning, for `floe serve --help` (docs/serving.md repeats them; a test checks). */
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
  headersTimeoutMs: { default: 10_000, doc: 'time to receive a request\'s headers or a TLS handshake (408, then the connection closes)' },
  requestTimeoutMs: { default: 30_000, doc: 'time to receive a whole request, body included (408)' },
  keepAliveTimeoutMs: { default: 5_000, doc: 'how long an idle keep-alive connection stays open' },
  idleTimeoutMs: { default: 120_000, doc: 'a socket with no traffic either way this long is closed (checked lazily: up to twice this)' },
  maxConnections: { default: 256, doc: 'open connections; more are closed on arrival' },
} as const satisfies { readonly [K in ServerLimitName]-?: { readonly default: number; readonly doc: string } };

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
  // Defaults follow the limits they depend on when only those were given.
  if (options.requestTimeoutMs === undefined) out.requestTimeoutMs = Math.max(out.requestTimeoutMs, out.headersTimeoutMs);
  if (options.idleTimeoutMs === undefined) out.idleTimeoutMs = Math.max(out.idleTimeoutMs, out.timeoutMs + 1_000);
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
  /** The certificate chain, PEM. */
  readonly cert: string | Buffer;
  /** The private key, PEM. */
  readonly key: string | Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The server a query server runs on: node:http's, or node:https's with `tls` (the same API: listen, close, address, events). */
export type NodeServer = Server | HttpsServer;

/** A node:http or node:https server with the limits' timeouts and connection cap applied. */
export function createLimitedServer(handler: Handler, limits: ServerLimits, tls?: TlsOptions): NodeServer {
  const options: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // Node checks the two timeouts above only this often (default 30 s, which let a slow client hold a socket that long).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  // A TLS handshake comes before any header: it gets the headers' time (Node's default is 120 s).
  const server: NodeServer = tls
    ? loadHttps().createServer({ ...options, cert: tls.cert, key: tls.key, handshakeTimeout: limits.headersTimeoutMs }, handler)
    : loadHttp().createServer(options, handler);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // No 'timeout' listener: Node destroys a socket idle this long.
  server.setTimeout(limits.idleTimeoutMs);
  return server;
}

/** The server's base URL once listening (IPv6 hosts bracketed). */
/** Starts `server` on `host:port` (0: any free port) and resolves with its base URL. */
export function listenOn(server: NodeServer, port: number, host: string, tls: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(baseUrl(server, host, tls)));
  });
}

function baseUrl(server: NodeServer, host: string, tls: boolean): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
