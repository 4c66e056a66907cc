// GC racing writers, deterministically. Each round takes a cutoff at an instant when no writer has
// a commit in progress (so the grace-period assumption of docs/maintenance.md holds by
// construction, however slow the machine), then the writers write their chunk objects and
// expiry + GC run with that cutoff while they commit: one writer commits at once (racing the
// mark and the snapshot-list swap), the others only after GC has deleted one or two batches.
// Everything committed before the cutoff is older than it, so only the mark protects the tips.
// Checked: every round after the first two deletes objects while writers have a commit in
// progress, every branch reads its last commit after every round, and at the end every snapshot
// still listed reads exactly what was committed. Runs in-process and with a writer process.
// Chunks are 68,000 bytes, so a session writes each to its own object at `set` time (small ones
// may wait in a pack until the commit); the test checks they are in storage before committing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { idToString } from '../../../src/format/icechunk/ids.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { createFillArray, keysUnder, readFill, writeFill } from './helpers.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-gc-race-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const ROUNDS = 6;
/** Round 1's commits become garbage once round 2's replace them, so from round 3 on. */
const FIRST_ROUND_WITH_GARBAGE = 3;
const GC_OPTIONS = { deleteBatchSize: 3, maxConcurrentDeletes: 2, allowShortGrace: true };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * A cutoff after every object written so far and before every one written from now on. The fs
 * backend stamps an mtime up to 1 ms after the write; the repo clock is the same system clock.
 */
async function cleanCutoff(): Promise<Date> {
  await sleep(3);
  const cutoff = Date.now();
  while (Date.now() <= cutoff + 2) await sleep(1);
  return new Date(cutoff);
}

/** One round's bookkeeping: writers with a commit in progress, delete batches seen, waiters. */
class Round {
  inProgress = 0;
  batches = 0;
  deletedWhileWriting = 0;
  private finished = false;
  private waiters: { batches: number; resolve: () => void }[] = [];

  onDeleted(keys: readonly string[]): void {
    this.batches++;
    if (this.inProgress > 0) this.deletedWhileWriting += keys.length;
    this.wake();
  }

  /** Resolves once GC has deleted `n` batches in this round, or has finished. */
  afterBatches(n: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ batches: n, resolve });
      this.wake();
    });
  }

  finish(): void {
    this.finished = true;
    this.wake();
  }

  private wake(): void {
    this.waiters = this.waiters.filter((w) => (this.finished || this.batches >= w.batches ? (w.resolve(), false) : true));
  }
}

