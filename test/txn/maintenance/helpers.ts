// Shared by the maintenance tests: a repository over MemoryStorage with one FakeClock for
// both snapshot times and object lastModified, and small read/write helpers for one array.
import { ZarrArray } from '../../../src/engine/array.ts';
import { ZarrGroup } from '../../../src/engine/group.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { FakeClock } from '../../../src/testing/fake-clock.ts';
import { Repository, Storage, type Session } from '../../../src/txn/index.ts';

export async function memoryRepo(clock = new FakeClock()) {
  const backend = new MemoryStorage({ clock });
  const repo = await Repository.create(Storage.fromObjectStorage(backend), { inlineChunkThresholdBytes: 1 }, 2, {}, { clock });
  return { repo, backend, clock };
}

/** Writes `values` to `/a` (8 int32, chunks of 2) on `branch` and commits; creates the array once. */
export async function commitValues(repo: Repository, branch: string, values: number[], message = 'write'): Promise<string> {
  const session = await repo.writableSession(branch);
  let array: ZarrArray;
  try {
    array = await ZarrArray.open(session.store, '/a');
  } catch {
    await ZarrGroup.create(session.store, '/');
    array = await ZarrArray.create(session.store, '/a', { shape: [values.length], chunkShape: [2], dataType: 'int32', fillValue: 0 } as never);
  }
  await array.set(undefined, Int32Array.from(values));
  return session.commit(message);
}

export async function readValues(repo: Repository, options: Parameters<Repository['readonlySession']>[0]): Promise<number[] | null> {
  const session = await repo.readonlySession(options);
  try {
    return Array.from((await (await ZarrArray.open(session.store, '/a')).get()).data as Int32Array);
  } catch (err) {
    if ((err as { code?: string }).code === 'NOT_FOUND') return null;
    throw err;
  }
}

export async function keysUnder(storage: ObjectStorage, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of storage.list(prefix)) out.push(o.key);
  return out;
}

export async function ancestryIds(repo: Repository, options: Parameters<Repository['ancestry']>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const s of repo.ancestry(options)) out.push(s.id);
  return out;
}

/** `/a` of two 68,000-byte chunks (17,000 int32): large enough to get chunk objects of their own. */
export async function createFillArray(session: Session): Promise<void> {
  await ZarrGroup.create(session.store, '/');
  await ZarrArray.create(session.store, '/a', { shape: [34_000], chunkShape: [17_000], dataType: 'int32', fillValue: 0 } as never);
}

/** Fills the whole of `/a` with `value`. */
export async function writeFill(session: Session, value: number): Promise<void> {
  const array = await ZarrArray.open(session.store, '/a');
  await array.set(undefined, new Int32Array(array.shape.reduce((a, b) => a * b, 1)).fill(value));
}

/** The distinct values of `/a` at a version (one, for an intact commit); null where there is no `/a`. */
export async function readFill(repo: Repository, version: Parameters<Repository['readonlySession']>[0]): Promise<number[] | null> {
  const session = await repo.readonlySession(version);
  if ((await session.store.get('a/zarr.json')) === undefined) return null;
  const data = (await (await ZarrArray.open(session.store, '/a')).get()).data as Int32Array;
  return [...new Set(data)].sort((x, y) => x - y);
}

const MINUTE = 60_000;

/**
 * `expired` commits of `/a` (values 1, 2, …), then one more (all 9s) after a cutoff that expires
 * them: their snapshots, logs, manifests and chunks become garbage. Returns the cutoff and how
 * many chunk objects the expired commits wrote (fewer than their chunks when sessions pack).
 */
export async function expiredHistory(expired: number) {
  const env = await memoryRepo();
  const { repo, clock, backend } = env;
  const ones = (v: number) => Array.from({ length: 8 }, () => v);
  clock.advance(MINUTE);
  for (let v = 1; v <= expired; v++) await commitValues(repo, 'main', ones(v));
  const expiredChunks = (await keysUnder(backend, 'chunks/')).length;
  clock.advance(MINUTE);
  const cutoff = new Date(clock.nowMs());
  clock.advance(MINUTE);
  await commitValues(repo, 'main', ones(9));
  await repo.expireSnapshots(cutoff);
  clock.advance(MINUTE);
  return { ...env, cutoff, expiredChunks };
}
