// Rebase replays a session's changes over every commit made since it began, in order; the
// commit loop retries with it, bounded by rebaseTries, waiting a jittered backoff in between
// (retry-policy.ts; its schedule is tested in test/txn/retry-policy.test.ts).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { BasicConflictSolver, ConflictDetector, ConflictError, type ConflictSolver, type Resolution, type SolveInput } from '../../src/txn/index.ts';
import { baseRepository, createArray, createGroup, deleteNode, readArray, setAttribute, writeChunk } from './conflict-fixtures.ts';

describe('rebase', () => {
  it('replays over several intervening commits and keeps everyone’s work', async () => {
    const repo = await baseRepository();
    const ours = await repo.writableSession('main');
    const start = ours.snapshotId;
    const others = [];
    for (const [i, step] of [
      async (s: Parameters<typeof writeChunk>[0]) => writeChunk(s, '/a', 0, 10),
      async (s: Parameters<typeof writeChunk>[0]) => { await createGroup(s, '/t'); await writeChunk(s, '/g/b', 1, 11); },
      async (s: Parameters<typeof writeChunk>[0]) => setAttribute(s, '/g', 'them'),
    ].entries()) {
      const s = await repo.writableSession('main');
      await step(s.store);
      others.push(await s.commit(`other ${i}`));
    }
    await writeChunk(ours.store, '/a', 1, 20);
    await createArray(ours.store, '/t2');
    await writeChunk(ours.store, '/g/b', 0, 21);
    await ours.rebase();
    expect(ours.snapshotId).toBe(others[2]);
    expect(ours.snapshotId).not.toBe(start);
    const mine = await ours.commit('ours');
    expect((await repo.lookupSnapshot(mine)).parentId).toBe(others[2]);
    const history = [];
    for await (const s of repo.ancestry({ branch: 'main' })) history.push(s.id);
    expect(history.slice(0, 4)).toEqual([mine, others[2], others[1], others[0]]);
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(await readArray(reader, '/a')).toEqual([10, 10, 10, 10, 20, 20, 20, 20]);
    expect(await readArray(reader, '/g/b')).toEqual([21, 21, 21, 21, 11, 11, 11, 11]);
    expect(await readArray(reader, '/t2')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await reader.store.get('t/zarr.json')).toBeDefined();
  });

  it('finds a conflict in a middle commit, not only at the tip, and solves it there', async () => {
    const repo = await baseRepository();
    const ours = await repo.writableSession('main');
    for (const [i, value] of [[0, 5], [1, 6], [1, 7]] as const) {
      const s = await repo.writableSession('main');
      await writeChunk(s.store, '/a', i, value);
      await s.commit(`other ${i}`);
    }
    await writeChunk(ours.store, '/a', 0, 9);
    const err = await ours.rebase().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).conflicts).toEqual([expect.objectContaining({ type: 'ChunkDoubleUpdate', path: '/a', chunkCoordinates: [[0]] })]);
    // Solved by keeping theirs: the session ends on the tip with nothing left to commit.
    await ours.rebase(new BasicConflictSolver({ onChunkConflict: 'useTheirs' }));
    expect(ours.hasUncommittedChanges).toBe(false);
    expect(ours.snapshotId).toBe(await repo.lookupBranch('main'));
  });

  it('a node deleted and re-created by the other side: our delete record is dropped, their node stays', async () => {
    const repo = await baseRepository();
    const ours = await repo.writableSession('main');
    const s = await repo.writableSession('main');
    await deleteNode(s.store, '/g/b');
    await s.commit('they delete /g/b');
    await deleteNode(ours.store, '/g/b');
    await writeChunk(ours.store, '/a', 0, 3);
    await ours.rebase();
    expect((await ours.status()).deletedArrays).toEqual([]);
    await ours.commit('ours');
    expect(await readArray(ours, '/a')).toEqual([3, 3, 3, 3, 1, 1, 1, 1]);
  });

  it('is a no-op when the branch has not moved; refuses a branch reset past the session’s snapshot', async () => {
    const repo = await baseRepository();
    const ours = await repo.writableSession('main');
    await writeChunk(ours.store, '/a', 0, 3);
    const before = ours.snapshotId;
    await ours.rebase();
    expect(ours.snapshotId).toBe(before);
    const first = (await (async () => { const out = []; for await (const s of repo.ancestry({ branch: 'main' })) out.push(s.id); return out; })()).at(-1)!;
    await repo.resetBranch('main', first);
    await expect(ours.rebase()).rejects.toMatchObject({ code: 'CONFLICT', details: { kind: 'not-an-ancestor' } });
    const reader = await repo.readonlySession({ branch: 'main' });
    await expect(reader.rebase()).rejects.toMatchObject({ code: 'READ_ONLY' });
  });

  it('commit retries with rebaseWith until it lands, bounded by rebaseTries, backing off on the clock', async () => {
    const clock = new FakeClock();
    const repo = await baseRepository({ clock });
    const ours = await repo.writableSession('main');
    await writeChunk(ours.store, '/a', 0, 3);
    // A solver that lets another writer commit every time it runs: the branch always moves again.
    let calls = 0;
    const busy: ConflictSolver = {
      async solve(input: SolveInput): Promise<Resolution> {
        calls++;
        const s = await repo.writableSession('main');
        await writeChunk(s.store, '/g/b', calls % 2, calls);
        await s.commit(`interloper ${calls}`);
        return new ConflictDetector().solve(input);
      },
    };
    const other = await repo.writableSession('main');
    await writeChunk(other.store, '/g/b', 1, 99);
    await other.commit('first mover');
    const err = await ours.commit('ours', { rebaseWith: busy, rebaseTries: 4, retryBackoff: { random: () => 1, initialMs: 5 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved' } });
    // Three waits between four attempts; on this clock an attempt takes no time, so each is the floor.
    expect(clock.sleeps).toEqual([5, 5, 5]);
    expect(calls).toBeGreaterThanOrEqual(3);
    // Once the interloper stops, the same options land the commit.
    const snapshot = await ours.commit('ours', { rebaseWith: new ConflictDetector(), rebaseTries: 4 });
    expect(await repo.lookupBranch('main')).toBe(snapshot);
    expect(await readArray(ours, '/a')).toEqual([3, 3, 3, 3, 1, 1, 1, 1]);
  });
});