/** The maintainer's view of the storage: reports every completed delete batch. */
function watchDeletes(backend: ObjectStorage, onDeleted: (keys: readonly string[]) => void): ObjectStorage {
  return new Proxy(backend, {
    get(target, prop) {
      if (prop === 'delete') {
        return async (keys: readonly string[]) => {
          await target.delete(keys);
          onDeleted(keys);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function setUp(dir: string, writers: string[], onDeleted: (keys: readonly string[]) => void) {
  const storage = Storage.fromObjectStorage(watchDeletes(Storage.newLocalFilesystem(dir).backend, onDeleted));
  const repo = await Repository.create(storage, { inlineChunkThresholdBytes: 1 });
  const committed = new Map<string, number>();
  const session = await repo.writableSession('main');
  await createFillArray(session);
  await writeFill(session, 7);
  committed.set(await session.commit('base'), 7);
  for (const w of writers) await repo.createBranch(w, await repo.lookupBranch('main'));
  return { repo, committed };
}

/** Expiry and GC with `cutoff`; `round.finish()` releases any writer still waiting. */
async function maintain(repo: Repository, cutoff: Date, round: Round): Promise<number> {
  try {
    await repo.expireSnapshots(cutoff);
    const summary = await repo.garbageCollect(cutoff, GC_OPTIONS);
    return Object.values(summary.deleted).reduce((n, t) => n + t.objects, 0);
  } finally {
    round.finish();
  }
}

/** Every snapshot the repository still lists reads exactly what was committed there. */
async function checkEverySnapshot(repo: Repository, committed: Map<string, number>): Promise<number> {
  const listed = (await repo.repoInfo()).snapshots.map((s) => idToString(s.id));
  for (const id of listed) {
    const want = committed.get(id);
    expect(await readFill(repo, { snapshotId: id }), id).toEqual(want === undefined ? null : [want]); // null: the initial snapshot
  }
  return listed.length;
}

describe('GC while writers commit', () => {
  it('in-process writers: GC deletes while they have commits in progress; nothing committed is lost', async () => {
    const dir = path.join(scratch, 'inproc');
    const writers = ['w0', 'w1', 'w2'];
    let round = new Round();
    const { repo, committed } = await setUp(dir, writers, (keys) => round.onDeleted(keys));
    const handles = await Promise.all(writers.map(() => Repository.open(Storage.newLocalFilesystem(dir))));
    const last = new Map<string, number>();
    const chunkObjects = async () => (await keysUnder(Storage.newLocalFilesystem(dir).backend, 'chunks/')).length;
    const deletedWhileWriting: number[] = [];
    let deleted = 0;
    for (let r = 1; r <= ROUNDS; r++) {
      const cutoff = await cleanCutoff();
      const current = (round = new Round());
      let written = 0;
      let allWritten = () => {};
      const wroteAll = new Promise<void>((resolve) => (allWritten = resolve));
      const chunksBefore = await chunkObjects();
      const commits = Promise.all(
        writers.map(async (w, k) => {
          current.inProgress++;
          try {
            const session = await handles[k]!.writableSession(w);
            const value = k * 10_000 + r;
            await writeFill(session, value);
            if (++written === writers.length) allWritten();
            await current.afterBatches(k); // w0 at once, w1 after one delete batch, w2 after two
            committed.set(await session.commit(`${w} round ${r}`), value);
            last.set(w, value);
          } finally {
            current.inProgress--;
          }
        }),
      );
      await Promise.race([wroteAll, commits]); // (a writer that fails before writing fails the test here)
      // The premise: in-progress commits have objects in storage (w0 may have committed already).
      expect(await chunkObjects()).toBeGreaterThanOrEqual(chunksBefore + 2 * (writers.length - 1));
      deleted += await maintain(repo, cutoff, current);
      await commits;
      deletedWhileWriting.push(current.deletedWhileWriting);
      for (const w of writers) expect(await readFill(repo, { branch: w }), `${w} after round ${r}`).toEqual([last.get(w)]);
    }
    expect(deleted).toBeGreaterThan(0);
    expect(deletedWhileWriting.slice(FIRST_ROUND_WITH_GARBAGE - 1).every((n) => n > 0), String(deletedWhileWriting)).toBe(true);
    expect(await checkEverySnapshot(repo, committed)).toBeGreaterThanOrEqual(writers.length + 1);
  }, 60_000);

  it('a writer in another process: GC deletes while its commit is in progress; nothing committed is lost', async () => {
    const dir = path.join(scratch, 'child');
    let round = new Round();
    const { repo, committed } = await setUp(dir, ['child'], (keys) => round.onDeleted(keys));
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'writer-child.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', script, dir, 'child'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const nextLine = async <T>(): Promise<T> => {
      const next = await lines.next();
      if (next.done) throw new Error(`writer process ended early: ${err.slice(-1500)}`);
      return JSON.parse(next.value) as T;
    };
    try {
      const deletedWhileWriting: number[] = [];
      for (let r = 1; r <= ROUNDS; r++) {
        const cutoff = await cleanCutoff();
        const current = (round = new Round());
        current.inProgress++;
        const chunksBefore = (await keysUnder(Storage.newLocalFilesystem(dir).backend, 'chunks/')).length;
        child.stdin.write(`write ${1000 + r}\n`);
        expect(await nextLine<{ written: number }>()).toEqual({ written: 1000 + r });
        expect((await keysUnder(Storage.newLocalFilesystem(dir).backend, 'chunks/')).length).toBe(chunksBefore + 2);
        const maintained = maintain(repo, cutoff, current);
        await current.afterBatches(1); // GC has deleted a batch while the child's chunks await their commit
        child.stdin.write('commit\n');
        const landed = await nextLine<{ snapshot: string; value: number }>();
        current.inProgress--;
        committed.set(landed.snapshot, landed.value);
        await maintained;
        deletedWhileWriting.push(current.deletedWhileWriting);
        expect(await readFill(repo, { branch: 'child' }), `after round ${r}`).toEqual([1000 + r]);
      }
      child.stdin.write('end\n');
      expect(await exited, err).toBe(0);
      expect(deletedWhileWriting.slice(FIRST_ROUND_WITH_GARBAGE - 1).every((n) => n > 0), String(deletedWhileWriting)).toBe(true);
      expect(await checkEverySnapshot(repo, committed)).toBeGreaterThanOrEqual(2);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
