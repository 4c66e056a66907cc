// Queries over Icechunk sessions: the same results as over a plain store, and only the manifests
// whose extents meet the selection are fetched (counted on the repository's object storage).
import { describe, expect, it } from 'vitest';
import { ReadCaches, query } from '../../src/query/index.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ByteRange, GetResult } from '../../src/engine/storage/types.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { Repository } from '../../src/txn/repository.ts';
import { Storage } from '../../src/txn/storage.ts';
import { expectedBox, range, weatherStore } from './support.ts';

/** Object storage that logs every key it serves. */
class LoggedStorage extends MemoryStorage {
  readonly gets: string[] = [];
  override async get(key: string, range?: ByteRange): Promise<GetResult | null> {
    this.gets.push(key);
    return super.get(key, range);
  }
}

async function weatherRepo() {
  const backend = new LoggedStorage();
  // One manifest per time chunk (24 steps), so a selection in one day touches one manifest of two.
  const config = { manifest: { splitting: { split_sizes: [['AnyArray', [{ condition: { DimensionName: 'time' }, num_chunks: 1 }]]] } } };
  const repo = await Repository.create(Storage.fromObjectStorage(backend), config);
  const writer = await repo.writableSession('main');
  await ZarrGroup.create(writer.store, '/');
  await weatherStore(writer.store);
  await writer.commit('weather');
  // A fresh handle: its manifest cache is cold, as in a new process.
  return { repo: await Repository.open(Storage.fromObjectStorage(backend)), backend };
}

describe('queries over sessions', () => {
  it('loads only the manifests whose extents meet the selection and lists them in explain()', async () => {
    const { repo, backend } = await weatherRepo();
    const session = await repo.readonlySession({ branch: 'main' });
    const q = query(session).from('/temperature', 'float32').where('time', '>=', new Date(Date.UTC(2000, 0, 2, 1))).whereIndex('lat', 0, 2).whereIndex('lon', 0, 3);
    backend.gets.length = 0;
    const { plan, text } = await q.explain();
    const temperature = plan.arrays[0]!;
    expect(temperature.manifests).toHaveLength(1);
    expect(temperature.manifests![0]!.extents[0]).toEqual({ from: 1, to: 2 });
    expect(text).toMatch(/manifests 1: \w+ \(loaded\)/);
    const manifestGets = backend.gets.filter((k) => k.startsWith('manifests/'));
    // Five manifests in the snapshot (temperature split in two by time, one per coordinate); the query
    // needs the time coordinate's (labels) and temperature's second one (lat/lon are positional).
    expect(await repo.lookupManifestFiles(session.snapshotId)).toHaveLength(5);
    expect(manifestGets).toHaveLength(2);
    expect(manifestGets).toContain(`manifests/${temperature.manifests![0]!.id}`);
    const r = await q.execute();
    expect(Array.from(r.data)).toEqual(expectedBox(range(25, 48), [0, 1], [0, 1, 2]));
    expect(r.report.fetched.unplanned.requests).toBe(0);
  });

  it('reads the same values through a session as through a plain store, and caches by snapshot', async () => {
    const { repo, backend } = await weatherRepo();
    const session = await repo.readonlySession({ branch: 'main' });
    const plain = await weatherStore();
    const build = (src: Parameters<typeof query>[0], caches?: ReadCaches) =>
      query(src, { caches }).from('/temperature', 'float32').where('lat', 'between', [-30, 30]).stride('lon', 5).whereIndex('time', 20, 28);
    const expected = Array.from((await build(plain).execute()).data);
    const caches = new ReadCaches();
    expect(Array.from((await build(session, caches).execute()).data)).toEqual(expected);
    backend.gets.length = 0;
    const again = await build(session, caches).execute();
    expect(Array.from(again.data)).toEqual(expected);
    expect(again.report.fetched.data.requests + again.report.fetched.shardIndex.requests).toBe(0);
    expect(backend.gets.filter((k) => k.startsWith('chunks/'))).toEqual([]);
  });

  it('does not cache reads of a writable session, whose chunks may change', async () => {
    const { repo } = await weatherRepo();
    const writer = await repo.writableSession('main');
    const caches = new ReadCaches();
    const q = () => query(writer, { caches }).from('/temperature', 'float32').whereIndex('time', 0, 1).whereIndex('lat', 0, 1).whereIndex('lon', 0, 1);
    await q().execute();
    const second = await q().execute();
    expect(second.report.cacheHits).toEqual({ shardIndexes: 0, chunks: 0, coordinates: 0 });
    expect(second.report.fetched.data.requests).toBe(1);
  });
});
