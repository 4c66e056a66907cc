// The coordinator of a distributed write (docs/distributed.md): plan -> one BullMQ job per task ->
// the workers' forks -> one merge -> one commit. Exactly-once effect rests on three things: the
// plan in the repository's storage (a restarted coordinator carries on with the same base and
// tasks), job ids derived from the write id (enqueueing again adds nothing), and the write's
// commit key (the commit lands at most once, and a restarted coordinator finds it).
import { floeError, isFloeError } from '../errors.ts';
import { abortable, throwIfAborted } from '../engine/abort.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import type { ObjectStorage } from '../engine/storage/types.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { JsonValue } from '../format/json.ts';
import { ConflictDetector } from '../txn/conflicts/detector.ts';
import { parseForkJSON, type ForkJSON } from '../txn/fork.ts';
import type { Repository } from '../txn/repository.ts';
import { Session } from '../txn/session.ts';
import { checkQueue, connectionOptions, DEFAULT_JOB_SETTINGS, positive, type JobSettings, type QueueRef } from './bullmq.ts';
import { loadBullmq, type BullMQ, type BullQueue } from './load-bullmq.ts';
import type { TaskJobData, TaskJobResult } from './job-data.ts';
import { checkWriteId, commitKeyOf, jobIdOf, newWriteId, writePrefix } from './names.ts';
import { createPlan, readPlan, tasksText, type WritePlan } from './plan.ts';
import { ProgressCounter, type TaskTiming, type WriteProgress } from './progress.ts';
import { waitForResults } from './results.ts';

/** Options of {@link distributedWrite}. */
export interface DistributedWriteOptions<T> {
  /** The branch to commit to; the write's forks start on its tip. */
  branch: string;
  queue: QueueRef;
  /** One job per task, in this order; each a JSON value (a description of the work, not its data). */
  tasks: readonly T[];
  message: string;
  /** Names the write (1-100 of `A-Za-z0-9_-`); give the same id to resume it. Default: a random UUID. */
  writeId?: string;
  /** Cancels the write: nothing is committed, the write's jobs and plan are removed. */
  signal?: AbortSignal;
  /** Called at each phase and with each task's result (a throwing listener is ignored). */
  onProgress?: (progress: WriteProgress) => void;
  /** Retries of tasks whose handler throws. */
  jobs?: JobSettings;
  /** Commit attempts when the branch moved (each rebases first). Default 10. */
  commitTries?: number;
  /** How often the coordinator looks at jobs BullMQ did not announce. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** More snapshot metadata for the commit. */
  metadata?: Record<string, MetadataValue>;
}

/** What {@link distributedWrite} returns. */
export interface DistributedWriteResult {
  writeId: string;
  snapshotId: string;
  /** The commit was there already (an earlier run of this write committed it): nothing was committed now. */
  alreadyCommitted: boolean;
  /** This run carried on with a plan an earlier run stored. */
  resumed: boolean;
  /** Per task, in task order (empty when `alreadyCommitted` was known before any result was read). */
  tasks: TaskTiming[];
  bytesWritten: number;
  /** Whether the write's jobs and stored plan and forks were removed after the commit. */
  cleanedUp: boolean;
}

const FORK_READS = 16;
/** How long the clean-up waits for Redis to remove a write's jobs. */
const CLEANUP_REDIS_MS = 10_000;

/**
 * Splits a write into tasks that worker processes ({@link runWorker}) run through a BullMQ queue,
 * and commits what they wrote to `branch` as one commit, exactly once: after worker deaths (their
 * jobs run again), a restart of this coordinator (run it again with the same `writeId`) or of
 * Redis. Tasks must own their chunks: two that write one chunk are a CONFLICT (`overlapping-forks`).
 */
