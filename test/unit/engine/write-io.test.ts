// What a write reads and writes: whole chunks and whole shards are written without reading the
// old object; a partial write reads, and rewrites, exactly the chunks it touches.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import type { CodecMetadata } from '../../../src/format/codecs/types.ts';
import { countingStore, keySet } from './counting-store.ts';

const LE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const SHARDED: CodecMetadata[] = [{
  name: 'sharding_indexed',
  configuration: { chunk_shape: [2, 2], codecs: [LE, { name: 'zstd', configuration: { level: 1, checksum: false } }], index_codecs: [LE, { name: 'crc32c' }] },
}];

/** A 6 x 6 int32 array with 2 x 2 chunks (or 4 x 4 shards), already holding 1..36. */
async function filled(chunkShape: number[], codecs: CodecMetadata[] = [LE]) {
  const { store, log } = countingStore();
  const array = await ZarrArray.create(store, '/a', { shape: [6, 6], chunkShape, dataType: 'int32', codecs });
  await array.set(undefined, Int32Array.from({ length: 36 }, (_, i) => i + 1));
  log.clear();
  return { store, log, array };
}

async function values(array: ZarrArray): Promise<number[]> {
  return Array.from((await array.get()).data as Int32Array);
}

describe('write I/O', () => {
  it('rewrites whole chunks without reading them', async () => {
    const { log, array } = await filled([2, 2]);
    await array.set([slice(0, 2), slice(2, 6)], new Int32Array(8).fill(-1));
    expect(log.reads).toEqual([]);
    expect(keySet(log.writes)).toEqual(['a/c/0/1', 'a/c/0/2']);
  });

  it('writes a whole shard without reading the old one, and only that shard', async () => {
    const { log, array } = await filled([4, 4], SHARDED);
    await array.set([slice(0, 4), slice(0, 4)], new Int32Array(16).fill(-1));
    expect(log.reads).toEqual([]);
    expect(log.writes).toEqual(['a/c/0/0']);
    const expected = Array.from({ length: 36 }, (_, i) => (i % 6 < 4 && i < 24 ? -1 : i + 1));
    expect(await values(array)).toEqual(expected);
  });

  it('writes every shard of a full overwrite without reading any', async () => {
    const { log, array } = await filled([4, 4], SHARDED);
    await array.set(undefined, new Int32Array(36).fill(7));
    expect(log.reads).toEqual([]);
    expect(keySet(log.writes)).toEqual(['a/c/0/0', 'a/c/0/1', 'a/c/1/0', 'a/c/1/1']);
  });

  it('reads and rewrites exactly the chunks a partial write touches', async () => {
    const { log, array } = await filled([2, 2]);
    // Rows 1..2, columns 3..4: four chunks, each partly covered.
    await array.set([slice(1, 3), slice(3, 5)], new Int32Array(4).fill(-1));
    const touched = ['a/c/0/1', 'a/c/0/2', 'a/c/1/1', 'a/c/1/2'];
    expect(keySet(log.reads)).toEqual(touched);
    expect(log.reads).toHaveLength(4);
    expect(keySet(log.writes)).toEqual(touched);
    const expected = Array.from({ length: 36 }, (_, i) => ([9, 10, 15, 16].includes(i) ? -1 : i + 1));
    expect(await values(array)).toEqual(expected);
  });

  it('reads only the partly covered chunk when a write also covers whole ones', async () => {
    const { log, array } = await filled([2, 2]);
    await array.set([slice(0, 2), slice(0, 3)], new Int32Array(6).fill(-1));
    expect(log.reads).toEqual(['a/c/0/1']);
    expect(keySet(log.writes)).toEqual(['a/c/0/0', 'a/c/0/1']);
  });

  it('reads only the touched shard for a partial shard write', async () => {
    const { log, array } = await filled([4, 4], SHARDED);
    await array.set([5, 5], -1);
    expect(keySet(log.reads)).toEqual(['a/c/1/1']);
    expect(log.writes).toEqual(['a/c/1/1']);
    expect((await values(array))[35]).toBe(-1);
  });

  it('erases a touched chunk that ends up all fill value, reading nothing when it is covered', async () => {
    const { log, array } = await filled([2, 2]);
    await array.set([slice(4, 6), slice(4, 6)], 0);
    expect(log.reads).toEqual([]);
    expect(log.writes).toEqual([]);
    expect(log.erases).toEqual(['a/c/2/2']);
  });
});
