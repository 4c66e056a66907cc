// Cutouts through sessions share the repository's decoded-chunk cache, keyed by chunk ref: a
// window repeated in another session of the same snapshot copies from it, and once a chunk is
// rewritten (uncommitted, then committed) no session reads the old decoded chunk.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

const N = 128;
const values = Float32Array.from({ length: N * N }, (_, i) => (i % 499) / 4);
const META = {
  shape: [N, N], chunkShape: [64, 64], dataType: 'float32', fillValue: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
} as never;

const windowAt = async (array: ZarrArray, r: number, c: number) => Array.from((await array.get([slice(r, r + 8), slice(c, c + 8)])).data as Float32Array);

describe('cutouts on sessions', () => {
  it('share decoded chunks between sessions of a snapshot and never serve one a write replaced', async () => {
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), {}, 2, {}, { chunkPacking: false });
    const writer = await repo.writableSession('main');
    await (await ZarrArray.create(writer.store, '/a', META)).set(undefined, values);
    await writer.commit('values');
    const expected = Array.from({ length: 64 }, (_, k) => values[(3 + (k >> 3)) * N + 5 + (k & 7)]!);

    const first = await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a');
    expect(await windowAt(first, 3, 5)).toEqual(expected);
    const loads = repo.cacheStats().decodedChunks.loads;
    const second = await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a');
    expect(await windowAt(second, 3, 5)).toEqual(expected);
    expect(repo.cacheStats().decodedChunks.loads).toBe(loads); // copied from the first session's

    const editor = await repo.writableSession('main');
    const edited = await ZarrArray.open(editor.store, '/a');
    // Values that do not compress to an inline chunk: the new ref names a new chunk object.
    const patch = Float32Array.from({ length: 64 * 64 }, (_, i) => Math.sin(i) * 1000);
    const patched = Array.from({ length: 64 }, (_, k) => patch[(3 + (k >> 3)) * 64 + 5 + (k & 7)]!);
    await edited.set([slice(0, 64), slice(0, 64)], patch);
    expect(await windowAt(edited, 3, 5)).toEqual(patched); // uncommitted, new ref
    expect(await windowAt(second, 3, 5)).toEqual(expected); // the old snapshot still reads its own
    await editor.commit('edit');
    const after = await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/a');
    expect(await windowAt(after, 3, 5)).toEqual(patched);
  });
});
