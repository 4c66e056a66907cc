// Queries over Icechunk sessions: the same results as over a plain store, only the manifests whose
// extents meet the selection are fetched (counted on the repository's object storage), and the
// repository's read caches serve every session of one snapshot, never a writable session's changes.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ByteRange, GetResult } from '../../src/engine/storage/types.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { query } from '../../src/query/index.ts';
import type { RepositoryConfig } from '../../src/txn/config.ts';
import { Repository, type RepositoryOptions } from '../../src/txn/repository.ts';
import { Storage } from '../../src/txn/storage.ts';
import { expectedBox, range, value, weatherStore } from './support.ts';

/** Object storage that logs every key (and range) it serves. */
class LoggedStorage extends MemoryStorage {
  readonly gets: string[] = [];
  override async get(key: string, range?: ByteRange): Promise<GetResult | null> {
    this.gets.push(range ? `${key} ${JSON.stringify(range)}` : key);
    return super.get(key, range);
  }
  manifestGets(): string[] {
    return this.gets.filter((k) => k.startsWith('manifests/'));
  }
  chunkGets(): string[] {
    return this.gets.filter((k) => k.startsWith('chunks/'));
  }
}

async function weatherRepo(options: RepositoryOptions = {}) {
  const backend = new LoggedStorage();
  // One manifest per time chunk (24 steps), so a selection in one day touches one manifest of two.
  const config: RepositoryConfig = { manifest: { splitting: { split_sizes: [['any_array', [{ condition: { DimensionName: 'time' }, num_chunks: 1 }]]] } } };
  const repo = await Repository.create(Storage.fromObjectStorage(backend), config);
  const writer = await repo.writableSession('main');
  await ZarrGroup.create(writer.store, '/');
  await weatherStore(writer.store);
  await writer.commit('weather');
  // A fresh handle: its caches are cold, as in a new process.
  return { repo: await Repository.open(Storage.fromObjectStorage(backend), undefined, {}, options), backend };
}

const dayTwo = (src: Parameters<typeof query>[0]) =>
  query(src).from('/temperature', 'float32').where('time', '>=', new Date(Date.UTC(2000, 0, 2, 1))).whereIndex('lat', 0, 2).whereIndex('lon', 0, 3);

