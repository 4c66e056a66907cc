// Fault tests of floe/distributed (issue 32), with real parts: redis-server on loopback
// (appendfsync always), a local-filesystem repository, workers and coordinators as processes.
// A worker SIGKILLed at random points, a worker stalled past its lock, a Redis restart between
// tasks and a coordinator killed before or after its commit must all end committed exactly once,
// with every task's data and nothing twice; two coordinators racing on one branch may leave one
// write uncommitted, and then the branch holds the other's commit alone.
// FLOE_DIST_KILL_TRIALS sets the worker kills (default 20).
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedWrite } from '../../src/distributed/index.ts';
import { writePrefix } from '../../src/distributed/names.ts';
import type { Repository } from '../../src/txn/index.ts';
import { Child, distributedSuite, launchWorker, outcome, startCoordinator, startWorker, type Where } from './harness.ts';
import { chunkTasks, chunkValues, type ChunkTask } from './tasks.ts';

const KILLS = Number(process.env.FLOE_DIST_KILL_TRIALS ?? 20);
const KILLS_PER_WRITE = 4;

const suite = distributedSuite('floe-distributed-faults-');
const fresh = (chunks: number) => suite.fresh(chunks);

/** The commits on main after `base`, newest first, with their commit keys. */
async function commitsSince(repo: Repository, base: string): Promise<{ id: string; key: unknown }[]> {
  const out = [];
  for await (const s of repo.ancestry({ branch: 'main' })) {
    if (s.id === base) break;
    out.push({ id: s.id, key: s.metadata.floe_commit_key });
  }
  return out;
}

/** Every chunk holds its task's value: each task's data present, no stale attempt's, nothing else. */
async function expectWritten(repo: Repository, tasks: readonly ChunkTask[], chunks: number): Promise<void> {
  const expected = new Array<number>(chunks).fill(0);
  for (const t of tasks) for (const c of t.chunks) expected[c] = t.value;
  expect(await chunkValues(repo)).toEqual(expected);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A write coordinated in this process. */
const write = (repo: Repository, where: Where, tasks: ChunkTask[], writeId: string, extra: { onProgress?: (p: { phase: string; tasksDone: number }) => void } = {}) =>
  distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: suite.redis.url }, tasks, message: writeId, writeId, pollIntervalMs: 100, jobs: { attempts: 5, backoffMs: 50 }, ...extra });

/** Whether a worker is inside a task: its last task event is a start. */
const inTask = (c: Child) => c.lines.filter((l) => l.event === 'task-start' || l.event === 'fork-stored' || l.event === 'task-error').at(-1)?.event === 'task-start';

/** The first of `workers` found inside a task (polled) within 20 s; undefined once `over()`. */
async function workerInTask(workers: readonly Child[], over: () => boolean): Promise<Child | undefined> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await pause(5)) {
    if (over()) return undefined;
    const busy = workers.find((c) => c.alive && inTask(c));
    if (busy) return busy;
  }
  throw new Error('no worker started a task in 20 s');
}

