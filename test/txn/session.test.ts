import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { isFloeError } from '../../src/errors.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage, type RepositoryOptions } from '../../src/txn/index.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-session-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const int32 = { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never;
const values = async (store: ZarrArray['store'], p: string) => Array.from((await (await ZarrArray.open(store, p)).get()).data as Int32Array);

async function fresh(config = {}, options: RepositoryOptions = {}) {
  const backend = new MemoryStorage();
  const repo = await Repository.create(Storage.fromObjectStorage(backend), config, 2, {}, options);
  return { repo, backend, session: await repo.writableSession('main') };
}

describe('Session', () => {
  it('reads its own writes, commits, and tracks status', async () => {
    const { repo, session } = await fresh();
    expect(session.hasUncommittedChanges).toBe(false);
    await ZarrGroup.create(session.store, '/', { attributes: { title: 't' } });
    const a = await ZarrArray.create(session.store, '/g/a', int32);
    await a.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(await values(session.store, '/g/a')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await session.status()).toMatchObject({ newGroups: ['/'], newArrays: ['/g/a'], updatedChunks: { '/g/a': [[0], [1]] } });
    await expect(session.commit('')).resolves.toMatch(/^[0-9A-Z]{20}$/);
    expect(session.hasUncommittedChanges).toBe(false);
    await expect(session.commit('nothing')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await session.commit('empty', { allowEmpty: true });
    const ro = await repo.readonlySession({ branch: 'main' });
    expect(ro.readOnly).toBe(true);
    await expect(ro.store.set('zarr.json', new Uint8Array())).rejects.toMatchObject({ code: 'READ_ONLY' });
    expect(await values(ro.store, '/g/a')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('inlines small chunks and, without packing, writes larger ones as chunk objects at set time', async () => {
    const { backend, session } = await fresh({ inlineChunkThresholdBytes: 16 }, { chunkPacking: false });
    const a = await ZarrArray.create(session.store, '/a', { shape: [12], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
    await a.set(undefined, Int32Array.from({ length: 12 }, (_, i) => i + 1));
    const b = await ZarrArray.create(session.store, '/b', { shape: [10], chunkShape: [10], dataType: 'int32', fillValue: 0 } as never);
    await b.set(undefined, 7);
    const chunks: string[] = [];
    for await (const o of backend.list('chunks/')) chunks.push(o.key);
    expect(chunks).toHaveLength(1); // /b's 40-byte chunk; /a's 16-byte chunks are inline
    await session.commit('c');
    expect(await values(session.store, '/a')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await session.store.getRange('b/c/0', { offset: 4, length: 8 })).toEqual(new Uint8Array([7, 0, 0, 0, 7, 0, 0, 0]));
    expect(await session.store.getRange('b/c/0', { suffixLength: 4 })).toEqual(new Uint8Array([7, 0, 0, 0]));
  });

  it('deletes chunks with tombstones and nodes with their subtree; lists and listDirs', async () => {
    const { session } = await fresh();
    await ZarrGroup.create(session.store, '/');
    const a = await ZarrArray.create(session.store, '/g/a', int32);
    await a.set(undefined, 5);
    await ZarrGroup.create(session.store, '/g');
    await session.commit('one');
    const keys: string[] = [];
    for await (const k of session.store.list()) keys.push(k);
    expect(keys.sort()).toEqual(['g/a/c/0', 'g/a/c/1', 'g/a/zarr.json', 'g/zarr.json', 'zarr.json']);
    expect(await session.store.listDir('')).toEqual({ keys: ['zarr.json'], prefixes: ['g'] });
    expect(await session.store.listDir('g/a/')).toEqual({ keys: ['zarr.json'], prefixes: ['c'] });
    expect(await session.store.listDir('g/a/c')).toEqual({ keys: ['0', '1'], prefixes: [] });
    await session.store.erase('g/a/c/1');
    expect(await values(session.store, '/g/a')).toEqual([5, 5, 5, 5, 0, 0, 0, 0]);
    await session.commit('tombstone');
    expect(await values(session.store, '/g/a')).toEqual([5, 5, 5, 5, 0, 0, 0, 0]);
    await session.store.erasePrefix('g/');
    expect(await session.store.get('g/a/zarr.json')).toBeUndefined();
    expect(await session.status()).toMatchObject({ deletedGroups: ['/g'], deletedArrays: ['/g/a'] });
    await session.commit('deleted');
    expect((await ZarrGroup.open(session.store, '/').then((g) => g.children())).length).toBe(0);
  });

  it('detects a moved branch as a typed CONFLICT carrying the new tip', async () => {
    const { repo, session } = await fresh();
    await ZarrArray.create(session.store, '/a', int32);
    await session.commit('base');
    const s1 = await repo.writableSession('main');
    const s2 = await repo.writableSession('main');
    await (await ZarrArray.open(s1.store, '/a')).set(undefined, 1);
    await (await ZarrArray.open(s2.store, '/a')).set(undefined, 2);
    const tip = await s1.commit('s1');
    const err = await s2.commit('s2').catch((e: unknown) => e);
    expect(isFloeError(err, 'CONFLICT')).toBe(true);
    expect((err as { details: Record<string, unknown> }).details).toMatchObject({ kind: 'branch-moved', branch: 'main', currentSnapshotId: tip });
    expect(s2.hasUncommittedChanges).toBe(true);
    expect(await repo.lookupBranch('main')).toBe(tip);
    // The seam rebase plugs into: a handler may move the session onto the tip and retry.
    s2.onBranchMoved = async (moved) => {
      s2.rebaseOnto(await s2.objects.loadSnapshot(moved.current));
      return true;
    };
    const next = await s2.commit('s2 again');
    expect((await repo.lookupSnapshot(next)).parentId).toBe(tip);
  });

  it('amends the tip and flushes detached snapshots', async () => {
    const { repo, session } = await fresh();
    const a = await ZarrArray.create(session.store, '/a', int32);
    await a.set(undefined, 1);
    const first = await session.commit('first');
    await a.set(undefined, 2);
    const second = await session.commit('second');
    await a.set(undefined, 3);
    const amended = await session.amend('second, amended');
    expect(await repo.lookupBranch('main')).toBe(amended);
    expect((await repo.lookupSnapshot(amended)).parentId).toBe(first);
    expect(await values((await repo.readonlySession({ branch: 'main' })).store, '/a')).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
    expect(await values((await repo.readonlySession({ snapshotId: second })).store, '/a')).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    await a.set(undefined, 4);
    const detached = await session.flush('detached');
    expect(session.readOnly).toBe(true);
    expect(await repo.lookupBranch('main')).toBe(amended);
    expect((await repo.lookupSnapshot(detached)).parentId).toBe(amended);
    expect(await values((await repo.readonlySession({ snapshotId: detached })).store, '/a')).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('moves nodes with their children and records them', async () => {
    const { repo, session } = await fresh();
    await ZarrGroup.create(session.store, '/');
    await ZarrGroup.create(session.store, '/g');
    const a = await ZarrArray.create(session.store, '/g/a', int32);
    await a.set(undefined, 6);
    await session.commit('one');
    await ZarrGroup.create(session.store, '/h');
    await session.moveNode('/g', '/h/g2');
    expect(await session.store.get('g/zarr.json')).toBeUndefined();
    expect(await values(session.store, '/h/g2/a')).toEqual([6, 6, 6, 6, 6, 6, 6, 6]);
    expect((await session.status()).movedNodes).toEqual([{ from: '/g', to: '/h/g2' }, { from: '/g/a', to: '/h/g2/a' }]);
    await expect(session.moveNode('/h', '/h/x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(session.moveNode('/nope', '/x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const id = await session.commit('moved');
    const log = await session.objects.loadTransactionLog((await session.objects.loadSnapshot((await import('../../src/format/icechunk/ids.ts')).parseSnapshotId(id))).snapshot.id);
    expect(log!.movedNodes.map((m) => [m.from, m.to])).toEqual([['/g', '/h/g2'], ['/g/a', '/h/g2/a']]);
    expect(await values((await repo.readonlySession({ branch: 'main' })).store, '/h/g2/a')).toEqual([6, 6, 6, 6, 6, 6, 6, 6]);
  });

  it('discards changes', async () => {
    const { session } = await fresh();
    await ZarrArray.create(session.store, '/a', int32);
    session.discardChanges();
    expect(session.hasUncommittedChanges).toBe(false);
    expect(await session.store.get('a/zarr.json')).toBeUndefined();
  });

  it('reads virtual chunks only through an authorized container', async () => {
    const file = path.join(scratch, 'data.bin');
    writeFileSync(file, Buffer.from(Int32Array.from([0, 0, 11, 12, 13, 14, 0]).buffer));
    const prefix = pathToFileURL(scratch).href + '/';
    const config = { virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: scratch } } } };
    const storage = Storage.newInMemory();
    const repo = await Repository.create(storage, config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/v', int32);
    await session.store.setVirtualRef('v/c/0', pathToFileURL(file).href, 8, 16, null, null, true);
    await expect(session.store.setVirtualRef('v/c/1', 's3://elsewhere/x', 0, 16, null, null, true)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await session.commit('virtual');
    expect(await values((await repo.readonlySession({ branch: 'main' })).store, '/v')).toEqual([11, 12, 13, 14, 0, 0, 0, 0]);
    const stranger = await Repository.open(storage);
    const err = await values((await stranger.readonlySession({ branch: 'main' })).store, '/v').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'virtual-chunk-not-authorized' } });
  });

  it('serves zarrita through the same store', async () => {
    const { repo, session } = await fresh();
    const root = zarr.root(session.store as never);
    const arr = await zarr.create(root.resolve('/z'), { shape: [6], chunkShape: [3], dtype: 'float32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] } as never);
    await zarr.set(arr as never, null, { data: Float32Array.from([1, 2, 3, 4, 5, 6]), shape: [6], stride: [1] } as never);
    await session.commit('zarrita');
    const ro = await repo.readonlySession({ branch: 'main' });
    const back = await zarr.open(zarr.root(ro.store as never).resolve('/z'), { kind: 'array' });
    expect(Array.from((await zarr.get(back as never)).data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
  });
  it("offers the reference store's helpers: sizes, emptiness, conditional set, deleteDir, clear, setVirtualRefs", async () => {
    const file = path.join(scratch, 'refs.bin');
    writeFileSync(file, Buffer.from(Int32Array.from([21, 22, 23, 24, 25, 26, 27, 28]).buffer));
    const prefix = pathToFileURL(scratch).href + '/';
    const config = { inlineChunkThresholdBytes: 8, virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: scratch } } } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    const store = session.store;
    expect(store.supportsWrites && store.supportsDeletes && store.supportsListing).toBe(true);
    expect(await store.isEmpty('')).toBe(true);
    await ZarrGroup.create(store, '/');
    const a = await ZarrArray.create(store, '/g/a', int32); // chunks of 4 int32 = 16 bytes: native
    await a.set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(await store.isEmpty('g/')).toBe(false);
    expect(await store.isEmpty('h/')).toBe(true);
    expect(await store.getsize('g/a/c/0')).toBe(16);
    const metaBytes = (await store.get('g/a/zarr.json'))!.length;
    expect(await store.getsize('g/a/zarr.json')).toBe(metaBytes);
    expect(await store.getsizePrefix('g/a/')).toBe(metaBytes + 32);
    await expect(store.getsize('g/a/c/5')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await store.setIfNotExists('g/a/c/0', new Uint8Array(16).fill(9)); // exists: unchanged
    expect(await values(store, '/g/a')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const url = pathToFileURL(file).href;
    const failed = await store.setVirtualRefs('/g/a', [
      { index: [0], location: url, offset: 0, length: 16 },
      { index: [1], location: url, offset: 16, length: 16 },
      { index: [7], location: url, offset: 0, length: 16 }, // outside the 2-chunk grid
      { index: [1], location: 's3://elsewhere/x', offset: 0, length: 16 }, // no container serves it
    ]);
    expect(failed).toEqual([[7], [1]]);
    expect(await values(store, '/g/a')).toEqual([21, 22, 23, 24, 25, 26, 27, 28]);
    await store.deleteDir('g');
    expect(await store.isEmpty('g/')).toBe(true);
    expect(await store.isEmpty('')).toBe(false); // the root group remains
    await store.clear();
    expect(await store.isEmpty('')).toBe(true);
    const ro = await repo.readonlySession({ branch: 'main' });
    expect(ro.store.supportsWrites).toBe(false);
  });
});