describe('queries over sessions', () => {
  it('loads only the manifests whose extents meet the selection and lists them, fetched with their sizes, in explain()', async () => {
    const { repo, backend } = await weatherRepo();
    const session = await repo.readonlySession({ branch: 'main' });
    backend.gets.length = 0;
    const { plan, text } = await dayTwo(session).explain();
    const temperature = plan.arrays[0]!.manifests!;
    const time = plan.dims.find((d) => d.name === 'time')!.coordinate!.manifests!;
    expect(temperature).toHaveLength(1);
    expect(temperature[0]!.extents[0]).toEqual({ from: 1, to: 2 });
    // Five manifests in the snapshot (temperature split in two by time, one per coordinate); the query
    // needs the time coordinate's (labels) and temperature's second one (lat/lon are positional).
    expect(await repo.lookupManifestFiles(session.snapshotId)).toHaveLength(5);
    expect(backend.manifestGets().sort()).toEqual([`manifests/${temperature[0]!.id}`, `manifests/${time[0]!.id}`].sort());
    const size = async (id: string) => (await backend.head(`manifests/${id}`))!.size;
    expect(temperature[0]).toMatchObject({ status: 'fetched', bytes: await size(temperature[0]!.id) });
    expect(time[0]).toMatchObject({ status: 'fetched', bytes: await size(time[0]!.id) });
    expect(plan.planning.manifest).toEqual({ requests: 2, bytes: (await size(temperature[0]!.id)) + (await size(time[0]!.id)) });
    expect(text).toContain(`manifests 1: ${temperature[0]!.id} (fetched, ${await size(temperature[0]!.id)} B)`);
    expect(text).toMatch(/\nmanifests 2: 2 fetched \d+ B, 0 cached 0 B\n/);

    // Planned again (execute plans anew): the manifests come from the repository's cache.
    const r = await dayTwo(session).whereIndex('time', 0, 100).execute();
    expect(Array.from(r.data)).toEqual(expectedBox(range(25, 48), [0, 1], [0, 1, 2]));
    expect(r.plan.arrays[0]!.manifests![0]!.status).toBe('cached');
    expect(r.report.fetched.manifest.requests).toBe(0);
    expect(r.report.cacheHits.manifests).toBe(1);
    expect(r.report.fetched.unplanned.requests).toBe(0);
  });

  it('counts the manifests a query fetched in its execute report', async () => {
    const { repo, backend } = await weatherRepo();
    const session = await repo.readonlySession({ branch: 'main' });
    backend.gets.length = 0;
    const r = await dayTwo(session).execute();
    const fetched = backend.manifestGets();
    expect(fetched).toHaveLength(2);
    let bytes = 0;
    for (const key of fetched) bytes += (await backend.head(key))!.size;
    expect(r.report.fetched.manifest).toEqual({ requests: 2, bytes });
  });

  it('reads the same values through a session as through a plain store, caching by snapshot in the repository', async () => {
    const { repo, backend } = await weatherRepo();
    const session = await repo.readonlySession({ branch: 'main' });
    const build = (src: Parameters<typeof query>[0]) => query(src).from('/temperature', 'float32').where('lat', 'between', [-30, 30]).stride('lon', 5).whereIndex('time', 20, 28);
    const expected = Array.from((await build(await weatherStore()).execute()).data);
    expect(Array.from((await build(session).execute()).data)).toEqual(expected);
    backend.gets.length = 0;
    // Another session of the same snapshot: everything comes from the repository's caches.
    const other = await repo.readonlySession({ snapshotId: session.snapshotId });
    const again = await build(other).execute();
    expect(Array.from(again.data)).toEqual(expected);
    // Only zarr.json, which a session serves from the snapshot in memory.
    expect(again.report.total.requests).toBe(again.report.fetched.metadata.requests);
    expect(again.report.cacheHits).toMatchObject({ chunks: 24, decodedChunks: 0 });
    // Read again while cached, the chunks were kept decoded: the next query decodes nothing.
    const hot = await build(session).execute();
    expect(hot.report.cacheHits).toMatchObject({ chunks: 0, decodedChunks: 24 });
    expect(Array.from(hot.data)).toEqual(expected);
    expect(backend.chunkGets()).toEqual([]);
  });

  it('takes its cache budgets from the repository options and reports them in cacheStats()', async () => {
    const { repo } = await weatherRepo({ cache: { decodedChunkBytes: 3_000_000, chunkBytes: 2_000_000, shardIndexBytes: 100_000, coordinateBytes: 50_000 } });
    const session = await repo.readonlySession({ branch: 'main' });
    await dayTwo(session).execute();
    await dayTwo(session).execute(); // hot: now kept decoded
    const stats = repo.cacheStats();
    expect(stats.decodedChunks.maxBytes).toBe(3_000_000);
    expect(stats.chunks.maxBytes).toBe(2_000_000);
    expect(stats.shardIndexes.maxBytes).toBe(100_000);
    expect(stats.coordinates.maxBytes).toBe(50_000);
    // 23 hours x 2 lats x 3 lons touch the inner chunks [4..7] x [0] x [0] of one shard: 4 decoded, 720 B each.
    expect(stats.decodedChunks).toMatchObject({ entries: 4, bytes: 4 * 6 * 5 * 6 * 4 });
    expect(stats.coordinates.entries).toBe(1);
    expect(stats.manifests.entries).toBe(2);
    expect(stats.repoInfo?.reads).toBeGreaterThan(0);
  });

  it('evicts decoded chunks beyond a small budget and says so', async () => {
    // Room for 8 inner chunks of 720 B; the query touches 4 x 4 x 6 = 96.
    const { repo } = await weatherRepo({ cache: { decodedChunkBytes: 8 * 720 } });
    const session = await repo.readonlySession({ branch: 'main' });
    const q = () => query(session).from('/temperature', 'float32').whereIndex('time', 0, 24).whereIndex('lat', 0, 19).execute();
    await q();
    const r = await q();
    expect(Array.from(r.data.subarray(0, 3))).toEqual([value(0, 0, 0), value(0, 0, 1), value(0, 0, 2)]);
    const decoded = repo.cacheStats().decodedChunks;
    expect(decoded.bytes).toBeLessThanOrEqual(8 * 720);
    expect(decoded.evictions).toBe(decoded.misses - decoded.entries);
    expect(decoded.evictions).toBeGreaterThan(80);
  });

  it('fetches each object once when two sessions query one snapshot at the same time', async () => {
    const { repo, backend } = await weatherRepo();
    const [a, b] = [await repo.readonlySession({ branch: 'main' }), await repo.readonlySession({ branch: 'main' })];
    backend.gets.length = 0;
    const q = (s: typeof a) => query(s).from('/temperature', 'float32').where('lat', 'between', [-30, 30]).where('time', '<', new Date(Date.UTC(2000, 0, 1, 12))).stride('lon', 5);
    const [ra, rb] = await Promise.all([q(a).execute(), q(b).execute()]);
    expect(Array.from(ra.data)).toEqual(Array.from(rb.data));
    expect(backend.chunkGets().length).toBeGreaterThan(1);
    expect(backend.gets.length).toBe(new Set(backend.gets).size);
    // One of them fetched each manifest, the other found it cached (or in flight).
    const statuses = [...ra.plan.arrays[0]!.manifests!, ...rb.plan.arrays[0]!.manifests!].map((m) => m.status).sort();
    expect(statuses).toEqual(['cached', 'fetched']);
    // The data requests of one query joined the other's in flight.
    expect(repo.cacheStats().sharedRequests).toBeGreaterThan(0);
  });
});

