// Static web servers on loopback for the HTTP storage tests (issue 30), each serving a directory:
//   - Debian's nginx (/usr/sbin/nginx), configured as docs/web.md tells a publisher to: Range and
//     ETags (nginx's defaults), CORS for GET/HEAD/OPTIONS with `Range` allowed and the range
//     headers exposed, `Cache-Control: no-cache` for the repo info file `repo`, long caching for
//     everything else. One process (`master_process off`), its prefix, pid file, logs and temp
//     paths in a temp dir;
//   - `python3 -m http.server`, which ignores Range (every GET is answered 200 with the whole file).
// Both are started on a free port with a bounded wait and stopped by their pid; `close()` removes
// what they made.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const NGINX = '/usr/sbin/nginx';
const START_WAIT_MS = 10_000;
const STOP_WAIT_MS = 5_000;

export interface StaticHost {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** What the server wrote to its error log / stderr so far (for failure messages). */
  log(): string;
  /** nginx: its access log so far, one line per request (`METHOD URI STATUS BYTES RANGE`), for request counts. */
  accessLog?(): string;
  close(): Promise<void>;
}

/** A loopback port free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port from the loopback listener');
  return address.port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until `port` accepts a connection, the child exits (throws) or START_WAIT_MS passes (throws). */
async function waitForPort(child: ChildProcess, port: number, what: string, log: () => string): Promise<void> {
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before listening: ${log()}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on ${port} within ${START_WAIT_MS} ms: ${log()}`);
}

/** SIGTERM to the child's pid, SIGKILL if it has not exited within STOP_WAIT_MS. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }, STOP_WAIT_MS);
  await exited;
  clearTimeout(timer);
}

async function startChild(command: string, args: string[], port: number, what: string, log: () => string, cleanup: () => void): Promise<StaticHost & { child: ChildProcess }> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const allLogs = () => `${stderr}${log()}`;
  try {
    await waitForPort(child, port, what, allLogs);
  } catch (err) {
    await stopChild(child);
    cleanup();
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`, port, pid: child.pid!, child, log: allLogs,
    async close() {
      await stopChild(child);
      cleanup();
    },
  };
}

/**
 * The nginx `server { … }` block the tests serve with: the one docs/web.md recommends, on
 * `port` with `root`. CORS answers preflights at the server level so every location keeps them.
 */
export function nginxServerBlock(root: string, port: number): string {
  return `server {
    listen 127.0.0.1:${port};
    root ${root};
    sendfile on;
    etag on;
    set $floe_cache "public, max-age=31536000, immutable";
    if ($uri ~ "(^|/)repo$") { set $floe_cache "no-cache"; }
    add_header Cache-Control $floe_cache;
    add_header Access-Control-Allow-Origin "*" always;
    add_header Access-Control-Allow-Methods "GET, HEAD, OPTIONS" always;
    add_header Access-Control-Allow-Headers "Range, If-None-Match, Authorization" always;
    add_header Access-Control-Expose-Headers "ETag, Content-Range, Content-Length, Accept-Ranges" always;
    add_header Access-Control-Max-Age 86400 always;
    if ($request_method = OPTIONS) { return 204; }
    location / { try_files $uri =404; }
}`;
}

/**
 * Starts nginx serving `root` on a free loopback port. `serverBlock(root, port)` replaces the
 * default server block (the docs test runs the doc's own).
 */
export async function startNginx(root: string, serverBlock: (root: string, port: number) => string = nginxServerBlock): Promise<StaticHost> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'floe-nginx-'));
  const port = await freePort();
  const errorLog = path.join(prefix, 'error.log');
  const config = `daemon off;
master_process off;
worker_processes 1;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 4096; }
http {
    log_format floe '$request_method $uri $status $body_bytes_sent "$http_range"';
    access_log ${path.join(prefix, 'access.log')} floe;
    client_body_temp_path ${path.join(prefix, 'body')};
    proxy_temp_path ${path.join(prefix, 'proxy')};
    fastcgi_temp_path ${path.join(prefix, 'fastcgi')};
    uwsgi_temp_path ${path.join(prefix, 'uwsgi')};
    scgi_temp_path ${path.join(prefix, 'scgi')};
    types { application/json json; text/plain txt; }
    default_type application/octet-stream;
${serverBlock(root, port)}
}
`;
  const configFile = path.join(prefix, 'nginx.conf');
  writeFileSync(configFile, config);
  const log = () => {
    try {
      return readFileSync(errorLog, 'utf8').slice(-4000);
    } catch {
      return '';
    }
  };
  const host = await startChild(NGINX, ['-p', prefix, '-e', errorLog, '-c', configFile], port, 'nginx', log, () => rmSync(prefix, { recursive: true, force: true }));
  return {
    ...host,
    close: () => host.close(),
    accessLog() {
      try {
        return readFileSync(path.join(prefix, 'access.log'), 'utf8');
      } catch {
        return '';
      }
    },
  };
}

/** Starts `python3 -m http.server` serving `root` on a free loopback port (it ignores Range). */
export async function startPythonHttpServer(root: string): Promise<StaticHost> {
  const port = await freePort();
  return startChild('/usr/bin/python3', ['-m', 'http.server', '--bind', '127.0.0.1', String(port), '--directory', root], port, 'python3 -m http.server', () => '', () => undefined);
}
