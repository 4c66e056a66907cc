// A fault-injecting HTTP proxy on loopback, between Floe and a real server (the Ceph gateway).
// Each request gets a fault or none from a seeded generator, in arrival order (two draws per
// request, whatever it gets), so a failing run names its seed and the log of what was done to
// which request:
//   - 'slowdown': answered `503 SlowDown` without being passed on (a throttling gateway);
//   - 'drop-after': passed on, the server's answer read in full, then the connection cut, so the
//     server applied the request and the client never learns it (a lost answer);
//   - 'delay': passed on after a wait of up to `maxDelayMs` (a slow link: the client may time out
//     and retry while the first request is still on its way);
//   - 'reset-mid-body': passed on, then the answer's headers and half its body sent and the
//     connection reset (an empty body: reset after the headers);
//   - 'burst': this request and the next 1-4 answered 500 InternalError or 503 ServiceUnavailable
//     (one of the two per burst) without being passed on (a gateway restarting);
//   - 'duplicate': passed on twice, one after the other, and answered with the second answer
//     (a network that repeats a request: a conditional write then sees its own first copy as
//     someone else's, 412).
// Requests are forwarded byte for byte with their Host header, so SigV4 signatures still hold.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../src/format/seeded-random.ts';

export const PROXY_FAULTS = ['slowdown', 'drop-after', 'delay', 'reset-mid-body', 'burst', 'duplicate'] as const;
export type ProxyFault = (typeof PROXY_FAULTS)[number];

export interface FaultProxyOptions {
  /** The real server, `http://127.0.0.1:port`. */
  target: string;
  seed: number;
  /** Probability of each fault per request. */
  rates: Partial<Record<ProxyFault, number>>;
  /** Scales the rates for some requests (e.g. more faults on chunk writes). Default 1. */
  weight?: (method: string, path: string) => number;
  /** Longest 'delay'. Default 2 000 ms. */
  maxDelayMs?: number;
}

export interface ProxyLogEntry {
  n: number;
  method: string;
  path: string;
  fault: ProxyFault | 'none' | 'in-burst';
  status?: number;
  /** 'delay': the wait; 'burst': its length; 'in-burst': the status sent. */
  detail?: number;
}

export interface FaultProxy {
  readonly url: string;
  /** Requests seen, and faults injected by kind. */
  readonly counts: { requests: number; 'in-burst': number } & Record<ProxyFault, number>;
  /** Faulted requests, in order (with the seed, enough to read what happened to a key). */
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

function sendError(res: http.ServerResponse, req: http.IncomingMessage, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Sends the headers (with the full length) and half the body, then resets the connection. */
function resetMidBody(res: http.ServerResponse, status: number, headers: http.OutgoingHttpHeaders, body: Buffer): void {
  res.writeHead(status, { ...headers, 'content-length': body.length });
  res.flushHeaders();
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.resetAndDestroy());
}
// Hop-by-hop headers, and Expect (not signed by SigV4): the proxy answers 100-continue itself.
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'expect']);
const FORWARD_TIMEOUT_MS = 60_000;

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = seededRandom(options.seed);
  const target = new URL(options.target);
  const counts = { requests: 0, 'in-burst': 0, ...Object.fromEntries(PROXY_FAULTS.map((f) => [f, 0])) } as FaultProxy['counts'];
  const log: ProxyLogEntry[] = [];
  const upstream = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const maxDelayMs = options.maxDelayMs ?? 2_000;
  let burst = { left: 0, status: 500 };

  /** The fault of the next request and its parameter: always two draws, so the schedule depends on arrival order only. */
  const choose = (method: string, path: string): { fault: ProxyFault | 'none' | 'in-burst'; detail?: number } => {
    const draw = random();
    const parameter = random();
    if (burst.left > 0) {
      burst.left -= 1;
      return { fault: 'in-burst', detail: burst.status };
    }
    const weight = options.weight?.(method, path) ?? 1;
    let edge = 0;
    for (const fault of PROXY_FAULTS) {
      edge += (options.rates[fault] ?? 0) * weight;
      if (draw >= edge) continue;
      if (fault === 'delay') return { fault, detail: Math.round(parameter * maxDelayMs) };
      if (fault === 'burst') {
        const length = 2 + Math.floor(parameter * 4);
        burst = { left: length - 1, status: parameter * 4 % 1 < 0.5 ? 500 : 503 };
        return { fault, detail: length };
      }
      return { fault };
    }
    return { fault: 'none' };
  };

  const server = http.createServer((req, res) => {
    const n = ++counts.requests;
    const { fault, detail } = choose(req.method ?? '', req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const entry: ProxyLogEntry = { n, method: req.method ?? '', path: req.url ?? '', fault, ...(detail !== undefined ? { detail } : {}) };
      if (fault !== 'none') {
        counts[fault] += 1;
        log.push(entry);
      }
      if (fault === 'slowdown') return sendError(res, req, 503, 'SlowDown', 'Please reduce your request rate.');
      if (fault === 'in-burst' || fault === 'burst') {
        const status = fault === 'burst' ? burst.status : detail!;
        return sendError(res, req, status, status === 500 ? 'InternalError' : 'ServiceUnavailable', 'injected burst');
      }
      const body = Buffer.concat(chunks);
      const fail = () => res.destroy();
      const reply = (status: number, headers: http.OutgoingHttpHeaders, answer: Buffer) => {
        entry.status = status;
        if (fault === 'drop-after') {
          res.socket?.destroy(); // applied upstream; the answer never reaches the client
          return;
        }
        if (fault === 'reset-mid-body') return resetMidBody(res, status, headers, answer);
        res.writeHead(status, headers);
        res.end(answer);
      };
      if (fault === 'delay') setTimeout(() => forward(req, body, reply, fail), detail);
      else if (fault === 'duplicate') forward(req, body, () => forward(req, body, reply, fail), fail);
      else forward(req, body, reply, fail);
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