export async function distributedWrite<T>(repo: Repository, options: DistributedWriteOptions<T>): Promise<DistributedWriteResult> {
  const { branch, message, signal } = options;
  const queueRef = checkQueue(options.queue);
  if (typeof branch !== 'string' || branch === '') throw floeError('INVALID_ARGUMENT', 'distributedWrite needs a branch');
  if (typeof message !== 'string') throw floeError('INVALID_ARGUMENT', 'a commit message must be a string');
  if (!Array.isArray(options.tasks) || options.tasks.length === 0) throw floeError('INVALID_ARGUMENT', 'distributedWrite needs a non-empty array of tasks');
  const writeId = options.writeId === undefined ? newWriteId() : checkWriteId(options.writeId);
  const commitTries = positive(options.commitTries, 10, 'commitTries');
  const pollIntervalMs = positive(options.pollIntervalMs, 1_000, 'pollIntervalMs', 10);
  const jobs = {
    attempts: positive(options.jobs?.attempts, DEFAULT_JOB_SETTINGS.attempts, 'jobs.attempts'),
    backoffMs: positive(options.jobs?.backoffMs, DEFAULT_JOB_SETTINGS.backoffMs, 'jobs.backoffMs', 0),
  };
  const tasks = tasksText(options.tasks);
  const commitKey = commitKeyOf(writeId);
  const bull = await loadBullmq('distributedWrite (floe/distributed)');
  const request = signal ? { signal } : undefined;
  const emit = (progress: WriteProgress) => {
    try {
      options.onProgress?.(progress);
    } catch {
      // a listener's failure is not the write's
    }
  };

  // A restarted coordinator whose earlier run committed reports that commit.
  const earlier = await repo.lookupCommit(commitKey, { branch, ...request });
  const session = await repo.writableSession(branch, request);
  const storage = session.objects.storage;
  if (earlier.committed) {
    return { writeId, snapshotId: earlier.snapshotId, alreadyCommitted: true, resumed: true, tasks: [], bytesWritten: 0, cleanedUp: await cleanUp(bull, queueRef, storage, writeId, undefined) };
  }

  let plan = await readPlan(storage, writeId, request);
  const resumed = plan !== undefined;
  if (!plan) {
    const proposal: WritePlan = {
      format: 'floe-distributed-plan', version: 1, writeId, branch, message, baseSnapshotId: session.snapshotId,
      fork: session.fork().toJSON() as ForkJSON, tasks: options.tasks as unknown as JsonValue[],
    };
    plan = (await createPlan(storage, proposal, request)).plan;
  }
  if (plan.branch !== branch || tasksText(plan.tasks) !== tasks) {
    throw floeError('INVALID_ARGUMENT', `distributed write ${writeId} was planned ${plan.branch !== branch ? `on branch ${plan.branch}` : 'with other tasks'}; resume it with the same branch and tasks, or use another writeId`, { where: writeId });
  }
  const progress = new ProgressCounter(writeId, plan.tasks.length);
  emit(progress.report('planned'));

  const connection = connectionOptions(queueRef.redis);
  const prefix = queueRef.prefix !== undefined ? { prefix: queueRef.prefix } : {};
  const queue = new bull.Queue(queueRef.name, { connection, ...prefix });
  const events = new bull.QueueEvents(queueRef.name, { connection, ...prefix });
  queue.on('error', () => undefined); // connection trouble: BullMQ reconnects
  events.on('error', () => undefined);
  const timings: TaskTiming[] = new Array(plan.tasks.length);
  const thePlan = plan;
  try {
    const enqueue = (which: readonly number[]) => enqueueTasks(queue, thePlan, which, jobs);
    await abortable(enqueue(thePlan.tasks.map((_, i) => i)), signal, writeId);
    emit(progress.report('enqueued'));
    const results = await waitForResults({
      bull, queue, events, plan: thePlan, enqueue, pollIntervalMs, signal,
      onResult(task, result, arrivedNow) {
        progress.record(result, arrivedNow);
        timings[task] = { task, ms: result.ms, bytes: result.bytes, worker: result.worker };
        emit(progress.report('task-done', timings[task]));
      },
    });
    await mergeForks(repo, session, storage, thePlan, results, signal);
    emit(progress.report('merged'));
    const before = await repo.lookupCommit(commitKey, { branch, ...request });
    const snapshotId = before.committed ? before.snapshotId : await commitOnce(repo, session, thePlan, commitKey, commitTries, options.metadata, signal);
    emit(progress.report('committed'));
    const cleanedUp = await cleanUp(bull, queueRef, storage, writeId, queue);
    return { writeId, snapshotId, alreadyCommitted: before.committed, resumed, tasks: timings, bytesWritten: progress.bytes, cleanedUp };
  } catch (err) {
    // Whatever failed, a commit of this write that landed (an earlier run's, a racing one's) is the result.
    const landed = await repo.lookupCommit(commitKey, { branch }).catch(() => undefined);
    if (landed?.committed) {
      return { writeId, snapshotId: landed.snapshotId, alreadyCommitted: true, resumed, tasks: timings.filter(Boolean), bytesWritten: progress.bytes, cleanedUp: await cleanUp(bull, queueRef, storage, writeId, queue) };
    }
    if (signal?.aborted) await cleanUp(bull, queueRef, storage, writeId, queue);
    throw err;
  } finally {
    await Promise.allSettled([events.close(), queue.close()]);
  }
}

