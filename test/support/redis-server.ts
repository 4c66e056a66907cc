// A Redis server of the test's own (issue 32): Debian's redis-server on a free loopback port, in a
// temporary directory, stopped by its pid. Settings the distributed writes rely on: an append-only
// file with `appendfsync always` (every write is on disk before Redis answers, so a Redis killed
// and restarted forgets no job state it acknowledged), `maxmemory-policy noeviction` (BullMQ's keys
// are never evicted; a full Redis refuses writes instead), no RDB snapshots.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly pid: number;
  /** Kills the server (SIGKILL: no shutdown save) and starts it again on the same port and files. */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

export const REDIS_SETTINGS = ['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--save', ''];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--protected-mode', 'yes', '--daemonize', 'no', ...REDIS_SETTINGS], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start in 15 s:\n${log}`));
    }, 15_000);
    const onData = (d: Buffer) => {
      log += d.toString();
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${log}`));
    });
  });
}

function killAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(child.pid!, signal);
  });
}

/** Starts a redis-server for one test file; stop it in afterAll. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  for (let tries = 0; !child; tries++) {
    port = await freePort();
    try {
      child = await launch(port, dir);
    } catch (err) {
      if (tries >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  let current: ChildProcess = child;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get pid() {
      return current.pid!;
    },
    async restart({ downMs = 0 } = {}) {
      await killAndWait(current, 'SIGKILL');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      current = await launch(port, dir);
    },
    async stop() {
      await killAndWait(current, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