describe('writable sessions and the shared caches', () => {
  const oneCell = (src: Parameters<typeof query>[0]) => query(src).from('/temperature', 'float32').whereIndex('time', 0, 1).whereIndex('lat', 0, 1).whereIndex('lon', 0, 2);

  it('reads its uncommitted changes, never the snapshot entries cached by others, and stores none of them', async () => {
    const { repo } = await weatherRepo();
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await oneCell(reader).execute()).data)).toEqual([value(0, 0, 0), value(0, 0, 1)]);
    const writer = await repo.writableSession('main');
    expect(writer.snapshotId).toBe(reader.snapshotId);
    const temperature = await ZarrArray.open(writer.store, '/temperature');
    await temperature.set([slice(0, 1), slice(0, 1), slice(0, 1)], Float32Array.of(-7));
    const before = repo.cacheStats();
    const dirty = await oneCell(writer).execute();
    expect(Array.from(dirty.data)).toEqual([-7, value(0, 0, 1)]);
    expect(dirty.report.cacheHits).toEqual({ shardIndexes: 0, chunks: 0, decodedChunks: 0, coordinates: 0, manifests: dirty.report.cacheHits.manifests });
    const after = repo.cacheStats();
    expect(after.decodedChunks.entries).toBe(before.decodedChunks.entries);
    expect(after.chunks.entries).toBe(before.chunks.entries);
    // The snapshot's readers still see the committed value.
    expect(Array.from((await oneCell(reader).execute()).data)).toEqual([value(0, 0, 0), value(0, 0, 1)]);
    // Committed, the change is a new snapshot: new cache keys, the new value.
    await writer.commit('cell');
    const next = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await oneCell(next).execute()).data)).toEqual([-7, value(0, 0, 1)]);
  });

  it('uses what read-only sessions cached while it has no changes, but stores nothing itself', async () => {
    const { repo, backend } = await weatherRepo();
    const writer = await repo.writableSession('main');
    const first = await oneCell(writer).execute();
    expect(first.report.fetched.data.requests).toBe(1);
    const stats = repo.cacheStats();
    expect(stats.decodedChunks.entries + stats.chunks.entries + stats.shardIndexes.entries).toBe(0);
    await oneCell(await repo.readonlySession({ branch: 'main' })).execute();
    backend.gets.length = 0;
    const warm = await oneCell(writer).execute();
    expect(warm.report.cacheHits).toMatchObject({ chunks: 1, shardIndexes: 1 });
    const unchanged = repo.cacheStats();
    await oneCell(writer).execute();
    expect(repo.cacheStats().decodedChunks.entries).toBe(unchanged.decodedChunks.entries);
    expect(backend.chunkGets()).toEqual([]);
    expect(Array.from(warm.data)).toEqual(Array.from(first.data));
  });
});
