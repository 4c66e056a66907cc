// Many OS processes commit to one branch at once, on the local filesystem and on SQLite. Half
// write disjoint chunks (every commit must land), half write the same chunks (solved as ours, or
// refused by the detector with a ChunkDoubleUpdate). A checker then verifies that the history
// is linear, holds every acknowledged commit and nothing else, and that every snapshot reads.
// Chunks are 1 KiB, above the inline threshold: every commit's chunks are objects in storage.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { Repository, Storage, type Conflict } from '../../src/txn/index.ts';
import { LARGE_CHUNK, readArray } from './conflict-fixtures.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-concurrency-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'concurrency-worker.ts');
const COMMITS = 4; // per process
const MAX_WORKERS = 8;
const WORKER_DEADLINE_MS = 40_000;

type Mode = 'disjoint' | 'shared-ours' | 'shared-detect';
interface Line { worker: number; m: number; value: number; ack: boolean; snapshot?: string; conflicts?: Conflict[]; replays: number }

const modeOf = (worker: number): Mode => (worker % 2 === 0 ? 'disjoint' : worker % 4 === 1 ? 'shared-ours' : 'shared-detect');

function runWorker(args: string[]): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), WORKER_DEADLINE_MS + 15_000);
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`worker ${args[2]} exited ${code}: ${err.slice(-1500)}`));
      else resolve(out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line));
    });
  });
}

async function createRepository(storage: Storage): Promise<Repository> {
  const repo = await Repository.create(storage);
  const s = await repo.writableSession('main');
  await ZarrGroup.create(s.store, '/');
  await ZarrArray.create(s.store, '/d', { shape: [LARGE_CHUNK * MAX_WORKERS * COMMITS], chunkShape: [LARGE_CHUNK], dataType: 'int32', fillValue: 0 } as never);
  await ZarrArray.create(s.store, '/s', { shape: [2 * LARGE_CHUNK], chunkShape: [LARGE_CHUNK], dataType: 'int32', fillValue: 0 } as never);
  await s.commit('setup');
  return repo;
}

/** The checker: linear history of exactly the acknowledged commits, every snapshot readable, every write present. */
async function check(repo: Repository, lines: Line[], workers: number, backend: ObjectStorage) {
  const info = await repo.repoInfo();
  const history = [];
  for await (const s of repo.ancestry({ branch: 'main' })) history.push(s);
  // Linear: each entry's parent is the next one; it ends at the repository's first snapshot.
  for (let i = 0; i + 1 < history.length; i++) expect(history[i]!.parentId).toBe(history[i + 1]!.id);
  expect(history.at(-1)!.parentId).toBeUndefined();
  const acked = lines.filter((l) => l.ack).map((l) => l.snapshot!);
  const onBranch = new Set(history.map((s) => s.id));
  for (const id of acked) expect(onBranch.has(id)).toBe(true);
  // Nothing else was committed: the history is setup + initial + the acknowledged commits, and
  // the repo info lists no snapshot outside it (no commit was silently dropped or left dangling).
  expect(history.length).toBe(acked.length + 2);
  expect(info.snapshots.length).toBe(history.length);
  // Every snapshot opens and reads.
  for (const s of history) {
    const reader = await repo.readonlySession({ snapshotId: s.id });
    if (s.message === 'Repository initialized') continue;
    await readArray(reader, '/d');
    await readArray(reader, '/s');
  }
  const tip = await repo.readonlySession({ branch: 'main' });
  const d = await readArray(tip, '/d');
  for (const l of lines.filter((x) => modeOf(x.worker) === 'disjoint')) {
    expect(l.ack).toBe(true);
    expect(d[LARGE_CHUNK * (l.worker * COMMITS + l.m)]).toBe(l.value);
    expect(d[LARGE_CHUNK * (l.worker * COMMITS + l.m + 1) - 1]).toBe(l.value);
  }
  // Shared chunks hold the newest shared commit's value (ours wins on rebase).
  const newestShared = history.find((s) => typeof s.metadata.mode === 'string' && s.metadata.mode !== 'disjoint');
  const s = await readArray(tip, '/s');
  if (newestShared) expect(s).toEqual(new Array(2 * LARGE_CHUNK).fill(newestShared.metadata.value));
  // Refused commits were refused for the shared chunks only, by the detecting workers only.
  for (const l of lines.filter((x) => !x.ack)) {
    expect(modeOf(l.worker)).toBe('shared-detect');
    expect(l.conflicts!.length).toBeGreaterThan(0);
    for (const c of l.conflicts!) expect(c).toMatchObject({ type: 'ChunkDoubleUpdate', path: '/s' });
  }
  expect(lines.length).toBe(workers * COMMITS);
  // The workers' chunks were objects in storage (one or more per landed commit), not inline.
  let chunkObjects = 0;
  for await (const o of backend.list('chunks/')) chunkObjects += o.size >= LARGE_CHUNK * 4 ? 1 : 0;
  expect(chunkObjects).toBeGreaterThanOrEqual(acked.length);
}

describe('concurrent writer processes', () => {
  for (const backend of ['fs', 'sqlite'] as const) {
    it(`${backend}: 2, 4 and 8 processes commit to one branch; nothing lost, no livelock`, async () => {
      let replays = 0;
      for (const workers of [2, 4, 8]) {
        const location = path.join(scratch, `${backend}-${workers}${backend === 'sqlite' ? '.db' : ''}`);
        const storage = backend === 'sqlite' ? Storage.newSqlite(location) : Storage.newLocalFilesystem(location);
        const repo = await createRepository(storage);
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: workers }, (_, w) => runWorker([backend, location, String(w), String(COMMITS), modeOf(w), String(WORKER_DEADLINE_MS)])),
        );
        const elapsed = Date.now() - started;
        const lines = results.flat();
        const reopened = backend === 'sqlite' ? Storage.newSqlite(location) : Storage.newLocalFilesystem(location);
        await check(await Repository.open(reopened), lines, workers, reopened.backend);
        await reopened.backend.close();
        const replayed = lines.reduce((n, l) => n + l.replays, 0);
        replays += replayed;
        console.log(`${backend} N=${workers} M=${COMMITS}: ${lines.filter((l) => l.ack).length} commits landed, ${lines.filter((l) => !l.ack).length} refused as conflicts, ${replayed} commits replayed over in rebases, ${elapsed} ms`);
        await storage.backend.close();
      }
      // The writers raced (some commits were rebased); a run without any race would prove nothing.
      expect(replays).toBeGreaterThan(0);
    }, 120_000);
  }
});
