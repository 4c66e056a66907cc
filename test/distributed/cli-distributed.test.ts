// `floe worker` and `floe import --distributed` (issue 32 stage 2) with real parts: redis-server
// on loopback, `floe worker` as processes (bin/floe.mjs), a local-filesystem repository. The
// distributed import must equal a plain `floe import` value by value, commit its two commits once
// each (also when a worker is SIGKILLed mid-import, and when run again with its write id), and a
// worker stops on SIGTERM.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { floe, removeTempDirs, ROOT, tempDir } from '../cli/helpers.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { Child } from './harness.ts';

let redis: RedisServer;
const workers = new Set<Child>();
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all([...workers].map((w) => w.kill('SIGKILL')));
  await redis?.stop();
  removeTempDirs();
});

/** A `floe worker` process (short locks: a killed worker's task comes back within ~1.5 s). */
async function floeWorker(repo: string, queue: string, env: Record<string, string> = {}): Promise<Child> {
  const child = new Child(spawn(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), 'worker', '--repo', repo, '--queue', queue, '--lock-ms', '1000', '--stalled-ms', '300', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FLOE_REDIS_URL: redis.url, ...env },
  }));
  workers.add(child);
  void child.exited.then(() => workers.delete(child));
  await child.waitFor((l) => l.event === 'ready');
  return child;
}

/**
 * A Zarr v3 store: an explicit root group, /t float32 [64, 24] in chunks [4, 24] (16 chunks),
 * /sub/u int16 [40] in chunks of 10 under an implicit group, an unwritten chunk left out.
 */
async function sourceStore(dir: string): Promise<string> {
  const root = path.join(dir, 'field.zarr');
  const store = new StorageStore(new FsStorage({ root, durable: false }));
  await ZarrGroup.create(store, '/', { attributes: { title: 'field' } });
  const t = await ZarrArray.create(store, '/t', { shape: [64, 24], chunkShape: [4, 24], dataType: 'float32', fillValue: 0 });
  await t.set(undefined, Float32Array.from({ length: 64 * 24 }, (_, i) => i / 7));
  const u = await ZarrArray.create(store, '/sub/u', { shape: [40], chunkShape: [10], dataType: 'int16', fillValue: -1 });
  await u.set([slice(0, 30)], Int16Array.from({ length: 30 }, (_, i) => i * 3 - 20));
  return root;
}

/** A source store imported plainly into `plain` (what the distributed import must equal), and an empty `dist`. */
async function plainAndDistributed(): Promise<{ dir: string; source: string; repoDir: string }> {
  const dir = tempDir('floe-cli-dist-');
  const source = await sourceStore(dir);
  expect((await floe(['init', '--repo', 'plain'], { cwd: dir })).code).toBe(0);
  expect((await floe(['import', source, '--repo', 'plain'], { cwd: dir })).code).toBe(0);
  expect((await floe(['init', '--repo', 'dist'], { cwd: dir })).code).toBe(0);
  return { dir, source, repoDir: path.join(dir, 'dist') };
}

async function values(repoDir: string, at: string): Promise<Record<string, unknown>> {
  const repo = await Repository.open(Storage.newLocalFilesystem(repoDir));
  const session = await repo.readonlySession({ branch: 'main' });
  const out: Record<string, unknown> = {};
  for (const name of ['t', 'sub/u']) {
    const a = await ZarrArray.open(session.store, `${at}/${name}`);
    out[name] = { shape: a.shape, data: Array.from((await a.get()).data as ArrayLike<number>) };
  }
  out.attrs = (await ZarrGroup.open(session.store, at)).attributes;
  return out;
}

async function commitKeys(repoDir: string): Promise<unknown[]> {
  const repo = await Repository.open(Storage.newLocalFilesystem(repoDir));
  const keys = [];
  for await (const s of repo.ancestry({ branch: 'main' })) keys.push(s.metadata.floe_commit_key);
  return keys;
}