describe('distributed writes under faults', () => {
  it(`a worker SIGKILLed at random points (${KILLS} kills): committed exactly once, every task's data`, async () => {
    const phases: Record<string, number> = {};
    let kills = 0;
    // One repository and queue for every write; each write rewrites all 16 chunks with its own values.
    const { where, repo } = await fresh(16);
    const taskMs = 120;
    let workers: Child[] = await Promise.all([0, 1, 2].map(() => startWorker(where, { taskMs })));
    for (let w = 0; kills < KILLS; w++) {
      const before = await repo.lookupBranch('main');
      const tasks = chunkTasks(8, 2, 0, 1 + 100 * w);
      const writing = write(repo, where, tasks, `kill${w}`);
      let done = false;
      void writing.finally(() => (done = true)).catch(() => undefined);
      const here = Math.min(KILLS_PER_WRITE, KILLS - kills);
      for (let k = 0; k < here && !done; k++) {
        // The next task a live worker starts; kill it 0..1.3 task-times later (mid-handler, while
        // flushing, after storing its fork before completing the job, or just after).
        const started = await workerInTask(workers, () => done);
        if (!started) break;
        await pause(Math.random() * taskMs * 1.3);
        const last = started.lines.filter((l) => l.event && l.event !== 'ready').at(-1)?.event ?? 'none';
        await started.kill('SIGKILL');
        kills++;
        phases[last] = (phases[last] ?? 0) + 1;
        workers = workers.filter((c) => c !== started);
        workers.push(launchWorker(where, { taskMs }));
      }
      const result = await writing;
      expect(result).toMatchObject({ alreadyCommitted: false });
      expect(await commitsSince(repo, before)).toEqual([{ id: result.snapshotId, key: `floe-distributed-kill${w}` }]);
      await expectWritten(repo, tasks, 16);
    }
    await Promise.all(workers.map((c) => c.kill('SIGTERM')));
    console.log(`distributed faults: ${kills} worker kills; last step each killed worker reported: ${JSON.stringify(phases)}`);
    expect(kills).toBe(KILLS);
  }, 120_000);

  it('a worker stalled past its lock: two live attempts, exactly one fork merged', async () => {
    const { where, repo, base } = await fresh(8);
    const stallDir = mkdtempSync(path.join(suite.scratch, 'stall-'));
    // The staller blocks its event loop 3 s (lock 1 s) in the first attempt of each task it takes,
    // then writes other values; the other worker's stalled check hands the task to itself.
    const staller = await startWorker(where, { taskMs: 50, stallMs: 3000, stallDir });
    const tasks = chunkTasks(4, 2);
    const writing = write(repo, where, tasks, 'stall');
    await staller.waitFor((l) => l.event === 'stall');
    const other = await startWorker(where, { taskMs: 50 });
    const result = await writing;
    expect(await commitsSince(repo, base)).toEqual([{ id: result.snapshotId, key: 'floe-distributed-stall' }]);
    await expectWritten(repo, tasks, 8);
    // The stalled attempt ran its handler to the end too: two attempts of one task wrote (the
    // other one most likely in the other worker while the staller was still blocked).
    const stalled = staller.lines.find((l) => l.event === 'stall')!.task;
    await staller.waitFor((l) => (l.event === 'fork-stored' || l.event === 'task-error') && l.task === stalled, 10_000);
    const written = [staller, other].flatMap((c) => c.lines.filter((l) => l.event === 'task-written' && l.task === stalled));
    expect(written.length).toBeGreaterThanOrEqual(2);
    // Late fork descriptions are cleaned up: the stalled attempt stored its fork after the write
    // committed (or just before the clean-up's second sweep); nothing of the write is left.
    const left = [];
    for await (const o of repo.storage.list(writePrefix('stall'))) left.push(o.key);
    expect(left).toEqual([]);
    await Promise.all([staller.kill('SIGTERM'), other.kill('SIGTERM')]);
  }, 60_000);

  it('Redis restarted between tasks: committed exactly once, every task\'s data', async () => {
    const { where, repo, base } = await fresh(12);
    const workers = await Promise.all([startWorker(where, { taskMs: 100 }), startWorker(where, { taskMs: 100 })]);
    const tasks = chunkTasks(6, 2);
    let restarting: Promise<void> | undefined;
    const result = await write(repo, where, tasks, 'redis', {
      onProgress: (p) => {
        if (p.phase === 'task-done' && p.tasksDone === 2) restarting ??= suite.redis.restart({ downMs: 300 });
      },
    });
    await restarting;
    expect(restarting).toBeDefined();
    expect(await commitsSince(repo, base)).toEqual([{ id: result.snapshotId, key: 'floe-distributed-redis' }]);
    await expectWritten(repo, tasks, 12);
    await Promise.all(workers.map((c) => c.kill('SIGTERM')));
  }, 60_000);

  describe('a coordinator killed and restarted', () => {
    // One repository and two workers for the three kills; each write rewrites all 12 chunks.
    let shared: { where: Where; repo: Repository; workers: Child[] };
    beforeAll(async () => {
      const { where, repo } = await fresh(12);
      shared = { where, repo, workers: await Promise.all([startWorker(where, { taskMs: 60 }), startWorker(where, { taskMs: 60 })]) };
    });
    afterAll(async () => {
      await Promise.all(shared?.workers.map((c) => c.kill('SIGTERM')) ?? []);
    });

    ['planned', 'task-done:2', 'committed'].forEach((dieAt, n) => {
      it(`at ${dieAt}: committed exactly once after the restart`, async () => {
        const { where, repo } = shared;
        const base = await repo.lookupBranch('main');
        const writeId = `co-${dieAt.replace(':', '')}`;
        const tasks = chunkTasks(6, 2, 0, 1 + 100 * n);
        const first = startCoordinator(where, { writeId, tasks, dieAt });
        expect(await first.exited).toBeNull(); // killed by its signal
        expect(await commitsSince(repo, base)).toHaveLength(dieAt === 'committed' ? 1 : 0);
        const second = startCoordinator(where, { writeId, tasks });
        const { result } = await outcome(second);
        expect(result).toMatchObject({ alreadyCommitted: dieAt === 'committed', resumed: true, cleanedUp: true });
        expect(await commitsSince(repo, base)).toEqual([{ id: result!.snapshotId, key: `floe-distributed-${writeId}` }]);
        await expectWritten(repo, tasks, 12);
      }, 60_000);
    });
  });

  it('two coordinators racing on one branch: disjoint writes both commit once; overlapping ones commit one, the branch holds it alone', async () => {
    const { where, repo, base } = await fresh(16);
    // Both coordinators plan on the same tip: the workers start once both enqueued.
    const enqueued = (c: Child) => c.waitFor((l) => l.phase === 'enqueued');
    const left = chunkTasks(4, 2, 0, 1);
    const right = chunkTasks(4, 2, 8, 11);
    const [a, b] = [startCoordinator(where, { writeId: 'left', tasks: left }), startCoordinator(where, { writeId: 'right', tasks: right })];
    await Promise.all([enqueued(a), enqueued(b)]);
    const workers = await Promise.all([startWorker(where, { taskMs: 40 }), startWorker(where, { taskMs: 40 })]);
    const [ra, rb] = await Promise.all([outcome(a), outcome(b)]);
    expect([ra.error, rb.error]).toEqual([undefined, undefined]);
    const keys = (await commitsSince(repo, base)).map((c) => c.key).sort();
    expect(keys).toEqual(['floe-distributed-left', 'floe-distributed-right']);
    await expectWritten(repo, [...left, ...right], 16);

    const middle = (await commitsSince(repo, base))[0]!.id;
    const x = chunkTasks(2, 2, 4, 21);
    const y = chunkTasks(2, 2, 4, 31);
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    const [c, d] = [startCoordinator(where, { writeId: 'x', tasks: x }), startCoordinator(where, { writeId: 'y', tasks: y })];
    await Promise.all([enqueued(c), enqueued(d)]);
    workers.push(...await Promise.all([startWorker(where, { taskMs: 40 }), startWorker(where, { taskMs: 40 })]));
    const outcomes = await Promise.all([outcome(c), outcome(d)]);
    const won = outcomes.filter((o) => o.result);
    const lost = outcomes.filter((o) => o.error);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.error).toBe('CONFLICT');
    const winner = won[0]!.result!.writeId === 'x' ? x : y;
    expect(await commitsSince(repo, middle)).toEqual([{ id: won[0]!.result!.snapshotId, key: `floe-distributed-${won[0]!.result!.writeId}` }]);
    await expectWritten(repo, [...left, ...right, ...winner], 16);
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  }, 60_000);
});
