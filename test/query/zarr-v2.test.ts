// Queries over Zarr v2 arrays, as xarray writes them: dimension names from `_ARRAY_DIMENSIONS`,
// labels from 1-d coordinate arrays, chunks through filters and compressors. Every result is
// checked against the values written (a formula), not against the engine's own read.
import { describe, expect, it } from 'vitest';
import { createGroup } from '../../src/engine/api.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array, type V2ArrayInput } from '../../src/engine/v2-array.ts';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';

const LAT = 18; // 85, 75, ..., -85: descending
const LON = 36; // 0, 10, ..., 350
const latOf = (i: number) => 85 - 10 * i;
const value = (i: number, j: number) => i * 100 + j;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const expected = (lats: number[], lons: number[]) => lats.flatMap((i) => lons.map((j) => value(i, j)));

type Layout = Omit<V2ArrayInput, 'zarrFormat' | 'shape' | 'chunks' | 'dtype'> & { dtype?: string };

async function v2Dataset(layout: Layout, chunks: readonly number[] = [5, 7]) {
  const store = new StorageStore(new MemoryStorage());
  await createGroup(store, '/', { zarrFormat: 2 });
  const lat = await V2Array.createAt(store, '/lat', { zarrFormat: 2, shape: [LAT], chunks: [LAT], dtype: '<f8', attributes: { _ARRAY_DIMENSIONS: ['lat'] } });
  await lat.set(undefined, Float64Array.from(range(0, LAT), latOf));
  const lon = await V2Array.createAt(store, '/lon', { zarrFormat: 2, shape: [LON], chunks: [10], dtype: '<i4', compressor: { id: 'zlib', level: 1 }, attributes: { _ARRAY_DIMENSIONS: ['lon'] } });
  await lon.set(undefined, Int32Array.from(range(0, LON), (j) => 10 * j));
  const temp = await V2Array.createAt(store, '/temp', { zarrFormat: 2, shape: [LAT, LON], chunks, dtype: '<i4', ...layout, attributes: { _ARRAY_DIMENSIONS: ['lat', 'lon'] } });
  await temp.set(undefined, Int32Array.from(range(0, LAT * LON), (k) => value(Math.floor(k / LON), k % LON)));
  return store;
}

const LAYOUTS: [string, Layout][] = [
  ['blosc-lz4 (the zarr-python 2 default), C order', {}],
  ['zlib, F order', { compressor: { id: 'zlib', level: 3 }, order: 'F' }],
  ['uncompressed, "/" separator', { compressor: null, dimensionSeparator: '/' }],
  ['delta filter + zstd', { filters: [{ id: 'delta', dtype: '<i4' }], compressor: { id: 'zstd', level: 1 } }],
  ['big-endian, no fill value', { dtype: '>i4', fillValue: null, compressor: null }],
];

describe('queries over Zarr v2 arrays', () => {
  it.each(LAYOUTS)('%s: labels, positions and dimension names as xarray wrote them', async (_name, layout) => {
    const store = await v2Dataset(layout);
    const r = await query(store).from('/temp', 'int32').where('lat', 'between', [-20, 20]).where('lon', 'between', [100, 140]).execute();
    expect(r.dims).toEqual(['lat', 'lon']);
    expect(r.shape).toEqual([4, 5]); // lat 15, 5, -5, -15
    expect(Array.from(r.data)).toEqual(expected(range(7, 11), range(10, 15)));
    expect(r.report.fetched.unplanned.requests).toBe(0);
    const strided = await query(store).from('/temp').whereIndex('lat', 1, 17, 4).stride('lon', 11).execute();
    expect(Array.from(strided.data as Int32Array)).toEqual(expected([1, 5, 9, 13], [0, 11, 22, 33]));
  });

  it('selects a coordinate alongside, and explains the chunk fetches by their v2 keys', async () => {
    const store = await v2Dataset({ compressor: null });
    const q = query(store).from('/temp').select('lat').where('lat', '=', 5).whereIndex('lon', 0, 3);
    const r = await q.execute();
    expect(Array.from(r.arrays['/lat']!.data as Float64Array)).toEqual([5]);
    expect(Array.from(r.arrays['/temp']!.data as Int32Array)).toEqual(expected([8], [0, 1, 2]));
    expect((await q.explain()).text).toMatch(/temp\/1\.0/);
  });

  it('reads chunks never written as the fill value', async () => {
    const store = new StorageStore(new MemoryStorage());
    await createGroup(store, '/', { zarrFormat: 2 });
    const sparse = await V2Array.createAt(store, '/sparse', { zarrFormat: 2, shape: [4, 4], chunks: [2, 2], dtype: '<f4', fillValue: 'NaN', attributes: { _ARRAY_DIMENSIONS: ['y', 'x'] } });
    await sparse.set([slice(0, 2), slice(0, 2)], Float32Array.of(1, 2, 3, 4));
    const r = await query(store).from('/sparse').whereIndex('y', 1, 3).whereIndex('x', 1, 3).execute();
    expect(Array.from(r.data as Float32Array)).toEqual([4, NaN, NaN, NaN]);
  });

  it('a v2 group is no array: NOT_FOUND names both documents', async () => {
    const store = await v2Dataset({});
    await createGroup(store, '/sub', { zarrFormat: 2 });
    const err = await query(store).from('/sub').execute().catch((e: unknown) => e);
    expect(isFloeError(err, 'NOT_FOUND') && /neither zarr\.json nor \.zarray/.test(err.message)).toBe(true);
  });
});

describe('queries over vlen-array object arrays', () => {
  // Element j of /ragged: j % 4 items, item k = j * 10 - k (int16, stored big-endian).
  const element = (j: number) => Int16Array.from({ length: j % 4 }, (_, k) => j * 10 - k);

  async function raggedStore() {
    const store = new StorageStore(new MemoryStorage());
    await createGroup(store, '/', { zarrFormat: 2 });
    const a = await V2Array.createAt(store, '/ragged', {
      zarrFormat: 2, shape: [9], chunks: [4], dtype: '|O', filters: [{ id: 'vlen-array', dtype: '>i2' }], fillValue: null, attributes: { _ARRAY_DIMENSIONS: ['x'] },
    });
    await a.set(undefined, Array.from({ length: 9 }, (_, j) => element(j)));
    return store;
  }

  it('returns typed elements and names their dtype, in the builder and through the query server\'s JSON', async () => {
    const store = await raggedStore();
    const r = await query(store).from('/ragged').whereIndex('x', 2, 7).execute();
    expect([r.dtype, r.elementDtype]).toEqual(['binary', 'int16']);
    expect(r.data).toEqual([2, 3, 4, 5, 6].map(element));
    const { createQueryServer } = await import('../../src/query/http.ts');
    const server = createQueryServer(store, { timeoutMs: 5_000 });
    try {
      const base = await server.listen(0, '127.0.0.1');
      // Asked for the binary form too: variable-length results are answered in JSON.
      for (const format of ['json', 'binary']) {
        const res = await fetch(`${base}/query?format=${format}`, { method: 'POST', body: JSON.stringify({ from: '/ragged', ops: [{ whereIndex: ['x', 2, 7] }] }) });
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        const body = (await res.json()) as { arrays: { dtype: string; elementDtype: string; data: number[][] }[] };
        expect(body.arrays[0]).toMatchObject({ dtype: 'binary', elementDtype: 'int16', data: [2, 3, 4, 5, 6].map((j) => Array.from(element(j))) });
      }
    } finally {
      await server.close();
    }
  });
});
