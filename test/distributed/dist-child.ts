// A process of the distributed-write tests (bundled with esbuild, test/support/bundled-worker.ts):
// a worker or a coordinator on a local-filesystem repository. Argument: one JSON object (Job
// below). Prints one JSON line per event on stdout; a coordinator prints its result or error last.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { distributedWrite, runWorker } from '../../src/distributed/index.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { STALE_OFFSET, writeChunks, type ChunkTask } from './tasks.ts';

/** A repository on the S3 gateway instead of a directory. */
export interface S3Repo {
  endpoint: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}

interface Job {
  mode: 'worker' | 'coordinator';
  repo: string | S3Repo;
  redis: string;
  queue: string;
  name?: string;
  /** Worker: ms each task takes, spread over its chunks. */
  taskMs?: number;
  /** Worker: block the event loop this long in the first attempt of each task (marker files in stallDir). */
  stallMs?: number;
  stallDir?: string;
  settings?: { lockDurationMs: number; stalledIntervalMs: number; maxStalledCount: number };
  /** Coordinator: the write. */
  writeId?: string;
  branch?: string;
  tasks?: ChunkTask[];
  /** Coordinator: SIGKILL itself at this progress phase (`task-done:N`: when N tasks are done). */
  dieAt?: string;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const line = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
const repository = await Repository.open(typeof job.repo === 'string' ? Storage.newLocalFilesystem(job.repo) : await s3Storage(job.repo));
const queue = { name: job.queue, redis: job.redis };

function s3Storage(s3: S3Repo) {
  return Storage.newS3(s3.bucket, s3.prefix, { type: 'Static', field0: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }, {
    endpointUrl: s3.endpoint, forcePathStyle: true, unquotedIfMatch: true,
  });
}

if (job.mode === 'worker') {
  const worker = await runWorker<ChunkTask>({
    queue, repository, name: job.name ?? `w${process.pid}`, ...(job.settings ? { settings: job.settings } : {}),
    onEvent: (e) => line({ event: e.kind, task: e.task, pid: process.pid, ...(e.fork ? { fork: e.fork } : {}) }),
    async handler(task, fork, { writeId, task: index }) {
      if (job.stallMs && job.stallDir) {
        const marker = path.join(job.stallDir, `${writeId}-${index}`);
        if (!existsSync(marker)) {
          writeFileSync(marker, String(process.pid));
          line({ event: 'stall', task: index, pid: process.pid });
          const until = Date.now() + job.stallMs;
          while (Date.now() < until) {
            // a busy event loop: no lock renewal, no timers
          }
          // This attempt lost its lock: it writes other values, which must never be committed.
          return writeChunks(task, fork, job.taskMs, task.value + STALE_OFFSET);
        }
      }
      return writeChunks(task, fork, job.taskMs);
    },
  });
  line({ event: 'ready', pid: process.pid });
  const stop = () => void worker.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
} else {
  try {
    const result = await distributedWrite(repository, {
      branch: job.branch ?? 'main', queue, tasks: job.tasks ?? [], message: `write ${job.writeId}`, ...(job.writeId ? { writeId: job.writeId } : {}),
      pollIntervalMs: 100, jobs: { attempts: 5, backoffMs: 50 },
      onProgress(p) {
        line({ event: 'progress', phase: p.phase, done: p.tasksDone });
        if (job.dieAt === p.phase || job.dieAt === `${p.phase}:${p.tasksDone}`) process.kill(process.pid, 'SIGKILL');
      },
    });
    line({ result });
  } catch (err) {
    const e = err as { code?: string; message?: string; details?: unknown };
    line({ error: e.code ?? 'none', message: e.message, details: e.details });
  }
  await repository.close();
  process.exit(0);
}
