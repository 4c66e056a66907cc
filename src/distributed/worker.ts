// A worker of distributed writes: takes a task's job from BullMQ, revives the write's empty fork,
// lets the caller's handler write into it, writes the fork's last pack of small chunks, stores the
// fork (its JSON: chunk references, not bytes) in the repository's storage under a key of its own
// attempt, and completes the job with that key. Redis carries only keys, never fork JSON.
//
// Two attempts of one task may run at once (the first one's lock expired while its event loop was
// blocked): each stores its fork under its own key, and BullMQ completes the job for the one that
// still holds the lock, so the job's result names exactly one fork. The other's chunks and fork
// are garbage (docs/distributed.md).
import { randomUUID } from 'node:crypto';
import { floeError, isFloeError } from '../errors.ts';
import type { Repository } from '../txn/repository.ts';
import { Session } from '../txn/session.ts';
import { stringifyJson, type JsonValue } from '../format/json.ts';
import type { ForkJSON } from '../txn/fork.ts';
import { loadBullmq } from './load-bullmq.ts';
import { checkQueue, connectionOptions, DEFAULT_WORKER_SETTINGS, positive, type QueueRef, type WorkerSettings } from './bullmq.ts';
import { forkKey, jobIdOf, planKey } from './names.ts';
import { forkBytes, isTaskJobData, type TaskJobResult } from './job-data.ts';

/** Base snapshots a worker keeps a session on (the writes it serves at once). */
const BASES_KEPT = 8;

/** What a handler learns about the task it runs. */
export interface TaskContext {
  /** Fires when the worker is closed with `force` (or its `signal` fires): stop writing. */
  signal: AbortSignal;
  writeId: string;
  /** The task's position in the write's task list. */
  task: number;
  /** The BullMQ job id (`<writeId>-<task>`). */
  jobId: string;
  /** How many times this job was started, this time included (a killed worker's job starts again). */
  attempt: number;
}

/** Writes one task into `fork` (a writable session on the write's base snapshot). */
export type TaskHandler<T> = (task: T, fork: Session, context: TaskContext) => Promise<void>;

/** A step of a task as a worker runs it, for logs and progress. */
export interface WorkerEvent {
  kind: 'task-start' | 'task-written' | 'fork-stored' | 'task-error';
  writeId: string;
  task: number;
  jobId: string;
  /** The fork's storage key (`fork-stored`). */
  fork?: string;
  /** The error (`task-error`). */
  error?: unknown;
}

/** Options of {@link runWorker}. */
export interface RunWorkerOptions<T> {
  queue: QueueRef;
  /** The repository the queue's writes go to (every worker of a queue opens the same one). */
  repository: Repository;
  handler: TaskHandler<T>;
  /** Tasks run at once by this worker. Default 1. */
  concurrency?: number;
  settings?: WorkerSettings;
  /** Recorded on each job this worker processes (BullMQ worker name). */
  name?: string;
  /** Called at each step of each task (a throwing listener is ignored). */
  onEvent?: (event: WorkerEvent) => void;
}

/** A running worker. */
export interface DistributedWorker {
  /**
   * Stops taking jobs; waits for the tasks running to finish, or with `force` aborts their
   * handlers (their jobs go back to the queue when their locks expire).
   */
  close(options?: { force?: boolean }): Promise<void>;
}