describe('floe import --distributed with floe worker processes', () => {
  it('equals a plain floe import value by value; a rerun with its write id commits nothing more', async () => {
    const dir = tempDir('floe-cli-dist-');
    const source = await sourceStore(dir);
    const env = { FLOE_REDIS_URL: redis.url };
    expect((await floe(['init', '--repo', 'plain'], { cwd: dir })).code).toBe(0);
    expect((await floe(['import', source, '--repo', 'plain', '--path', '/field'], { cwd: dir })).code).toBe(0);
    expect((await floe(['init', '--repo', 'dist'], { cwd: dir })).code).toBe(0);
    const repoDir = path.join(dir, 'dist');
    const pair = await Promise.all([floeWorker(repoDir, 'q1'), floeWorker(repoDir, 'q1')]);
    const args = ['import', source, '--repo', 'dist', '--path', '/field', '--distributed', '--queue', 'q1', '--write-id', 'w1', '--task-chunks', '2'];
    const run = await floe(args, { cwd: dir, env });
    expect(run.stderr).toMatch(/write w1: 10 tasks/); // 16 chunks of /t + 3 of /sub/u, 2 per task
    expect(run.stderr).toMatch(/importing: .* in [\d.]+ s/);
    expect(run.code).toBe(0);
    expect(await values(repoDir, '/field')).toEqual(await values(path.join(dir, 'plain'), '/field'));
    const keys = await commitKeys(repoDir);
    expect(keys.slice(0, 2)).toEqual(['floe-distributed-w1', 'floe-import-nodes-w1']);
    // Both workers took tasks.
    for (const w of pair) expect(w.lines.some((l) => l.event === 'fork-stored')).toBe(true);
    const again = await floe([...args, '--json'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyCommitted: true, writeId: 'w1' });
    expect(await commitKeys(repoDir)).toEqual(keys);
    await Promise.all(pair.map((w) => w.kill('SIGTERM')));
    expect(pair.map((w) => w.process.exitCode)).toEqual([0, 0]);
  }, 120_000);

  it('a floe worker SIGKILLed mid-import: committed exactly once, every value', async () => {
    const { dir, source, repoDir } = await plainAndDistributed();
    const [victim, other] = await Promise.all([floeWorker(repoDir, 'q2'), floeWorker(repoDir, 'q2')]);
    const importing = floe(['import', source, '--repo', 'dist', '--distributed', '--queue', 'q2', '--write-id', 'k1', '--task-chunks', '1'], { cwd: dir, env: { FLOE_REDIS_URL: redis.url } });
    await victim.waitFor((l) => l.event === 'task-start');
    await victim.kill('SIGKILL');
    const run = await importing;
    expect(run.code, run.stderr).toBe(0);
    expect(await values(repoDir, '/field')).toEqual(await values(path.join(dir, 'plain'), '/field'));
    expect((await commitKeys(repoDir)).filter((k) => String(k).endsWith('-k1'))).toEqual(['floe-distributed-k1', 'floe-import-nodes-k1']);
    await other.kill('SIGTERM');
    expect(other.process.exitCode).toBe(0);
  }, 120_000);

  it('a second SIGTERM aborts the task running (exit 130): its attempt is not merged, another worker does the task, committed once', async () => {
    const { dir, source, repoDir } = await plainAndDistributed();
    // The victim's task copies its objects, then waits 10 minutes (FLOE_TEST_TASK_DELAY_MS, inside
    // the task's handler): it is surely running when the signals come, and only an abort ends it.
    const victim = await floeWorker(repoDir, 'q4', { FLOE_TEST_TASK_DELAY_MS: '600000' });
    const importing = floe(['import', source, '--repo', 'dist', '--distributed', '--queue', 'q4', '--write-id', 'a1', '--task-chunks', '4'], { cwd: dir, env: { FLOE_REDIS_URL: redis.url } });
    const { task } = await Promise.race([
      victim.waitFor((l) => l.event === 'task-start', 60_000),
      importing.then((r) => Promise.reject(new Error(`the import ended first (${r.code}): ${r.stderr} ${victim.stderr} ${JSON.stringify(victim.lines)}`))),
    ]);
    const other = await floeWorker(repoDir, 'q4');
    process.kill(victim.pid, 'SIGTERM');
    await victim.waitFor((l) => l.event === 'stopping');
    expect(victim.alive).toBe(true); // the first signal waits for the task running
    process.kill(victim.pid, 'SIGTERM');
    expect(await victim.exited).toBe(130);
    expect(victim.lines.map((l) => l.event)).toEqual(['ready', 'task-start', 'stopping', 'aborting', 'task-error', 'stopped']);
    expect(victim.stderr).toContain('aborted by a second signal');
    const run = await importing;
    expect(run.code, run.stderr).toBe(0);
    // The aborted attempt stored no fork; the other worker ran the task again and its fork is the one merged.
    expect(other.lines.some((l) => l.event === 'fork-stored' && l.task === task)).toBe(true);
    expect(await values(repoDir, '/field')).toEqual(await values(path.join(dir, 'plain'), '/field'));
    expect((await commitKeys(repoDir)).filter((k) => String(k).endsWith('-a1'))).toEqual(['floe-distributed-a1', 'floe-import-nodes-a1']);
    await other.kill('SIGTERM');
    expect(other.process.exitCode).toBe(0);
  }, 120_000);

  it('floe worker: a password in --redis is refused; SIGTERM stops an idle worker with 0', async () => {
    const dir = tempDir('floe-cli-dist-');
    const refused = await floe(['worker', '--repo', dir, '--queue', 'q', '--redis', 'redis://:secret@127.0.0.1:1'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('FLOE_REDIS_URL');
    expect((await floe(['worker', '--repo', dir, '--queue', 'a:b'], { cwd: dir })).code).toBe(2);
    expect((await floe(['import', dir, '--queue', 'q'], { cwd: dir })).stderr).toContain('--queue goes with --distributed');
    expect((await floe(['init', '--repo', 'r'], { cwd: dir })).code).toBe(0);
    const w = await floeWorker(path.join(dir, 'r'), 'q3');
    await w.kill('SIGTERM');
    expect(w.process.exitCode).toBe(0);
    expect(w.lines.map((l) => l.event)).toEqual(['ready', 'stopping', 'stopped']);
  }, 60_000);
});
