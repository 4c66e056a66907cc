// floe/distributed without faults (issue 32): a write split over worker processes commits once,
// with every task's data; overlapping tasks are a typed conflict naming both; a cancelled write
// leaves the branch untouched; the job result is a small key; progress and timing are reported.
import { describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { distributedWrite, runWorker, type DistributedWorker, type WriteProgress } from '../../src/distributed/index.ts';
import { refusal } from '../support/error-code.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { distributedSuite, outcome, startCoordinator, startWorker, TEST_SETTINGS, type Where } from './harness.ts';
import { chunkTasks, chunkValues, writeChunks, type ChunkTask } from './tasks.ts';

const suite = distributedSuite('floe-distributed-');
const fresh = (chunks: number) => suite.fresh(chunks);

describe('distributedWrite', () => {
  it('commits the tasks of two worker processes once, every chunk from its task', async () => {
    const { where, repo } = await fresh(12);
    const workers = await Promise.all([startWorker(where, { taskMs: 20 }), startWorker(where, { taskMs: 20 })]);
    const tasks = chunkTasks(6, 2);
    const progress: WriteProgress[] = [];
    const result = await distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks, message: 'six tasks', writeId: 'w1', pollIntervalMs: 100, onProgress: (p) => progress.push(p) });
    expect(await chunkValues(repo)).toEqual(tasks.flatMap((t) => t.chunks.map(() => t.value)));
    expect(result).toMatchObject({ writeId: 'w1', alreadyCommitted: false, resumed: false, cleanedUp: true, bytesWritten: expect.any(Number) });
    expect(result.tasks.map((t) => t.task)).toEqual([0, 1, 2, 3, 4, 5]);
    const history = [];
    for await (const s of repo.ancestry({ branch: 'main' })) history.push(s);
    expect(history).toHaveLength(3); // initial, create /a, the write
    expect(history[0]!.id).toBe(result.snapshotId);
    expect(history[0]!.metadata).toMatchObject({ floe_commit_key: 'floe-distributed-w1', floe_distributed_write: 'w1' });
    expect(progress.map((p) => p.phase)).toEqual(['planned', 'enqueued', ...tasks.map(() => 'task-done'), 'merged', 'committed']);
    expect(progress.at(-1)).toMatchObject({ tasksDone: 6, tasksTotal: 6, etaMs: 0 });
    // Both processes took tasks; the write's plan and forks are gone from storage.
    const pids = new Set(workers.flatMap((w) => w.lines.filter((l) => l.event === 'fork-stored').map((l) => l.pid)));
    expect(pids.size).toBe(2);
    const left = [];
    for await (const o of (await repo.readonlySession({ branch: 'main' })).objects.storage.list('floe-distributed/')) left.push(o.key);
    expect(left).toEqual([]);
    // Again with the same write id: found in history, nothing committed.
    const again = await distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks, message: 'six tasks', writeId: 'w1' });
    expect(again).toMatchObject({ snapshotId: result.snapshotId, alreadyCommitted: true });
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  }, 60_000);

  /** A worker in this process (the tests below need no process to die). */
  async function inProcessWorker(where: Where, taskMs = 0): Promise<DistributedWorker> {
    const repository = await Repository.open(Storage.newLocalFilesystem(where.repo as string));
    const worker = await runWorker<ChunkTask>({ queue: { name: where.queue, redis: suite.redis.url }, repository, settings: TEST_SETTINGS, handler: (task, fork) => writeChunks(task, fork, taskMs) });
    return { close: async (o) => (await worker.close(o), await repository.close()) };
  }

  const tipOf = async (repo: Repository) => repo.lookupBranch('main');

  it('refuses tasks that write one chunk: CONFLICT overlapping-forks naming both, branch unchanged, results small', async () => {
    const { where, repo } = await fresh(4);
    const worker = await inProcessWorker(where);
    const before = await tipOf(repo);
    const tasks: ChunkTask[] = [{ chunks: [0, 1], value: 1 }, { chunks: [3], value: 3 }, { chunks: [1, 2], value: 2 }];
    const err = await refusal(() => distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks, message: 'overlap', writeId: 'ov', pollIntervalMs: 50 }));
    expect(err).toMatchObject({ code: 'CONFLICT', details: { kind: 'overlapping-forks', path: '/a', owners: ['task 0', 'task 2'], chunk: [1] } });
    expect(err.message).toContain('task 0 and task 2 both wrote chunk [1] of /a');
    expect(await tipOf(repo)).toBe(before);
    // The jobs' results in Redis are storage keys, not forks.
    const queue = new Queue(where.queue, { connection: { url: suite.redis.url, maxRetriesPerRequest: null } });
    const job = await queue.getJob('ov-0');
    expect(JSON.stringify(job!.returnvalue).length).toBeLessThan(300);
    expect(job!.returnvalue).toMatchObject({ fork: expect.stringMatching(/^floe-distributed\/ov\/forks\/0-[0-9a-f-]{36}\.json$/), bytes: 32 });
    await queue.close();
    await worker.close();
  });

  it('a cancelled write commits nothing and removes its jobs and plan', async () => {
    const { where, repo } = await fresh(8);
    const worker = await inProcessWorker(where, 150);
    const before = await tipOf(repo);
    const controller = new AbortController();
    const err = await refusal(() => distributedWrite(repo, {
      branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks: chunkTasks(8, 1), message: 'cancelled', writeId: 'cx', pollIntervalMs: 50, signal: controller.signal,
      onProgress: (p) => p.phase === 'task-done' && controller.abort(),
    }));
    expect(err.code).toBe('ABORTED');
    await worker.close(); // the task it was running finishes first
    expect(await tipOf(repo)).toBe(before);
    expect(await repo.lookupCommit('floe-distributed-cx', { branch: 'main' })).toMatchObject({ committed: false });
    const queue = new Queue(where.queue, { connection: { url: suite.redis.url, maxRetriesPerRequest: null } });
    const waiting = (await queue.getJobs(['waiting', 'delayed', 'prioritized'])).filter((j) => j.id?.startsWith('cx-'));
    expect(waiting).toEqual([]);
    await queue.close();
    const storage = (await repo.readonlySession({ branch: 'main' })).objects.storage;
    expect(await storage.head('floe-distributed/cx/plan.json')).toBeNull();
  });

  it('a task whose handler always throws is TASK_FAILED, branch unchanged; a rerun with the same write id retries it and commits', async () => {
    const { where, repo } = await fresh(4);
    const queue = { name: where.queue, redis: suite.redis.url };
    const repository = await Repository.open(Storage.newLocalFilesystem(where.repo as string));
    const failing = await runWorker<ChunkTask>({
      queue, repository, settings: TEST_SETTINGS,
      handler: async (task, fork) => {
        if (task.value === 2) throw new Error('source unreadable');
        await writeChunks(task, fork);
      },
    });
    const before = await tipOf(repo);
    const tasks = chunkTasks(4, 1);
    const err = await refusal(() => distributedWrite(repo, { branch: 'main', queue, tasks, message: 'failing', writeId: 'tf', pollIntervalMs: 50, jobs: { attempts: 2, backoffMs: 10 } }));
    expect(err).toMatchObject({ code: 'TASK_FAILED', details: { writeId: 'tf', task: 1, jobId: 'tf-1', reason: 'source unreadable' } });
    expect(await tipOf(repo)).toBe(before);
    await failing.close();
    const fixed = await inProcessWorker(where);
    const result = await distributedWrite(repo, { branch: 'main', queue, tasks, message: 'failing', writeId: 'tf', pollIntervalMs: 50 });
    expect(result).toMatchObject({ resumed: true, alreadyCommitted: false });
    expect(await chunkValues(repo)).toEqual([1, 2, 3, 4]);
    await fixed.close();
    await repository.close();
  });

  it('a worker serving another repository fails the job at once: TASK_FAILED saying so', async () => {
    const { where, repo } = await fresh(2);
    const other = await fresh(2);
    const worker = await inProcessWorker({ ...other.where, queue: where.queue });
    const err = await refusal(() => distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks: chunkTasks(1, 1), message: 'm', writeId: 'elsewhere', pollIntervalMs: 50 }));
    expect(err).toMatchObject({ code: 'TASK_FAILED', details: { task: 0, jobId: 'elsewhere-0' } });
    expect(err.message).toContain("of write elsewhere in this worker's repository: the worker serves another repository");
    await worker.close();
  });

  it('two coordinators of one write at once (a restart while the first still runs): one commit, both report it', async () => {
    const { where, repo } = await fresh(8);
    const base = await tipOf(repo);
    const worker = await inProcessWorker(where, 20);
    const tasks = chunkTasks(8, 1);
    const run = () => distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks, message: 'twice', writeId: 'twice', pollIntervalMs: 50 });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.snapshotId).toBe(b.snapshotId);
    const history = [];
    for await (const s of repo.ancestry({ branch: 'main' })) history.push(s.id);
    expect(history.slice(0, history.indexOf(base))).toEqual([a.snapshotId]);
    expect(await chunkValues(repo)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await worker.close();
  });

  it('a resumed write with other tasks, a bad write id or queue is INVALID_ARGUMENT', async () => {
    const { where, repo } = await fresh(2);
    const queue = { name: where.queue, redis: suite.redis.url };
    const controller = new AbortController();
    controller.abort();
    // A signal fired before the start: nothing is stored.
    expect((await refusal(() => distributedWrite(repo, { branch: 'main', queue, tasks: chunkTasks(2, 1), message: 'm', writeId: 'iv', signal: controller.signal }))).code).toBe('ABORTED');
    for (const writeId of ['a:b', '', 'x'.repeat(101), 'ü']) {
      expect((await refusal(() => distributedWrite(repo, { branch: 'main', queue, tasks: chunkTasks(1, 1), message: 'm', writeId }))).code).toBe('INVALID_ARGUMENT');
    }
    expect((await refusal(() => distributedWrite(repo, { branch: 'main', queue: { name: 'a:b', redis: suite.redis.url }, tasks: chunkTasks(1, 1), message: 'm' }))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(() => distributedWrite(repo, { branch: 'main', queue, tasks: [], message: 'm' }))).code).toBe('INVALID_ARGUMENT');
  });
});