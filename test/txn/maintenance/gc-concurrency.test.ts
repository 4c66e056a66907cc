// GC racing writers: in-process writers and a writer in a child process commit while expiry and
// GC run over and over with a short grace period. Every snapshot any ref still reaches must read
// exactly what was committed, and every writer's branch must read its last commit.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { ancestryIds, commitValues, readValues } from './helpers.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-gc-race-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// Longer than any commit here takes from its first object write to its repo-info swap, even with
// GC sharing the event loop and other suites loading the machine (the grace-period assumption
// docs/maintenance.md states; a 120-process crash test running alongside stalled commits > 4 s).
const GRACE_MS = 10_000;

async function setUp(storage: Storage, writers: string[]): Promise<{ repo: Repository; committed: Map<string, number[]> }> {
  const repo = await Repository.create(storage, { inlineChunkThresholdBytes: 1 });
  const committed = new Map<string, number[]>();
  const base = Array.from({ length: 8 }, (_, i) => i);
  committed.set(await commitValues(repo, 'main', base), base);
  for (const w of writers) await repo.createBranch(w, await repo.lookupBranch('main'));
  return { repo, committed };
}

/** Expires and collects until `until` settles; returns how many GC runs deleted something. */
async function maintainWhile(repo: Repository, until: Promise<unknown>): Promise<{ runs: number; deleted: number }> {
  let finished = false;
  void until.finally(() => (finished = true));
  let runs = 0;
  let deleted = 0;
  while (!finished && runs < 200) {
    await repo.expireSnapshots(new Date(Date.now() - GRACE_MS / 4));
    const summary = await repo.garbageCollect(new Date(Date.now() - GRACE_MS));
    deleted += summary.deleted.chunks.objects;
    runs++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { runs, deleted };
}

async function checkEverythingReachable(repo: Repository, committed: Map<string, number[]>): Promise<number> {
  let checked = 0;
  for (const branch of await repo.listBranches()) {
    for (const id of await ancestryIds(repo, { branch })) {
      const want = committed.get(id);
      if (want) {
        expect(await readValues(repo, { snapshotId: id }), `${branch} @ ${id}`).toEqual(want);
        checked++;
      }
    }
  }
  return checked;
}

describe('GC while writers commit', () => {
  it('in-process writers lose nothing', async () => {
    const writers = ['w0', 'w1', 'w2'];
    const { repo, committed } = await setUp(Storage.newLocalFilesystem(path.join(scratch, 'inproc')), writers);
    const last = new Map<string, number[]>();
    let slowestCommitMs = 0;
    const writing = Promise.all(
      writers.map(async (w, k) => {
        const mine = await Repository.open(Storage.newLocalFilesystem(path.join(scratch, 'inproc')));
        for (let i = 0; i < 30; i++) {
          const values = Array.from({ length: 8 }, (_, j) => k * 10_000 + i * 8 + j);
          const started = Date.now();
          committed.set(await commitValues(mine, w, values), values);
          slowestCommitMs = Math.max(slowestCommitMs, Date.now() - started);
          last.set(w, values);
          await new Promise((r) => setTimeout(r, 40));
        }
      }),
    );
    const { runs, deleted } = await maintainWhile(repo, writing);
    await writing;
    expect(runs).toBeGreaterThan(2);
    // If this fails, the machine broke the test's premise (commits outlasting the grace period).
    expect(slowestCommitMs).toBeLessThan(GRACE_MS);
    await new Promise((r) => setTimeout(r, GRACE_MS));
    expect(deleted + (await repo.garbageCollect(new Date(Date.now() - GRACE_MS))).deleted.chunks.objects).toBeGreaterThan(0);
    for (const w of writers) expect(await readValues(repo, { branch: w })).toEqual(last.get(w));
    expect(await checkEverythingReachable(repo, committed)).toBeGreaterThanOrEqual(writers.length);
  }, 120_000);

  it('a writer in another process loses nothing', async () => {
    const dir = path.join(scratch, 'child');
    const { repo, committed } = await setUp(Storage.newLocalFilesystem(dir), ['child']);
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'writer-child.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', script, dir, 'child', '30'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const { runs } = await maintainWhile(repo, exited);
    expect(await exited, err).toBe(0);
    expect(runs).toBeGreaterThan(1);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { snapshot: string; values: number[] });
    expect(lines).toHaveLength(30);
    for (const l of lines) committed.set(l.snapshot, l.values);
    expect(await readValues(repo, { branch: 'child' })).toEqual(lines[lines.length - 1]!.values);
    expect(await checkEverythingReachable(repo, committed)).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
