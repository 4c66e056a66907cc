// Forks: cheap sessions other workers write into, serialisable to JSON, merged into one commit.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ConflictDetector, ConflictError, Repository, Session, Storage } from '../../src/txn/index.ts';
import { baseRepository, createArray, deleteNode, LARGE_CHUNK, readArray, writeChunk } from './conflict-fixtures.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-fork-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fork-worker.ts');

describe('fork and merge', () => {
  it('forks write disjoint chunks; merging them makes one commit with every write', async () => {
    const repo = await baseRepository();
    const session = await repo.writableSession('main');
    const forks = [session.fork(), session.fork(), session.fork()];
    expect(forks.every((f) => f.isFork && !f.readOnly && f.branch === null)).toBe(true);
    await writeChunk(forks[0]!.store, '/a', 0, 10);
    await writeChunk(forks[1]!.store, '/a', 1, 11);
    await createArray(forks[2]!.store, '/new');
    await writeChunk(forks[2]!.store, '/new', 1, 12);
    // Forks read their own writes and not each other's.
    expect(await readArray(forks[0]!, '/a')).toEqual([10, 10, 10, 10, 1, 1, 1, 1]);
    expect(await readArray(forks[1]!, '/a')).toEqual([1, 1, 1, 1, 11, 11, 11, 11]);
    // Round trip through JSON, as to another process.
    const revived = await Promise.all(forks.map((f) => Session.fromFork(repo, JSON.stringify(f))));
    await session.merge(...revived);
    const snapshot = await session.commit('merged');
    const reader = await repo.readonlySession({ snapshotId: snapshot });
    expect(await readArray(reader, '/a')).toEqual([10, 10, 10, 10, 11, 11, 11, 11]);
    expect(await readArray(reader, '/new')).toEqual([0, 0, 0, 0, 12, 12, 12, 12]);
    expect((await repo.lookupSnapshot(snapshot)).parentId).toBeDefined();
  });

  it('forks cannot commit; a session with changes cannot fork; mismatched bases refuse to merge', async () => {
    const repo = await baseRepository();
    const session = await repo.writableSession('main');
    const fork = session.fork();
    await writeChunk(fork.store, '/a', 0, 3);
    await expect(fork.commit('no')).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(fork.flush('no')).rejects.toMatchObject({ code: 'READ_ONLY' });
    await writeChunk(session.store, '/a', 1, 4);
    expect(() => session.fork()).toThrow(/uncommitted changes/);
    await session.commit('moved on');
    await expect(session.merge(fork)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(Session.fromFork(repo, { format: 'nope' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect((await repo.readonlySession({ branch: 'main' })).merge(fork)).rejects.toMatchObject({ code: 'READ_ONLY' });
  });

  it('later forks win on the same chunk; structural clashes are conflicts and merge nothing', async () => {
    const repo = await baseRepository();
    const session = await repo.writableSession('main');
    const [f1, f2, f3, f4] = [session.fork(), session.fork(), session.fork(), session.fork()];
    await writeChunk(f1!.store, '/a', 0, 1000);
    await writeChunk(f2!.store, '/a', 0, 2000);
    await createArray(f3!.store, '/x');
    await createArray(f4!.store, '/x');
    await session.merge(f1!, f2!);
    expect(await readArray(session, '/a')).toEqual([2000, 2000, 2000, 2000, 1, 1, 1, 1]);
    const err = await session.merge(f3!, f4!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).conflicts).toEqual([expect.objectContaining({ type: 'NewNodeConflictsWithExistingNode', path: '/x' })]);
    expect(await session.store.get('x/zarr.json')).toBeUndefined();
    expect(await readArray(session, '/a')).toEqual([2000, 2000, 2000, 2000, 1, 1, 1, 1]); // what it had stays
    const f5 = (await repo.writableSession('main')).fork();
    const f6 = Session.fromFork(repo, JSON.stringify(f5));
    await deleteNode(f5.store, '/g/b');
    await writeChunk((await f6).store, '/g/b', 0, 1);
    const s2 = await repo.writableSession('main');
    await expect(s2.merge(f5, await f6)).rejects.toMatchObject({ conflicts: [expect.objectContaining({ type: 'ChunksUpdatedInDeletedArray', path: '/g/b' })] });
    expect(s2.hasUncommittedChanges).toBe(false); // f5's deletion, merged before f6 clashed, is undone
  });

  it('forks written by other OS processes merge into one commit, rebased if the branch moved', async () => {
    // Real chunk objects: /big's 68,000-byte chunks each get an object of their own, written by the
    // worker process; /mid's 1 KiB chunks are above the inline threshold too (a session may pack
    // chunks that small into one object).
    const BIG = 17_000;
    const dir = path.join(scratch, 'processes');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const setup = await repo.writableSession('main');
    await ZarrArray.create(setup.store, '/big', { shape: [4 * BIG], chunkShape: [BIG], dataType: 'int32', fillValue: 0 } as never);
    await ZarrArray.create(setup.store, '/mid', { shape: [4 * 4 * LARGE_CHUNK], chunkShape: [LARGE_CHUNK], dataType: 'int32', fillValue: 0 } as never);
    await setup.commit('arrays');
    const chunkFiles = () => readdirSync(path.join(dir, 'chunks')).filter((f) => /^[0-9A-Z]{20}$/.test(f)).length;
    const chunksBefore = existsSync(path.join(dir, 'chunks')) ? chunkFiles() : 0;
    const session = await repo.writableSession('main');
    const json = JSON.stringify(session.fork());
    const run = promisify(execFile);
    const outputs = await Promise.all(
      [0, 1, 2, 3].map((w) =>
        run(process.execPath, ['--import', 'tsx', '--no-warnings', WORKER, dir, json, `/big,${w},1,${BIG},${w + 1}`, `/mid,${w * 4},4,${LARGE_CHUNK},${w + 1}`], {
          timeout: 60_000,
          maxBuffer: 16 << 20,
        }),
      ),
    );
    // The workers wrote their large chunks to storage themselves: the forks carry references only.
    expect(chunkFiles()).toBeGreaterThanOrEqual(chunksBefore + 4);
    for (const o of outputs) expect(o.stdout.length).toBeLessThan(2 * BIG); // less than half a big chunk's 68,000 bytes
    const forks = await Promise.all(outputs.map((o) => Session.fromFork(repo, o.stdout.trim())));
    await session.merge(...forks);
    // Someone else commits meanwhile: the merged session rebases onto it.
    const other = await repo.writableSession('main');
    await createArray(other.store, '/other');
    await other.commit('other');
    const snapshot = await session.commit('four workers', { rebaseWith: new ConflictDetector() });
    // Read back in a fresh handle, so nothing comes from the writers' memory.
    const reader = await (await Repository.open(Storage.newLocalFilesystem(dir))).readonlySession({ snapshotId: snapshot });
    const mismatches = (values: number[], perWorker: number) => values.filter((v, i) => v !== Math.floor(i / perWorker) + 1).length;
    const big = await readArray(reader, '/big');
    expect(big).toHaveLength(4 * BIG);
    expect(mismatches(big, BIG)).toBe(0);
    const mid = await readArray(reader, '/mid');
    expect(mid).toHaveLength(16 * LARGE_CHUNK);
    expect(mismatches(mid, 4 * LARGE_CHUNK)).toBe(0);
    expect(await reader.store.get('other/zarr.json')).toBeDefined();
  }, 90_000);
});
