// floe/distributed without faults (issue 32): a write split over worker processes commits once,
// with every task's data; overlapping tasks are a typed conflict naming both; a cancelled write
// leaves the branch untouched; the job result is a small key; progress and timing are reported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedWrite, runWorker, type WriteProgress } from '../../src/distributed/index.ts';
import { isFloeError } from '../../src/errors.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { childBundle, outcome, startCoordinator, startWorker, stopAll, TEST_SETTINGS, type Where } from './harness.ts';
import { CHUNK, chunkTasks, chunkValues, createTarget, type ChunkTask } from './tasks.ts';

let redis: RedisServer;
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-distributed-'));
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

async function fresh(chunks: number): Promise<{ where: Where; repo: Repository }> {
  const dir = path.join(scratch, `r${repos++}`);
  const repo = await Repository.create(Storage.newLocalFilesystem(dir));
  await createTarget(repo, chunks);
  return { where: { repo: dir, redis: redis.url, queue: `q${repos}` }, repo };
}

describe('distributedWrite', () => {
  it('commits the tasks of two worker processes once, every chunk from its task', async () => {
    const { where, repo } = await fresh(12);
    const workers = await Promise.all([startWorker(where, { taskMs: 20 }), startWorker(where, { taskMs: 20 })]);
    const tasks = chunkTasks(6, 2);
    const progress: WriteProgress[] = [];
    const result = await distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: redis.url }, tasks, message: 'six tasks', writeId: 'w1', pollIntervalMs: 100, onProgress: (p) => progress.push(p) });
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
    const again = await distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: redis.url }, tasks, message: 'six tasks', writeId: 'w1' });
    expect(again).toMatchObject({ snapshotId: result.snapshotId, alreadyCommitted: true });
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  }, 60_000);
});
