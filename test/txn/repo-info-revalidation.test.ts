// The repo info file is the one mutable object: a reader keeps its decoded copy and revalidates it
// by version (a HEAD), downloading and decoding the file again only when another writer changed it.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ByteRange, GetResult, ObjectInfo } from '../../src/engine/storage/types.ts';
import { INITIAL_SNAPSHOT_ID } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import type { RepoInfo } from '../../src/format/icechunk/repo-info.ts';
import * as refs from '../../src/txn/refs.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { RepoInfoStore } from '../../src/txn/repo-info-store.ts';

/** Counts GETs and HEADs of the repo info file. */
class CountingStorage extends MemoryStorage {
  gets = 0;
  heads = 0;
  override async get(key: string, range?: ByteRange): Promise<GetResult | null> {
    if (key === REPO_INFO_KEY) this.gets++;
    return super.get(key, range);
  }
  override async head(key: string): Promise<ObjectInfo | null> {
    if (key === REPO_INFO_KEY) this.heads++;
    return super.head(key);
  }
}

function initialInfo(): RepoInfo {
  return {
    specVersion: 2, repoSpecVersion: 2, tags: [], branches: [{ name: 'main', snapshotId: INITIAL_SNAPSHOT_ID }], deletedTags: [],
    snapshots: [{ id: INITIAL_SNAPSHOT_ID, parentId: null, flushedAt: 1, message: 'init', metadata: [] }],
    status: { availability: 'online', setAt: 1, limitedAvailabilityReason: null }, metadata: [],
    latestUpdates: [{ update: { kind: 'repoInitialized' }, updatedAt: 1, backupPath: null }], repoBeforeUpdates: null,
    config: null, enabledFeatureFlags: null, disabledFeatureFlags: null,
  };
}

const options = { retries: 3, updatesPerFile: 100, backoff: async () => {} };

async function twoReaders() {
  const storage = new CountingStorage();
  const writer = new RepoInfoStore(storage, options);
  await writer.create(initialInfo());
  const reader = new RepoInfoStore(storage, options);
  const first = await reader.read();
  storage.gets = 0;
  storage.heads = 0;
  return { storage, writer, reader, first };
}

describe('repo info revalidation', () => {
  it('answers an unchanged file with one HEAD: no download, no decode', async () => {
    const { storage, reader, first } = await twoReaders();
    const again = await reader.read();
    const third = await reader.read();
    expect(storage.heads).toBe(2);
    expect(storage.gets).toBe(0);
    // The same decoded object: nothing was decoded again.
    expect(again).toBe(first);
    expect(third.info).toBe(first.info);
    expect(reader.cacheStats()).toMatchObject({ reads: 3, unchanged: 2, fetched: 1, decoded: 1, bytes: first.bytes.byteLength });
  });

  it('downloads and decodes the file once after another writer changed it', async () => {
    const { storage, writer, reader, first } = await twoReaders();
    await writer.update((info) => refs.createBranch(info, 'dev', INITIAL_SNAPSHOT_ID));
    storage.gets = 0;
    storage.heads = 0;
    const changed = await reader.read();
    expect(storage.gets).toBe(1);
    expect(changed.info).not.toBe(first.info);
    expect(changed.info.branches.map((b) => b.name).sort()).toEqual(['dev', 'main']);
    const unchanged = await reader.read();
    expect(storage.gets).toBe(1);
    expect(unchanged.info).toBe(changed.info);
    expect(reader.cacheStats()).toMatchObject({ fetched: 2, decoded: 2, unchanged: 1 });
  });

  it('keeps what it wrote itself without reading it back', async () => {
    const { storage, writer } = await twoReaders();
    const written = await writer.update((info) => refs.createTag(info, 'v1', INITIAL_SNAPSHOT_ID));
    storage.gets = 0;
    expect((await writer.read()).info).toBe(written);
    expect(storage.gets).toBe(0);
  });

  it('opening a repository downloads and decodes the file once; its first use only revalidates', async () => {
    const storage = new CountingStorage();
    await new RepoInfoStore(storage, options).create(initialInfo());
    storage.gets = 0;
    const repo = await Repository.open(Storage.fromObjectStorage(storage));
    expect(await repo.listBranches()).toEqual(['main']);
    expect(storage.gets).toBe(1);
    expect(repo.cacheStats().repoInfo).toMatchObject({ fetched: 0, decoded: 0, unchanged: 1 });
  });

  it('reports a deleted repo info file as NOT_FOUND', async () => {
    const { storage, reader } = await twoReaders();
    await storage.delete([REPO_INFO_KEY]);
    await expect(reader.read()).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
