// Processes of the distributed-write tests: workers and coordinators (dist-child.ts, bundled once
// per test file), their JSON lines, and kills by pid. Every process started is stopped in `stopAll`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { Repository, Storage } from '../../src/txn/index.ts';
import { bundledWorker } from '../support/bundled-worker.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import type { S3Repo } from './dist-child.ts';
import { createTarget, type ChunkTask } from './tasks.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const childBundle = bundledWorker(path.join(here, 'dist-child.ts'), 'floe-distributed-test');

/** Lock settings of the tests' workers: short, so a killed worker's job returns within ~1.5 s. */
export const TEST_SETTINGS = { lockDurationMs: 1000, stalledIntervalMs: 300, maxStalledCount: 100 };

export interface Line {
  event?: string;
  task?: number;
  pid?: number;
  phase?: string;
  done?: number;
  fork?: string;
  result?: { writeId: string; snapshotId: string; alreadyCommitted: boolean; resumed: boolean; tasks: unknown[]; bytesWritten: number; cleanedUp: boolean };
  error?: string;
  message?: string;
}

export class Child {
  readonly lines: Line[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private waiters: { test: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];

  constructor(readonly process: ChildProcess) {
    let buffer = '';
    process.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let parsed: Line;
        try {
          parsed = JSON.parse(text) as Line;
        } catch {
          continue;
        }
        this.lines.push(parsed);
        this.waiters = this.waiters.filter((w) => (w.test(parsed) ? (w.resolve(parsed), false) : true));
      }
    });
    process.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => process.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.process.pid!;
  }
  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The first line (seen or to come) that passes `test`; rejects after `ms`. */
  waitFor(test: (l: Line) => boolean, ms = 30_000): Promise<Line> {
    const seen = this.lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching line from pid ${this.pid} in ${ms} ms; stderr: ${this.stderr.slice(-2000)}`)), ms);
      this.waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.alive) return;
    process.kill(this.pid, signal);
    await this.exited;
  }
}

const started = new Set<Child>();

function start(job: Record<string, unknown>): Child {
  const child = new Child(spawn(process.execPath, ['--no-warnings', childBundle.path, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] }));
  started.add(child);
  void child.exited.then(() => started.delete(child));
  return child;
}

export interface Where {
  /** A directory, or a repository on the S3 gateway. */
  repo: string | S3Repo;
  redis: string;
  queue: string;
}

type WorkerExtra = { taskMs?: number; stallMs?: number; stallDir?: string; name?: string };

/** A worker process, once it is ready. */
export async function startWorker(where: Where, extra: WorkerExtra = {}): Promise<Child> {
  const child = launchWorker(where, extra);
  await child.waitFor((l) => l.event === 'ready');
  return child;
}

/** A worker process, not waiting for it to be ready. */
export function launchWorker(where: Where, extra: WorkerExtra = {}): Child {
  return start({ mode: 'worker', ...where, settings: TEST_SETTINGS, ...extra });
}

export function startCoordinator(where: Where, write: { writeId: string; tasks: ChunkTask[]; branch?: string; dieAt?: string }): Child {
  return start({ mode: 'coordinator', ...where, ...write });
}

/** The coordinator's last line: its result or its error. */
export async function outcome(child: Child, ms = 60_000): Promise<Line> {
  return child.waitFor((l) => l.result !== undefined || l.error !== undefined, ms);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((c) => c.kill('SIGKILL')));
}

/** What a test file of distributed writes shares: its Redis, its scratch directory and fresh repositories. */
export interface DistributedSuite {
  readonly redis: RedisServer;
  readonly scratch: string;
  /** A new repository (with the target array of `chunks` chunks) and a queue of its own. */
  fresh(chunks: number): Promise<{ where: Where; repo: Repository; base: string }>;
}

/**
 * Registers the file's hooks: Redis and the child bundle start before its tests; every process,
 * Redis, the bundle and the scratch directory (`prefix`…) are removed after them.
 */
export function distributedSuite(prefix: string): DistributedSuite {
  const scratch = mkdtempSync(path.join(tmpdir(), prefix));
  let redis: RedisServer | undefined;
  let repos = 0;
  beforeAll(async () => {
    [redis] = await Promise.all([startRedis(), childBundle.build()]);
  });
  afterAll(async () => {
    await stopAll();
    await redis?.stop();
    childBundle.remove();
    rmSync(scratch, { recursive: true, force: true });
  });
  const suite: DistributedSuite = {
    get redis() {
      if (!redis) throw new Error('Redis is started by the suite\'s beforeAll');
      return redis;
    },
    scratch,
    async fresh(chunks) {
      const dir = path.join(scratch, `r${repos++}`);
      const repo = await Repository.create(Storage.newLocalFilesystem(dir));
      const base = await createTarget(repo, chunks);
      return { where: { repo: dir, redis: suite.redis.url, queue: `q${repos}` }, repo, base };
    },
  };
  return suite;
}
