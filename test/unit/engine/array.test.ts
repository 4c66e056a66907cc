import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { slice } from '../../../src/engine/selection.ts';
import { isFloeError } from '../../../src/errors.ts';

function store() {
  return new StorageStore(new MemoryStorage());
}

/** A store that counts requests, to check how much a read fetches. */
function countingStore() {
  const s = store();
  const log: string[] = [];
  const get = s.get.bind(s);
  const getRange = s.getRange.bind(s);
  s.get = async (k) => (log.push(`get ${k}`), get(k));
  s.getRange = async (k, r) => (log.push(`range ${k} ${JSON.stringify(r)}`), getRange(k, r));
  return { s, log };
}

describe('ZarrArray', () => {
  it('writes and reads a 2-d int32 array with ragged edge chunks', async () => {
    const a = await ZarrArray.create(store(), '/a', { shape: [5, 7], chunkShape: [2, 3], dataType: 'int32' });
    const values = Int32Array.from({ length: 35 }, (_, i) => i * 3 - 10);
    await a.set(null as never, values);
    const all = await a.get();
    expect(all.shape).toEqual([5, 7]);
    expect(Array.from(all.data as Int32Array)).toEqual(Array.from(values));
    const part = await a.get([slice(1, 4), slice(6, 0, -2)]);
    expect(part.shape).toEqual([3, 3]);
    const expected: number[] = [];
    for (const r of [1, 2, 3]) for (const c of [6, 4, 2]) expected.push(values[r * 7 + c]!);
    expect(Array.from(part.data as Int32Array)).toEqual(expected);
    const scalar = await a.get([4, -1]);
    expect(scalar.shape).toEqual([]);
    expect((scalar.data as Int32Array)[0]).toBe(values[34]);
  });

  it('does not store chunks equal to the fill value and erases overwritten ones', async () => {
    const s = store();
    const a = await ZarrArray.create(s, '/f', { shape: [4], chunkShape: [2], dataType: 'float32', fillValue: 'NaN' });
    await a.set([slice(0, 2)], new Float32Array([1, 2]));
    expect(await s.get('f/c/0')).toBeDefined();
    await a.set([slice(0, 2)], NaN);
    expect(await s.get('f/c/0')).toBeUndefined();
    const r = await a.get();
    expect(Array.from(r.data as Float32Array).every(Number.isNaN)).toBe(true);
  });

  it('reads one inner chunk of a shard with the index and that chunk only', async () => {
    const { s, log } = countingStore();
    const a = await ZarrArray.create(s, '/sh', {
      shape: [8, 8], chunkShape: [8, 8], dataType: 'uint16',
      codecs: [{ name: 'sharding_indexed', configuration: {
        chunk_shape: [2, 2],
        codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
        index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
      } }],
    });
    const values = Uint16Array.from({ length: 64 }, (_, i) => i);
    await a.set(undefined, values);
    log.length = 0;
    const r = await a.get([slice(2, 4), slice(4, 6)]);
    expect(Array.from(r.data as Uint16Array)).toEqual([20, 21, 28, 29]);
    expect(log.filter((l) => l.startsWith('range'))).toHaveLength(2);
    expect(log.filter((l) => l.startsWith('get sh/c'))).toHaveLength(0);
    const full = await a.get();
    expect(Array.from(full.data as Uint16Array)).toEqual(Array.from(values));
  });

  it('refuses a wrong-sized write and leaves the array unchanged', async () => {
    const a = await ZarrArray.create(store(), '/w', { shape: [4], chunkShape: [2], dataType: 'int8' });
    await a.set(undefined, new Int8Array([1, 2, 3, 4]));
    await expect(a.set([slice(0, 3)], new Int8Array([9, 9]))).rejects.toSatisfy((e) => isFloeError(e, 'INVALID_SELECTION'));
    expect(Array.from((await a.get()).data as Int8Array)).toEqual([1, 2, 3, 4]);
  });

  it('a small window of a big uncompressed big-endian chunk reads only its span, byte-swapped', async () => {
    for (const dataType of ['int16', 'float32', 'float64', 'complex64'] as const) {
      const s = store();
      const a = await ZarrArray.create(s, '/b', { shape: [40, 40], chunkShape: [40, 40], dataType, codecs: [{ name: 'bytes', configuration: { endian: 'big' } }] });
      const n = dataType === 'complex64' ? 3200 : 1600;
      const values = dataType === 'int16' ? Int16Array.from({ length: n }, (_, i) => i - 800)
        : dataType === 'float64' ? Float64Array.from({ length: n }, (_, i) => i / 3) : Float32Array.from({ length: n }, (_, i) => i / 4);
      await a.set(undefined, values);
      const ranges: unknown[] = [];
      const getRange = s.getRange.bind(s);
      s.getRange = (key, range, options) => (ranges.push(range), getRange(key, range, options));
      const r = await a.get([slice(20, 22), slice(5, 8)]);
      const lanes = dataType === 'complex64' ? 2 : 1;
      const want = [20, 21].flatMap((i) => [5, 6, 7].flatMap((j) => Array.from({ length: lanes }, (_, k) => values[(i * 40 + j) * lanes + k]!)));
      expect(Array.from(r.data as ArrayLike<number>), dataType).toEqual(want);
      const item = dataType === 'int16' ? 2 : dataType === 'float32' ? 4 : 8;
      expect(ranges, dataType).toEqual([{ offset: (20 * 40 + 5) * item, length: (40 + 3) * item }]);
    }
  });

  it('round-trips transpose + big endian + gzip on float64', async () => {
    const a = await ZarrArray.create(store(), '/t', {
      shape: [3, 4, 5], chunkShape: [2, 3, 2], dataType: 'float64',
      codecs: [{ name: 'transpose', configuration: { order: [2, 0, 1] } }, { name: 'bytes', configuration: { endian: 'big' } }, { name: 'gzip', configuration: { level: 1 } }],
    });
    const values = Float64Array.from({ length: 60 }, (_, i) => i / 7);
    await a.set(undefined, values);
    expect(Array.from((await a.get()).data as Float64Array)).toEqual(Array.from(values));
    const r = await a.get([1, slice(null, null, -1), 3]);
    expect(Array.from(r.data as Float64Array)).toEqual([3, 2, 1, 0].map((j) => values[20 + j * 5 + 3]!));
  });
});
