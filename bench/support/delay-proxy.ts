// A loopback HTTP proxy for bench/http-read.ts: adds a fixed delay before forwarding each request
// (a link with that much latency per round trip) and counts requests and answer bytes per phase.
// DELAY_PROXY_LOG=1 prints every request (method, path, Range, If-None-Match) to stderr.
// A reader marks the start of a phase with `GET /__phase/<name>` (answered 204, not counted).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PhaseCount {
  requests: number;
  bytes: number;
  /** Most requests in flight at once (received, not yet answered in full). */
  maxInFlight: number;
  /** Requests per key class (see `classify`). */
  byClass: Record<string, number>;
}

export interface DelayProxy {
  readonly url: string;
  readonly phases: Map<string, PhaseCount>;
  close(): Promise<void>;
}

/** A key's class: the repository's objects by folder, plain Zarr metadata and chunks. */
export function classify(path: string): string {
  const key = path.split('?')[0]!;
  if (/\/repo$/.test(key)) return 'repo';
  if (key.endsWith('/config.yaml')) return 'config';
  for (const folder of ['snapshots', 'manifests', 'transactions', 'chunks', 'refs']) if (key.includes(`/${folder}/`)) return folder;
  if (key.endsWith('zarr.json') || key.endsWith('.zmetadata')) return 'zarr-metadata';
  return 'zarr-chunks';
}

export async function startDelayProxy(target: string, delayMs: number): Promise<DelayProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const phases = new Map<string, PhaseCount>();
  let current: PhaseCount = { requests: 0, bytes: 0, maxInFlight: 0, byClass: {} };
  phases.set('(none)', current);
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const marker = /^\/__phase\/(.+)$/.exec(req.url ?? '');
    if (marker) {
      current = { requests: 0, bytes: 0, maxInFlight: 0, byClass: {} };
      phases.set(decodeURIComponent(marker[1]!), current);
      res.writeHead(204).end();
      return;
    }
    if (process.env['DELAY_PROXY_LOG']) console.error(`${req.method} ${req.url} ${req.headers.range ?? ''} ${req.headers['if-none-match'] ?? ''}`);
    const count = current;
    count.requests += 1;
    inFlight += 1;
    count.maxInFlight = Math.max(count.maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    const cls = req.method === 'OPTIONS' ? '(preflight)' : classify(req.url ?? ''); // a browser's CORS preflight
    count.byClass[cls] = (count.byClass[cls] ?? 0) + 1;
    setTimeout(() => {
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => (count.bytes += chunk.length));
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    }, delayMs);
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    phases,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
