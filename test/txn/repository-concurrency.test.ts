// RepositoryOptions.concurrency bounds what a session keeps in flight when it fans out over a
// caller's list (here: getPartialValues over chunk keys), and is validated up front.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

// 50 int32 per chunk = 200 bytes: above the inline threshold, so each chunk is an object of its own.
const META = { shape: [1000], chunkShape: [50], dataType: 'int32', fillValue: 0 } as never;
const CHUNKS = 20;

/** A memory backend that counts chunk-object reads in flight; each takes a few turns. */
function countingBackend() {
  const backend = new MemoryStorage();
  const counts = { inFlight: 0, peak: 0, reads: 0 };
  const get = backend.get.bind(backend);
  backend.get = async (key, range) => {
    if (!key.startsWith('chunks/')) return get(key, range);
    counts.reads++;
    counts.peak = Math.max(counts.peak, ++counts.inFlight);
    for (let i = 0; i < 3; i++) await Promise.resolve();
    counts.inFlight--;
    return get(key, range);
  };
  return { backend, counts };
}

describe('RepositoryOptions.concurrency', () => {
  it.each([3, 8])('keeps %i chunk reads of one getPartialValues call in flight', async (concurrency) => {
    const { backend, counts } = countingBackend();
    const storage = Storage.fromObjectStorage(backend);
    const writer = await Repository.create(storage, { inlineChunkThresholdBytes: 100 }, 2, {}, { chunkPacking: false });
    const session = await writer.writableSession('main');
    await ZarrGroup.create(session.store, '/');
    await (await ZarrArray.create(session.store, '/a', META)).set(undefined, 7);
    await session.commit('twenty chunks');
    const reader = await (await Repository.open(storage, undefined, undefined, { concurrency })).readonlySession({ branch: 'main' });
    const values = await reader.store.getPartialValues(Array.from({ length: CHUNKS }, (_, i) => [`a/c/${i}`, undefined] as const));
    expect(values.map((v) => v?.length)).toEqual(Array.from({ length: CHUNKS }, () => 200));
    expect(counts.reads).toBe(CHUNKS);
    expect(counts.peak).toBe(concurrency);
  });

  it('refuses a limit that is not a positive integer, on create and on open', async () => {
    const storage = Storage.newInMemory();
    for (const concurrency of [0, -2, 1.5, Number.NaN]) {
      await expect(Repository.create(storage, {}, 2, {}, { concurrency }), String(concurrency)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await Repository.create(storage);
    await expect(Repository.open(storage, undefined, undefined, { concurrency: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('concurrency must be a positive integer'),
    });
  });
});
