import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-repo-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function repoWithArray(storage = Storage.newInMemory()) {
  const repo = await Repository.create(storage);
  const session = await repo.writableSession('main');
  await ZarrGroup.create(session.store, '/');
  const array = await ZarrArray.create(session.store, '/a', { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
  await array.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
  const first = await session.commit('first');
  return { repo, session, first };
}

const read = async (repo: Repository, options: Parameters<Repository['readonlySession']>[0], p = '/a') =>
  Array.from((await (await ZarrArray.open((await repo.readonlySession(options)).store, p)).get()).data as Int32Array);

describe('Repository', () => {
  it('creates the initial snapshot, its transaction log and the repo info', async () => {
    const backend = new MemoryStorage();
    const repo = await Repository.create(Storage.fromObjectStorage(backend));
    expect(await backend.head('snapshots/1CECHNKREP0F1RSTCMT0')).not.toBeNull();
    expect(await backend.head('transactions/1CECHNKREP0F1RSTCMT0')).not.toBeNull();
    expect(await repo.lookupBranch('main')).toBe('1CECHNKREP0F1RSTCMT0');
    expect(await Repository.exists(backend)).toBe(true);
    expect(await Repository.exists(new MemoryStorage())).toBe(false);
    await expect(Repository.create(backend)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(Repository.open(new MemoryStorage())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const again = await Repository.openOrCreate(backend);
    expect(await again.listBranches()).toEqual(['main']);
  });

  it('openOrCreate racing itself on one new storage: every caller gets the one repository', async () => {
    const backend = new MemoryStorage();
    const repos = await Promise.all(Array.from({ length: 4 }, () => Repository.openOrCreate(backend)));
    const tips = await Promise.all(repos.map((repo) => repo.lookupBranch('main')));
    expect(new Set(tips).size).toBe(1);
    expect(await repos[0]?.listBranches()).toEqual(['main']);
  });

  it('works on the local filesystem and SQLite backends', async () => {
    for (const storage of [Storage.newLocalFilesystem(path.join(scratch, 'fs')), Storage.newSqlite(path.join(scratch, 'db.sqlite'))]) {
      const { first } = await repoWithArray(storage);
      const reopened = await Repository.open(storage);
      expect(await reopened.lookupBranch('main')).toBe(first);
      expect(await read(reopened, { branch: 'main' })).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
  });

  it('manages branches and tags; deleted tags cannot be recreated', async () => {
    const { repo, first } = await repoWithArray();
    await repo.createBranch('dev', first);
    await repo.createTag('v1', first);
    expect(await repo.listBranches()).toEqual(['dev', 'main']);
    expect(await repo.lookupTag('v1')).toBe(first);
    await expect(repo.createBranch('dev', first)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(repo.createTag('v1', first)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await repo.deleteTag('v1');
    await expect(repo.createTag('v1', first)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await repo.deleteBranch('dev');
    await expect(repo.lookupBranch('dev')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(repo.deleteBranch('main')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(repo.createBranch('x', '00000000000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('resets a branch, honouring the expected current snapshot', async () => {
    const { repo, session, first } = await repoWithArray();
    const a = await ZarrArray.open(session.store, '/a');
    await a.set(undefined, 9);
    const second = await session.commit('second');
    await expect(repo.resetBranch('main', first, first)).rejects.toMatchObject({ code: 'CONFLICT' });
    await repo.resetBranch('main', first, second);
    expect(await repo.lookupBranch('main')).toBe(first);
    expect(await read(repo, { branch: 'main' })).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await read(repo, { snapshotId: second })).toEqual([9, 9, 9, 9, 9, 9, 9, 9]);
  });

  it('walks ancestry, finds versions by time and diffs any two versions', async () => {
    const clock = new FakeClock();
    const repo = await Repository.create(Storage.newInMemory(), {}, 2, {}, { clock });
    const s = await repo.writableSession('main');
    await ZarrGroup.create(s.store, '/');
    const a = await ZarrArray.create(s.store, '/a', { shape: [8], chunkShape: [4], dataType: 'int32' } as never);
    await a.set(undefined, 1);
    clock.advance(60_000);
    const c1 = await s.commit('one', { metadata: { author: 'me' } });
    await a.set([slice(4, 8)], 2);
    await ZarrGroup.create(s.store, '/g');
    clock.advance(60_000);
    const c2 = await s.commit('two');
    const history = [];
    for await (const snap of repo.ancestry({ branch: 'main' })) history.push(snap);
    expect(history.map((h) => h.message)).toEqual(['two', 'one', 'Repository initialized']);
    expect(history[1]).toMatchObject({ id: c1, metadata: { author: 'me' } });
    const old = await repo.readonlySession({ branch: 'main', asOf: new Date(Date.UTC(2030, 0, 1) + 90_000) });
    expect(old.snapshotId).toBe(c1);
    const diff = await repo.diff({ fromSnapshotId: c1, toBranch: 'main' });
    expect(diff.newGroups).toEqual(['/g']);
    expect(diff.updatedChunks).toEqual({ '/a': [[1]] });
    expect(await repo.lookupSnapshot(c2)).toMatchObject({ message: 'two', parentId: c1 });
  });

  it('keeps config, metadata, feature flags and status in the repo info', async () => {
    const storage = Storage.newInMemory();
    const repo = await Repository.create(storage, { inlineChunkThresholdBytes: 64 });
    await repo.setMetadata({ owner: 'floe', n: 3 });
    expect(await (await Repository.open(storage)).getMetadata()).toEqual({ owner: 'floe', n: 3 });
    expect((await Repository.open(storage)).config.inlineChunkThresholdBytes).toBe(64);
    const tuned = await Repository.open(storage, { inlineChunkThresholdBytes: 10 });
    await tuned.saveConfig();
    expect((await Repository.open(storage)).config.inlineChunkThresholdBytes).toBe(10);
    await repo.setFeatureFlag('create_tag', false);
    expect((await repo.featureFlags()).find((f) => f.name === 'create_tag')).toMatchObject({ enabled: false, setting: false });
    await expect(repo.createTag('t', await repo.lookupBranch('main'))).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    await repo.setFeatureFlag('create_tag', null);
    await repo.createTag('t', await repo.lookupBranch('main'));
    await repo.setStatus('read-only', 'maintenance');
    await expect(repo.writableSession('main')).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(repo.createBranch('b', await repo.lookupBranch('main'))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await repo.setStatus('online');
    await repo.createBranch('b', await repo.lookupBranch('main'));
  });
});
