import { describe, expect, it } from 'vitest';
import { INITIAL_SNAPSHOT_ID, idToString } from '../../../src/format/icechunk/ids.ts';
import { ancestryIds, commitValues, memoryRepo, readValues } from './helpers.ts';

const INITIAL = idToString(INITIAL_SNAPSHOT_ID);
const MIN = 60_000;

describe('expireSnapshots', () => {
  it('keeps tips and newer snapshots, re-parents onto the root, drops the rest, one ExpirationRan entry', async () => {
    const { repo, clock } = await memoryRepo();
    clock.advance(MIN);
    const a = await commitValues(repo, 'main', [1, 1, 1, 1, 1, 1, 1, 1]);
    clock.advance(MIN);
    const b = await commitValues(repo, 'main', [2, 2, 2, 2, 2, 2, 2, 2]);
    await repo.createTag('old-tag', a);
    await repo.createBranch('stale', b);
    clock.advance(MIN);
    const cutoff = new Date(clock.nowMs());
    clock.advance(MIN);
    const c = await commitValues(repo, 'main', [3, 3, 3, 3, 3, 3, 3, 3]);
    clock.advance(MIN);
    const d = await commitValues(repo, 'main', [4, 4, 4, 4, 4, 4, 4, 4]);
    const before = (await repo.repoInfo()).latestUpdates.length;

    const result = await repo.expireSnapshots(cutoff);
    expect(result.releasedSnapshots).toEqual([]); // a and b are tips of kept refs
    expect(result.deletedBranches).toEqual([]);
    // As in the reference, a snapshot some kept ref points at is never released, even inside
    // another branch's expired history: main still passes through b and a.
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([d, c, b, a, INITIAL]);
    expect(await ancestryIds(repo, { tag: 'old-tag' })).toEqual([a, INITIAL]);
    expect(await ancestryIds(repo, { branch: 'stale' })).toEqual([b, a, INITIAL]);
    // Deleting the branch releases b; main then skips straight from c to the root.
    const second = await repo.expireSnapshots(cutoff, { deleteExpiredBranches: true });
    expect(second.deletedBranches).toEqual(['stale']);
    expect(second.releasedSnapshots).toEqual([b]);
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([d, c, INITIAL]);
    const info = await repo.repoInfo();
    expect(info.latestUpdates.length).toBe(before + 2);
    expect(info.latestUpdates.slice(0, 2).map((u) => u.update.kind)).toEqual(['expirationRan', 'expirationRan']);
    expect(await readValues(repo, { branch: 'main' })).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
    expect(await readValues(repo, { tag: 'old-tag' })).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('deletes expired branches and tags on request, never main and never refs at the root', async () => {
    const { repo, clock } = await memoryRepo();
    clock.advance(MIN);
    const a = await commitValues(repo, 'main', [1, 1, 1, 1, 1, 1, 1, 1]);
    await repo.createTag('t-old', a);
    await repo.createTag('t-root', INITIAL);
    await repo.createBranch('b-old', a);
    clock.advance(MIN);
    const cutoff = new Date(clock.nowMs());
    clock.advance(MIN);
    const fresh = await commitValues(repo, 'main', [2, 2, 2, 2, 2, 2, 2, 2]);
    await repo.createBranch('b-new', fresh);
    const result = await repo.expireSnapshots(cutoff, { deleteExpiredBranches: true, deleteExpiredTags: true });
    expect(result.deletedBranches).toEqual(['b-old']);
    expect(result.deletedTags).toEqual(['t-old']);
    expect(result.releasedSnapshots).toEqual([a]);
    expect(await repo.listBranches()).toEqual(['b-new', 'main']);
    expect(await repo.listTags()).toEqual(['t-root']);
    expect((await repo.repoInfo()).deletedTags).toContain('t-old');
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([fresh, INITIAL]);
  });

  it('keeps main even when its tip expired, and is a no-op on a young repository', async () => {
    const { repo, clock } = await memoryRepo();
    clock.advance(MIN);
    const a = await commitValues(repo, 'main', [1, 1, 1, 1, 1, 1, 1, 1]);
    const b = await commitValues(repo, 'main', [5, 1, 1, 1, 1, 1, 1, 1]);
    expect((await repo.expireSnapshots(new Date(0))).releasedSnapshots).toEqual([]);
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([b, a, INITIAL]);
    clock.advance(MIN);
    const result = await repo.expireSnapshots(new Date(clock.nowMs()), { deleteExpiredBranches: true });
    expect(result.releasedSnapshots).toEqual([a]);
    expect(await ancestryIds(repo, { branch: 'main' })).toEqual([b, INITIAL]);
    await expect(repo.expireSnapshots(new Date(Number.NaN))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
