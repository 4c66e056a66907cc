// Small chunks of one session share pack objects (src/txn/chunk-packer.ts): fewer objects, the
// same values, packs in storage before any snapshot refers to them.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { idToString } from '../../src/format/icechunk/ids.ts';
import { decodeManifest } from '../../src/format/icechunk/manifest.ts';
import { Repository, Session, Storage, type RepositoryOptions } from '../../src/txn/index.ts';

// 50 int32 per chunk = 200 bytes, above an inline threshold of 100; packs hold 5 chunks.
const PACKING: RepositoryOptions = { chunkPacking: { maxChunkBytes: 300, packBytes: 1000 } };
const META = { shape: [500], chunkShape: [50], dataType: 'int32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] } as never;
const expected = (n: number, k = 1) => Array.from({ length: n }, (_, i) => k * i + 3);

async function repoOver(backend: ObjectStorage, options = PACKING) {
  return Repository.create(Storage.fromObjectStorage(backend), { inlineChunkThresholdBytes: 100 }, 2, {}, options);
}

async function keys(backend: ObjectStorage, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of backend.list(prefix)) out.push(o.key);
  return out;
}

async function read(session: Session, path = '/a'): Promise<number[]> {
  return Array.from((await (await ZarrArray.open(session.store, path)).get()).data as Int32Array);
}

async function write(session: Session, n: number, k = 1): Promise<void> {
  const a = await ZarrArray.create(session.store, '/a', META);
  await a.set([slice(0, n)], Int32Array.from(expected(n, k)));
}

describe('chunk packing', () => {
  it('writes a pack when full and the last one at commit; refs point into packs at their offsets', async () => {
    const backend = new MemoryStorage();
    const repo = await repoOver(backend);
    const session = await repo.writableSession('main');
    await write(session, 500); // 10 chunks: one full pack written, the second still open
    expect(await keys(backend, 'chunks/')).toHaveLength(1);
    expect(await read(session)).toEqual(expected(500)); // half of it from memory
    await session.commit('packed');
    const packs = await keys(backend, 'chunks/');
    expect(packs).toHaveLength(2);
    const [manifestKey] = await keys(backend, 'manifests/');
    const manifest = decodeManifest((await backend.get(manifestKey!))!.bytes);
    const offsetsByPack = new Map<string, number[]>();
    for (const r of manifest.arrays[0]!.refs) {
      if (r.kind !== 'native') throw new Error(`expected native refs, got ${r.kind}`);
      expect(r.length).toBe(200);
      const id = `chunks/${idToString(r.chunkId)}`;
      offsetsByPack.set(id, [...(offsetsByPack.get(id) ?? []), r.offset]);
    }
    expect([...offsetsByPack.keys()].sort()).toEqual([...packs].sort());
    for (const offsets of offsetsByPack.values()) expect(offsets.sort((x, y) => x - y)).toEqual([0, 200, 400, 600, 800]);
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(await read(reader)).toEqual(expected(500));
  });

  it('gives chunks above maxChunkBytes an object of their own at set time', async () => {
    const backend = new MemoryStorage();
    const repo = await repoOver(backend, { chunkPacking: { maxChunkBytes: 100, packBytes: 1000 } });
    const session = await repo.writableSession('main');
    await write(session, 150);
    expect(await keys(backend, 'chunks/')).toHaveLength(3);
  });

  it('writes nothing for discarded changes', async () => {
    const backend = new MemoryStorage();
    const repo = await repoOver(backend);
    const session = await repo.writableSession('main');
    await write(session, 100);
    session.discardChanges();
    await session.commit('empty', { allowEmpty: true });
    expect(await keys(backend, 'chunks/')).toEqual([]);
  });

  it('a fork carries its unwritten pack through JSON; the merging session writes it', async () => {
    const backend = new MemoryStorage();
    const repo = await repoOver(backend);
    const setup = await repo.writableSession('main');
    await ZarrArray.create(setup.store, '/a', META);
    await setup.commit('array');
    const main = await repo.writableSession('main');
    const fork = main.fork();
    await (await ZarrArray.open(fork.store, '/a')).set([slice(0, 150)], Int32Array.from(expected(150, 2)));
    const json = JSON.parse(JSON.stringify(fork)) as { packs?: unknown[] };
    expect(json.packs).toHaveLength(1);
    expect(await keys(backend, 'chunks/')).toEqual([]);
    await main.merge(await Session.fromFork(repo, json));
    await main.commit('merged');
    expect(await keys(backend, 'chunks/')).toHaveLength(1);
    expect((await read(await repo.readonlySession({ branch: 'main' }))).slice(0, 150)).toEqual(expected(150, 2));
  });

  it('keeps a pack whose write failed, serves its chunks, and writes it at commit', async () => {
    let failNextChunkPut = true;
    const backend = new MemoryStorage();
    const flaky = withFaults(backend, (call) => {
      if (call.operation !== 'put' || !call.key.startsWith('chunks/') || !failNextChunkPut) return undefined;
      failNextChunkPut = false;
      return { kind: 'fail-before' };
    });
    const repo = await repoOver(flaky);
    const session = await repo.writableSession('main');
    const a = await ZarrArray.create(session.store, '/a', META);
    await a.set([slice(0, 250)], Int32Array.from(expected(250)));
    // The sixth chunk seals the first pack; its write fails, so that set fails.
    await expect(a.set([slice(250, 300)], Int32Array.from(expected(300).slice(250)))).rejects.toThrow(/injected fault/);
    expect(await keys(backend, 'chunks/')).toEqual([]);
    expect((await read(session)).slice(0, 250)).toEqual(expected(250));
    await a.set([slice(250, 300)], Int32Array.from(expected(300).slice(250)));
    await session.commit('after a failed pack write');
    const reader = await repo.readonlySession({ branch: 'main' });
    expect((await read(reader)).slice(0, 300)).toEqual(expected(300));
  });

  it('rejects invalid packing options with a typed error', async () => {
    await expect(repoOver(new MemoryStorage(), { chunkPacking: { maxChunkBytes: 2000, packBytes: 1000 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(repoOver(new MemoryStorage(), { chunkPacking: { packBytes: -1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