async function enqueueTasks(queue: BullQueue, plan: WritePlan, which: readonly number[], jobs: Required<JobSettings>): Promise<void> {
  for (let start = 0; start < which.length; start += 500) {
    await queue.addBulk(which.slice(start, start + 500).map((task) => ({
      name: 'floe-task',
      data: { writeId: plan.writeId, task, fork: plan.fork, payload: plan.tasks[task]! } satisfies TaskJobData,
      opts: {
        jobId: jobIdOf(plan.writeId, task),
        attempts: jobs.attempts,
        backoff: { type: 'exponential', delay: jobs.backoffMs },
        removeOnComplete: false,
        removeOnFail: false,
      },
    })));
  }
}

/** Reads the forks the results name and merges them, in task order, into `session` (moved onto the plan's base). */
async function mergeForks(repo: Repository, session: Session, storage: ObjectStorage, plan: WritePlan, results: readonly TaskJobResult[], signal: AbortSignal | undefined): Promise<void> {
  const request = signal ? { signal } : undefined;
  const base = await repo.readonlySession({ snapshotId: plan.baseSnapshotId, ...request });
  if (session.snapshotId !== plan.baseSnapshotId) session.rebaseOnto(base.baseSnapshot);
  const opener = { readonlySession: async () => base };
  const forks = await mapLimit(results, FORK_READS, async (result, task) => {
    const got = await storage.get(result.fork, undefined, request);
    if (!got) throw floeError('NOT_FOUND', `the fork of task ${task} (${result.fork}) is not in the repository's storage; run the write again with the same writeId`, { where: result.fork });
    const json = parseForkJSON(new TextDecoder().decode(got.bytes));
    if (json.snapshotId !== plan.baseSnapshotId) throw floeError('CORRUPT_OBJECT', `the fork of task ${task} (${result.fork}) starts on snapshot ${json.snapshotId}, not the write's base ${plan.baseSnapshotId}`, { where: result.fork });
    return { owner: `task ${task}`, fork: await Session.fromFork(opener, json, request) };
  });
  throwIfAborted(signal, plan.writeId);
  await session.mergeDisjoint(forks);
}

/** Commits with the write's key, rebasing when the branch moved; an unknown outcome is looked up. */
async function commitOnce(
  repo: Repository, session: Session, plan: WritePlan, commitKey: string, tries: number, metadata: Record<string, MetadataValue> | undefined, signal: AbortSignal | undefined,
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await session.commit(plan.message, {
        commitKey, rebaseWith: new ConflictDetector(), rebaseTries: tries, allowEmpty: true,
        metadata: { ...metadata, floe_distributed_write: plan.writeId }, ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (!isFloeError(err, 'COMMIT_OUTCOME_UNKNOWN') || attempt >= 3) throw err;
      const found = await repo.lookupCommit(commitKey, { branch: plan.branch, ...(signal ? { signal } : {}) });
      if (found.committed) return found.snapshotId;
      // not landed (yet): committing again with the same key lands it at most once
    }
  }
}

/** Removes the write's jobs and everything it stored under its prefix; best effort (false if something stayed). */
async function cleanUp(bull: BullMQ, queueRef: QueueRef, storage: ObjectStorage, writeId: string, open: BullQueue | undefined): Promise<boolean> {
  let queue = open;
  const owned = queue === undefined;
  try {
    queue ??= new bull.Queue(queueRef.name, { connection: connectionOptions(queueRef.redis), ...(queueRef.prefix !== undefined ? { prefix: queueRef.prefix } : {}) });
    queue.on('error', () => undefined);
    const plan = await readPlan(storage, writeId);
    const count = plan?.tasks.length ?? 0;
    const q = queue;
    // Redis calls wait while Redis is away (maxRetriesPerRequest: null): the clean-up gives up instead.
    const deadline = AbortSignal.timeout(CLEANUP_REDIS_MS);
    const removed = await mapLimit(Array.from({ length: count }, (_, i) => i), 16, (task) =>
      abortable(q.remove(jobIdOf(writeId, task)), deadline).then(() => true, () => false));
    const keys: string[] = [];
    for await (const o of storage.list(writePrefix(writeId))) keys.push(o.key);
    // The plan last: while it is there, a rerun finds the write's jobs by it.
    const plans = keys.filter((k) => k.endsWith('/plan.json'));
    await storage.delete(keys.filter((k) => !k.endsWith('/plan.json')));
    await storage.delete(plans);
    // Second sweep: forks stored by late attempts after the first listing (an attempt that stores
    // its fork once the plan is gone deletes it itself: src/distributed/worker.ts).
    const late: string[] = [];
    for await (const o of storage.list(writePrefix(writeId))) if (!o.key.endsWith('/plan.json')) late.push(o.key);
    await storage.delete(late);
    return removed.every(Boolean);
  } catch {
    return false;
  } finally {
    if (owned) await queue?.close().catch(() => undefined);
  }
}