/** Starts a worker on `queue` that runs `handler` for each task of the distributed writes enqueued there. */
export async function runWorker<T>(options: RunWorkerOptions<T>): Promise<DistributedWorker> {
  const queue = checkQueue(options.queue);
  if (typeof options.handler !== 'function') throw floeError('INVALID_ARGUMENT', 'runWorker needs a handler(task, fork, context) function');
  const settings = options.settings ?? {};
  const lockDuration = positive(settings.lockDurationMs, DEFAULT_WORKER_SETTINGS.lockDurationMs, 'settings.lockDurationMs', 100);
  const stalledInterval = positive(settings.stalledIntervalMs, DEFAULT_WORKER_SETTINGS.stalledIntervalMs, 'settings.stalledIntervalMs', 50);
  const maxStalledCount = positive(settings.maxStalledCount, DEFAULT_WORKER_SETTINGS.maxStalledCount, 'settings.maxStalledCount', 0);
  const concurrency = positive(options.concurrency, 1, 'concurrency');
  const { Worker, UnrecoverableError } = await loadBullmq('runWorker (floe/distributed)');
  const stopAll = new AbortController();
  // Sessions on the writes' base snapshots, shared by their tasks' forks (a fork takes only the
  // snapshot and the repository's parts from it): one repo-info read per write, not per task.
  const bases = new Map<string, Promise<Session>>();
  const opener = {
    readonlySession({ snapshotId }: { snapshotId: string }): Promise<Session> {
      let base = bases.get(snapshotId);
      if (!base) {
        base = options.repository.readonlySession({ snapshotId });
        base.catch(() => bases.delete(snapshotId));
        bases.set(snapshotId, base);
        if (bases.size > BASES_KEPT) bases.delete(bases.keys().next().value!);
      }
      return base;
    },
  };
  const emit = (event: WorkerEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's failure is not the task's
    }
  };

  const processJob = async (job: { id?: string; data: unknown; attemptsStarted: number }, _token?: string, jobSignal?: AbortSignal): Promise<TaskJobResult> => {
    const data = job.data as Parameters<typeof isTaskJobData>[0];
    if (!isTaskJobData(data)) throw new UnrecoverableError(`job ${String(job.id)} is not a task of a Floe distributed write (a queue serves Floe's writes only)`);
    const { writeId, task } = data;
    const jobId = jobIdOf(writeId, task);
    const signal = jobSignal ? AbortSignal.any([jobSignal, stopAll.signal]) : stopAll.signal;
    const started = performance.now();
    emit({ kind: 'task-start', writeId, task, jobId });
    try {
      // The write's base snapshot and plan are in this repository, or the worker serves another
      // repository than the write's (or the write was cancelled): no retry can help.
      const elsewhere = (what: string) => new UnrecoverableError(`no ${what} of write ${writeId} in this worker's repository: the worker serves another repository, or the write was cancelled`);
      const fork = await Session.fromFork(opener, data.fork, { signal }).catch((err: unknown) => {
        throw isFloeError(err, 'NOT_FOUND') ? elsewhere(`base snapshot (${data.fork.snapshotId})`) : err;
      });
      const storage = fork.objects.storage;
      if ((await storage.head(planKey(writeId), { signal })) === null) throw elsewhere(`plan (${planKey(writeId)})`);
      await options.handler(data.payload as T, fork, { signal, writeId, task, jobId, attempt: job.attemptsStarted });
      emit({ kind: 'task-written', writeId, task, jobId });
      await fork.packer.flush({ signal });
      const json = fork.toJSON() as ForkJSON;
      const key = forkKey(writeId, task, randomUUID());
      await storage.put(key, new TextEncoder().encode(stringifyJson(json as unknown as JsonValue, 0)), { signal, ifNoneMatch: '*', contentType: 'application/json' });
      // A late attempt (its job's result came from another, and the write was committed or
      // cancelled meanwhile): the plan is gone, so the coordinator's clean-up may have listed the
      // write's prefix before this fork was there. It removes its own fork; the clean-up's second
      // sweep, after it deleted the plan, removes a fork stored before the plan went.
      if ((await storage.head(planKey(writeId), { signal })) === null) {
        await storage.delete([key], { signal }).catch(() => undefined);
        throw new UnrecoverableError(`write ${writeId} was committed or cancelled while this attempt of task ${task} ran: its fork is discarded`);
      }
      emit({ kind: 'fork-stored', writeId, task, jobId, fork: key });
      return { fork: key, bytes: forkBytes(json), ms: Math.round(performance.now() - started), worker: options.name ?? null };
    } catch (error) {
      emit({ kind: 'task-error', writeId, task, jobId, error });
      throw error;
    }
  };

  const worker = new Worker(queue.name, processJob, {
    connection: connectionOptions(queue.redis),
    ...(queue.prefix !== undefined ? { prefix: queue.prefix } : {}),
    concurrency,
    lockDuration,
    stalledInterval,
    maxStalledCount,
    ...(options.name !== undefined ? { name: options.name } : {}),
    // Results stay until the coordinator has read them; it removes its write's jobs after the commit.
    removeOnComplete: { count: Number.MAX_SAFE_INTEGER },
    removeOnFail: { count: Number.MAX_SAFE_INTEGER },
  });
  // BullMQ reports connection trouble (a Redis restart) here and reconnects; without a listener
  // Node would treat the 'error' event as fatal.
  worker.on('error', () => undefined);
  let closing: Promise<void> | undefined;
  return {
    close({ force = false } = {}) {
      if (force) stopAll.abort(floeError('ABORTED', 'the worker was closed', { details: { timedOut: false } }));
      closing ??= worker.close(force);
      return closing;
    },
  };
}
