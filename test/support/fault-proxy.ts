// A fault-injecting HTTP proxy on loopback, between Floe and a real server (the Ceph gateway).
// Each request gets a fault or none from a seeded generator, in arrival order, so a failing run
// names its seed and the log of what was done to which request:
//   - 'slowdown': answered `503 SlowDown` without being passed on (a throttling gateway);
//   - 'drop-after': passed on, the server's answer read in full, then the connection cut, so the
//     server applied the request and the client never learns it (a lost answer).
// Requests are forwarded byte for byte with their Host header, so SigV4 signatures still hold.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../src/format/seeded-random.ts';

export type ProxyFault = 'slowdown' | 'drop-after';

export interface FaultProxyOptions {
  /** The real server, `http://127.0.0.1:port`. */
  target: string;
  seed: number;
  /** Probability of each fault per request. */
  rates: Partial<Record<ProxyFault, number>>;
  /** Scales the rates for some requests (e.g. more faults on chunk writes). Default 1. */
  weight?: (method: string, path: string) => number;
}

export interface ProxyLogEntry {
  n: number;
  method: string;
  path: string;
  fault: ProxyFault | 'none';
  status?: number;
}

export interface FaultProxy {
  readonly url: string;
  /** Requests seen, and faults injected by kind. */
  readonly counts: { requests: number } & Record<ProxyFault, number>;
  /** Faulted requests, in order (with the seed, enough to read what happened to a key). */
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

const SLOWDOWN_BODY = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';
// Hop-by-hop headers, and Expect (not signed by SigV4): the proxy answers 100-continue itself.
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'expect']);
const FORWARD_TIMEOUT_MS = 60_000;

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = seededRandom(options.seed);
  const target = new URL(options.target);
  const counts = { requests: 0, slowdown: 0, 'drop-after': 0 };
  const log: ProxyLogEntry[] = [];
  const upstream = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const choose = (method: string, path: string): ProxyFault | 'none' => {
    const draw = random();
    const weight = options.weight?.(method, path) ?? 1;
    let edge = 0;
    for (const fault of ['slowdown', 'drop-after'] as const) {
      edge += (options.rates[fault] ?? 0) * weight;
      if (draw < edge) return fault;
    }
    return 'none';
  };

  const server = http.createServer((req, res) => {
    const n = ++counts.requests;
    const fault = choose(req.method ?? '', req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const entry: ProxyLogEntry = { n, method: req.method ?? '', path: req.url ?? '', fault };
      if (fault !== 'none') {
        counts[fault] += 1;
        log.push(entry);
      }
      if (fault === 'slowdown') {
        res.writeHead(503, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(SLOWDOWN_BODY) });
        res.end(req.method === 'HEAD' ? undefined : SLOWDOWN_BODY);
        return;
      }
      forward(req, Buffer.concat(chunks), (status, headers, body) => {
        entry.status = status;
        if (fault === 'drop-after') {
          res.socket?.destroy(); // applied upstream; the answer never reaches the client
          return;
        }
        res.writeHead(status, headers);
        res.end(body);
      }, () => res.destroy());
    });
  });

  function forward(
    req: http.IncomingMessage, body: Buffer,
    answer: (status: number, headers: http.OutgoingHttpHeaders, body: Buffer) => void, fail: () => void,
  ): void {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!NOT_FORWARDED.has(name) && value !== undefined) headers[name] = value;
    if (body.length > 0 || req.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
    const out = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: upstream, timeout: FORWARD_TIMEOUT_MS,
    }, (reply) => {
      const parts: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => parts.push(chunk));
      reply.on('end', () => {
        const replyHeaders: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(reply.headers)) if (!NOT_FORWARDED.has(name) && value !== undefined) replyHeaders[name] = value;
        answer(reply.statusCode ?? 502, replyHeaders, Buffer.concat(parts));
      });
      reply.on('error', fail);
    });
    out.on('timeout', () => out.destroy(new Error('upstream timed out')));
    out.on('error', fail);
    out.end(body);
  }

  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    log,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      upstream.destroy();
    },
  };
}
