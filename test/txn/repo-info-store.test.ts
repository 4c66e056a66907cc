import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { INITIAL_SNAPSHOT_ID } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, type RepoInfo } from '../../src/format/icechunk/repo-info.ts';
import { RepoInfoStore, withOpsLogEntry } from '../../src/txn/repo-info-store.ts';
import * as refs from '../../src/txn/refs.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';

function initialInfo(): RepoInfo {
  return {
    specVersion: 2, repoSpecVersion: 2, tags: [], branches: [{ name: 'main', snapshotId: INITIAL_SNAPSHOT_ID }], deletedTags: [],
    snapshots: [{ id: INITIAL_SNAPSHOT_ID, parentId: null, flushedAt: 1, message: 'init', metadata: [] }],
    status: { availability: 'online', setAt: 1, limitedAvailabilityReason: null }, metadata: [],
    latestUpdates: [{ update: { kind: 'repoInitialized' }, updatedAt: 1, backupPath: null }], repoBeforeUpdates: null,
    config: null, enabledFeatureFlags: null, disabledFeatureFlags: null,
  };
}

const noBackoff = async () => {};

describe('RepoInfoStore', () => {
  it('backs up the old file under overwritten/ and appends to the ops log', async () => {
    const storage = new MemoryStorage();
    const now = 1_700_000_000_000;
    const clock = new FakeClock({ startMs: now });
    const store = new RepoInfoStore(storage, { clock, retries: 5, updatesPerFile: 1000, backoff: noBackoff });
    await store.create(initialInfo());
    const before = (await storage.get(REPO_INFO_KEY))!.bytes;
    await store.update((info) => refs.createBranch(info, 'dev', INITIAL_SNAPSHOT_ID));
    const backups: string[] = [];
    for await (const o of storage.list('overwritten/')) backups.push(o.key);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(new RegExp(`^overwritten/repo\\.${32503680000000 - now}\\.[0-9A-Z]{20}$`));
    expect(Buffer.from((await storage.get(backups[0]!))!.bytes).equals(Buffer.from(before))).toBe(true);
    const info = decodeRepoInfo((await storage.get(REPO_INFO_KEY))!.bytes);
    expect(info.latestUpdates.map((u) => u.update.kind)).toEqual(['branchCreated', 'repoInitialized']);
    expect(info.latestUpdates[0]!.backupPath).toBeNull();
    expect(info.latestUpdates[1]!.backupPath).toBe(backups[0]!.slice('overwritten/'.length));
    // Time going backwards still gives strictly increasing updated_at.
    clock.setTime(now - 10_000);
    await store.update((i) => refs.createTag(i, 'v1', INITIAL_SNAPSHOT_ID));
    const again = decodeRepoInfo((await storage.get(REPO_INFO_KEY))!.bytes);
    expect(again.latestUpdates[0]!.updatedAt).toBeGreaterThan(again.latestUpdates[1]!.updatedAt);
  });

  it('retries a lost race by re-reading and re-applying', async () => {
    const storage = new MemoryStorage();
    const a = new RepoInfoStore(storage, { retries: 10, updatesPerFile: 1000, backoff: noBackoff });
    const b = new RepoInfoStore(storage, { retries: 10, updatesPerFile: 1000, backoff: noBackoff });
    await a.create(initialInfo());
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).update((info) => refs.createBranch(info, `b${i}`, INITIAL_SNAPSHOT_ID))));
    const info = decodeRepoInfo((await storage.get(REPO_INFO_KEY))!.bytes);
    expect(info.branches.map((r) => r.name).sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'main']);
    expect(info.latestUpdates).toHaveLength(9);
  });

  it('stops at the first change that no longer applies', async () => {
    const storage = new MemoryStorage();
    const store = new RepoInfoStore(storage, { retries: 10, updatesPerFile: 1000, backoff: noBackoff });
    await store.create(initialInfo());
    await store.update((info) => refs.createBranch(info, 'x', INITIAL_SNAPSHOT_ID));
    await expect(store.update((info) => refs.createBranch(info, 'x', INITIAL_SNAPSHOT_ID))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });

  it('refuses writes when the repository is read-only, except a status change', async () => {
    const storage = new MemoryStorage();
    const store = new RepoInfoStore(storage, { retries: 3, updatesPerFile: 1000, backoff: noBackoff });
    await store.create({ ...initialInfo(), status: { availability: 'read-only', setAt: 1, limitedAvailabilityReason: 'maintenance' } });
    await expect(store.update((info) => refs.createBranch(info, 'x', INITIAL_SNAPSHOT_ID))).rejects.toMatchObject({ code: 'READ_ONLY' });
    const status = { availability: 'online' as const, setAt: 2, limitedAvailabilityReason: null };
    await store.update((info) => ({ info: { ...info, status }, update: { kind: 'repoStatusChanged', status } }));
    await store.update((info) => refs.createBranch(info, 'x', INITIAL_SNAPSHOT_ID));
  });

  it('caps latest_updates and chains older entries through repo_before_updates', () => {
    let info = initialInfo();
    for (let i = 0; i < 5; i++) info = withOpsLogEntry(info, info, { kind: 'gcRan' }, 1000 + i, `repo.${i}`, 3);
    expect(info.latestUpdates).toHaveLength(3);
    expect(info.repoBeforeUpdates).toBe('repo.4');
  });

  it('create loses to an existing repository with ALREADY_EXISTS', async () => {
    const storage = new MemoryStorage();
    const store = new RepoInfoStore(storage, { retries: 3, updatesPerFile: 1000 });
    await store.create(initialInfo());
    const another = { ...initialInfo(), status: { availability: 'online' as const, setAt: 2, limitedAvailabilityReason: null } };
    await expect(store.create(another)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(decodeRepoInfo((await storage.get(REPO_INFO_KEY))!.bytes, REPO_INFO_KEY).status.setAt).toBe(1);
  });

  it('create that finds its own bytes (an earlier attempt landed, its answer lost) has created the repository', async () => {
    const storage = new MemoryStorage();
    await new RepoInfoStore(storage, { retries: 3, updatesPerFile: 1000 }).create(initialInfo());
    const retried = new RepoInfoStore(storage, { retries: 3, updatesPerFile: 1000 });
    await retried.create(initialInfo());
    expect((await retried.read()).info.status.setAt).toBe(1);
  });
});
