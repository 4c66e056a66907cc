import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { INITIAL_SNAPSHOT_ID, idToString } from '../../../src/format/icechunk/ids.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { ancestryIds, commitValues, memoryRepo, readValues } from './helpers.ts';

const INITIAL = idToString(INITIAL_SNAPSHOT_ID);
const ones = (v: number) => Array.from({ length: 8 }, () => v);

describe('opsLog', () => {
  for (const perFile of [1, 2, 3, 1000]) {
    it(`lists every update newest first across backups (${perFile} per file)`, async () => {
      const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), { numUpdatesPerRepoInfoFile: perFile });
      for (let i = 0; i < 7; i++) await repo.createBranch(`b${i}`, INITIAL);
      await repo.createTag('t', INITIAL);
      const items = [];
      for await (const item of repo.opsLog()) items.push(item);
      expect(items.map((i) => (i.update as { name?: string }).name ?? i.update.kind)).toEqual(['t', 'b6', 'b5', 'b4', 'b3', 'b2', 'b1', 'b0', 'repoInitialized']);
      for (let i = 1; i < items.length; i++) expect(items[i]!.updatedAt.getTime()).toBeLessThanOrEqual(items[i - 1]!.updatedAt.getTime());
      expect((await repo.repoInfo()).latestUpdates.length).toBe(Math.min(perFile, 9));
    });
  }
});

describe('squash', () => {
  it('replaces a middle range by one snapshot and re-parents the rest of the branch', async () => {
    const { repo } = await memoryRepo();
    const ids = [];
    for (let v = 1; v <= 5; v++) ids.push(await commitValues(repo, 'main', ones(v), `c${v}`));
    const [c1, c2, c3, c4, c5] = ids as [string, string, string, string, string];
    const squashed = await repo.squash('main', c2, c4, 'c2..c4');
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([c5, squashed, c1, INITIAL]);
    expect(await readValues(repo, { snapshotId: squashed })).toEqual(ones(4));
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(5));
    expect((await repo.lookupSnapshot(squashed)).message).toBe('c2..c4');
    expect(await repo.lookupBranch('main')).toBe(c5);
    void c3;
  });

  it('squashing up to the tip moves the branch (commitAmended), like a commit, under CAS', async () => {
    const { repo } = await memoryRepo();
    const a = await commitValues(repo, 'main', ones(1));
    const b = await commitValues(repo, 'main', ones(2));
    const s = await repo.squash('main', a, b, 'all of it');
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([s, INITIAL]);
    expect((await repo.repoInfo()).latestUpdates[0]!.update.kind).toBe('commitAmended');
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(2));
    // The new snapshot's log covers the range: diffing works and a later commit builds on it.
    const c = await commitValues(repo, 'main', ones(3));
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([c, s, INITIAL]);
  });

  it('rejects bad ranges and the root', async () => {
    const { repo } = await memoryRepo();
    const a = await commitValues(repo, 'main', ones(1));
    const b = await commitValues(repo, 'main', ones(2));
    await expect(repo.squash('main', b, a, 'backwards')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(repo.squash('main', INITIAL, a, 'root')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await repo.createBranch('side', a);
    const side = await commitValues(repo, 'side', ones(7));
    await expect(repo.squash('main', side, side, 'not on main')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(repo.squash('nope', a, a, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  /** Runs `meanwhile` (from another handle) right after the squash writes its snapshot object. */
  function raceSquash(backend: MemoryStorage, meanwhile: () => Promise<unknown>): void {
    const put = backend.put.bind(backend);
    let raced = false;
    backend.put = async (key, bytes, options) => {
      const out = await put(key, bytes, options);
      if (!raced && key.startsWith('snapshots/') && options?.ifNoneMatch) {
        raced = true;
        await meanwhile();
      }
      return out;
    };
  }

  it('a commit landing above the range during the squash is kept, re-parented onto the squashed snapshot', async () => {
    for (const rangeEndsAtTip of [true, false]) {
      const { repo, backend } = await memoryRepo();
      const a = await commitValues(repo, 'main', ones(1));
      const b = await commitValues(repo, 'main', ones(2));
      const c = rangeEndsAtTip ? undefined : await commitValues(repo, 'main', ones(3));
      const other = await Repository.open(Storage.fromObjectStorage(backend));
      let landed = '';
      raceSquash(backend, async () => (landed = await commitValues(other, 'main', ones(4))));
      const s = await repo.squash('main', a, b, 'a..b');
      expect(await repo.lookupBranch('main')).toBe(landed);
      expect(await ancestryIds(repo, { branch: 'main' })).toEqual([landed, ...(c ? [c] : []), s, INITIAL]);
      expect(await readValues(repo, { branch: 'main' })).toEqual(ones(4));
      expect(await readValues(repo, { snapshotId: s })).toEqual(ones(2));
      expect((await repo.repoInfo()).latestUpdates[0]!.update.kind).toBe('newDetachedSnapshot');
      // The kept commit's log is still right relative to its new parent: a later commit diffs cleanly.
      expect((await repo.diff({ fromSnapshotId: s, toBranch: 'main' })).updatedChunks).toEqual({ '/a': [[0], [1], [2], [3]] });
    }
  });

  it('a reset during the squash is a branch-moved CONFLICT that says what to do; nothing changes', async () => {
    const { repo, backend } = await memoryRepo();
    const a = await commitValues(repo, 'main', ones(1));
    const b = await commitValues(repo, 'main', ones(2));
    const other = await Repository.open(Storage.fromObjectStorage(backend));
    raceSquash(backend, () => other.resetBranch('main', a));
    const before = (await repo.repoInfo()).snapshots.length;
    const err = (await repo.squash('main', a, b, 'racy').then(() => undefined, (e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved', branch: 'main', currentSnapshotId: a } });
    expect(err.message).toMatch(/reset, amended or squashed.*Read the branch's ancestry again/);
    expect(await repo.lookupBranch('main')).toBe(a);
    expect((await repo.repoInfo()).snapshots).toHaveLength(before);
  });

  it('an expiry rewriting the parent of the range during the squash is a history-rewritten CONFLICT', async () => {
    const { repo, backend, clock } = await memoryRepo();
    clock.advance(60_000);
    await commitValues(repo, 'main', ones(1));
    clock.advance(60_000);
    const cutoff = new Date(clock.nowMs());
    clock.advance(60_000);
    const b = await commitValues(repo, 'main', ones(2));
    const c = await commitValues(repo, 'main', ones(3));
    const other = await Repository.open(Storage.fromObjectStorage(backend), undefined, undefined, { clock });
    raceSquash(backend, () => other.expireSnapshots(cutoff)); // releases the range's parent
    const err = (await repo.squash('main', b, c, 'b..c').then(() => undefined, (e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: 'CONFLICT', details: { kind: 'history-rewritten' } });
    expect(err.message).toContain('squash the range you want');
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([c, b, INITIAL]);
  });
});
