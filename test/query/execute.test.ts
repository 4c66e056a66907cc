import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';
import { countingStore, expectedBox, LON, range, T, weatherStore } from './support.ts';

const store = await weatherStore();
const temp = () => query(store).from('/temperature', 'float32');
const hour = (h: number) => new Date(Date.UTC(2000, 0, 1, h));

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isFloeError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the query to fail');
}

describe('query execution', () => {
  it('resolves label ranges on ascending, descending and CF-time coordinates', async () => {
    const r = await temp().where('time', 'between', [hour(30), hour(33)]).where('lat', '>=', 45).where('lon', 'between', [100, 140]).execute();
    // lat = 90 - 10*i is descending: lat >= 45 is i in 0..4; lon = 10*i: 100..140 is i in 10..14.
    expect(r.shape).toEqual([4, 5, 5]);
    expect(r.dims).toEqual(['time', 'lat', 'lon']);
    expect(r.data).toBeInstanceOf(Float32Array);
    expect(Array.from(r.data)).toEqual(expectedBox(range(30, 34), range(0, 5), range(10, 15)));
    expect(r.report.fetched.unplanned.requests).toBe(0);
  });

  it('applies strict comparisons, = and in (result in index order), and ISO strings on time', async () => {
    const r = await temp().where('time', '>', '2000-01-02T21:00:00Z').where('lat', 'in', [-10, 80, 30]).where('lon', '=', 350).execute();
    expect(r.shape).toEqual([2, 3, 1]);
    expect(Array.from(r.data)).toEqual(expectedBox([46, 47], [1, 6, 10], [35]));
    const below = await temp().where('time', '<', hour(2)).where('lat', '<', -75).whereIndex('lon', 0, 1).execute();
    expect(Array.from(below.data)).toEqual(expectedBox([0, 1], [17, 18], [0]));
  });

  it('takes positions with steps and negative bounds, then thins with stride and limit in call order', async () => {
    const r = await temp().whereIndex('time', -5, null, 2).whereIndex('lat', 2, 17, 3).stride('lon', 7).limit('lon', 3).execute();
    expect(r.shape).toEqual([3, 5, 3]);
    expect(Array.from(r.data)).toEqual(expectedBox([43, 45, 47], [2, 5, 8, 11, 14], [0, 7, 14]));
    const other = await temp().whereIndex('time', 0, 1).whereIndex('lat', 0, 1).limit('lon', 10).stride('lon', 4).execute();
    expect(Array.from(other.data)).toEqual(expectedBox([0], [0], [0, 4, 8]));
  });

  it('finds the nearest label and enforces the tolerance', async () => {
    const r = await temp().nearest('time', hour(7.4)).nearest('lat', 13, { tolerance: 5 }).nearest('lon', 1e9).execute();
    expect(Array.from(r.data)).toEqual(expectedBox([7], [8], [35]));
    const far = await failure(temp().nearest('lat', 14.9, { tolerance: 2 }).execute());
    expect(far.code).toBe('NOT_FOUND');
    expect(far.message).toMatch(/dimension "lat" within 2 of 14.9; the nearest is 10 at index 8/);
  });

  it('reads selected arrays that share dimensions with the same selections', async () => {
    const r = await temp().select('lat', '/lon').where('lat', 'between', [-20, 0]).whereIndex('lon', 3, 5).whereIndex('time', 0, 1).execute();
    expect(Object.keys(r.arrays)).toEqual(['/temperature', '/lat', '/lon']);
    expect(Array.from(r.arrays['/lat']!.data as Float32Array)).toEqual([0, -10, -20]);
    expect(Array.from(r.arrays['/lon']!.data as Float64Array)).toEqual([30, 40]);
    expect(r.shape).toEqual([1, 3, 2]);
  });

  it('returns an empty result for a range that matches nothing', async () => {
    const r = await temp().where('lat', '>', 90).execute();
    expect(r.shape).toEqual([T, 0, LON]);
    expect(r.data.length).toBe(0);
    expect(r.report.fetched.data.requests).toBe(0);
  });

  it('scans an unsorted coordinate, with scattered matches', async () => {
    const s = countingStore().store;
    const labels = Int32Array.from([5, 1, 9, 1, 7, 3]);
    await ZarrArray.create(s, '/station', { shape: [6], chunkShape: [6], dataType: 'int32', dimensionNames: ['station'] }).then((a) => a.set(undefined, labels));
    const v = await ZarrArray.create(s, '/v', { shape: [6], chunkShape: [2], dataType: 'int16', dimensionNames: ['station'] });
    await v.set(undefined, Int16Array.from([50, 10, 90, 11, 70, 30]));
    const q = query(s).from('/v', 'int16').where('station', '<=', 5);
    const r = await q.execute();
    expect(Array.from(r.data)).toEqual([50, 10, 11, 30]);
    const { plan, text } = await q.explain();
    expect(plan.dims[0]!.lookups[0]).toMatchObject({ method: 'scan', comparisons: 6, selected: 4 });
    expect(text).toContain('scan, 6 comparisons -> 4');
    expect(Array.from((await query(s).from('/v').where('station', 'in', [1, 7]).execute()).data as Int16Array)).toEqual([10, 11, 70]);
  });

  it.each([
    ['an unknown dimension', () => temp().where('depth', '>', 3).execute(), 'INVALID_ARGUMENT', /unknown dimension "depth" in .where\("depth", '>', 3\); the query's dimensions are "time", "lat", "lon"/],
    ['a label that is not there', () => temp().where('lat', '=', 15).execute(), 'NOT_FOUND', /label 15 not found in dimension "lat"; the nearest is 20 at index 7/],
    ['a missing label in a list', () => temp().where('lon', 'in', [10, 15]).execute(), 'NOT_FOUND', /label 15 not found in dimension "lon"/],
    ['a string against numbers', () => temp().where('lat', '=', 'north').execute(), 'INVALID_ARGUMENT', /type mismatch on dimension "lat": "north" is a string/],
    ['a Date without time units', () => temp().where('lon', '<', new Date(0)).execute(), 'INVALID_ARGUMENT', /type mismatch on dimension "lon": 1970-01-01T00:00:00.000Z is a Date but coordinate \/lon/],
    ['a wrong dtype', () => query(store).from('/temperature', 'int16').execute(), 'INVALID_ARGUMENT', /holds float32, the query expects int16/],
    ['no from()', () => query(store).execute(), 'INVALID_ARGUMENT', /needs .from\(path\)/],
    ['a missing array', () => query(store).from('/nope').execute(), 'NOT_FOUND', /no array at \/nope/],
  ])('fails with a clear error for %s', async (_, run, code, message) => {
    const f = await failure(run());
    expect(f.code).toBe(code);
    expect(f.message).toMatch(message);
  });

  it('names the dimension when it has no coordinate array', async () => {
    const s = countingStore().store;
    await ZarrArray.create(s, '/plain', { shape: [4, 4], chunkShape: [2, 2], dataType: 'uint8', dimensionNames: ['y', null] });
    const f = await failure(query(s).from('/plain').where('y', '>', 1).execute());
    expect(f.code).toBe('NOT_FOUND');
    expect(f.message).toMatch(/dimension "y" has no coordinate array at \/y.*whereIndex\("y"/);
    const r = await query(s).from('/plain', 'uint8').whereIndex('#1', 1, 3).execute();
    expect(r.shape).toEqual([4, 2]);
    expect(r.dims).toEqual(['y', '#1']);
  });
});


describe('label types', () => {
  it('resolves string and int64 coordinates, and predicts whole-chunk reads of unsharded arrays', async () => {
    const s = countingStore();
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    await ZarrArray.create(s.store, '/site', { shape: [5], chunkShape: [5], dataType: 'string', codecs: [{ name: 'vlen-utf8' }], dimensionNames: ['site'] })
      .then((a) => a.set(undefined, names));
    await ZarrArray.create(s.store, '/epoch', { shape: [4], chunkShape: [4], dataType: 'int64', dimensionNames: ['epoch'] })
      .then((a) => a.set(undefined, BigInt64Array.from([10n, 20n, 30n, 40n])));
    const v = await ZarrArray.create(s.store, '/obs', {
      shape: [5, 4], chunkShape: [2, 2], dataType: 'float64', dimensionNames: ['site', 'epoch'],
      codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'gzip', configuration: { level: 1 } }],
    });
    await v.set(undefined, Float64Array.from({ length: 20 }, (_, i) => i + 0.5));
    const q = query(s.store).from('/obs', 'float64').where('site', 'between', ['bravo', 'delta']).where('epoch', '>', 15n).select('site');
    const { plan } = await q.explain();
    s.reset();
    const r = await q.execute();
    // sites 1..3, epochs 1..3
    expect(Array.from(r.data)).toEqual([5.5, 6.5, 7.5, 9.5, 10.5, 11.5, 13.5, 14.5, 15.5]);
    expect(r.arrays['/site']!.data).toEqual(['bravo', 'charlie', 'delta']);
    const chunkGets = s.log.filter((l) => l.key.startsWith('obs/c/'));
    expect(chunkGets.length).toBe(plan.requests.filter((x) => x.key.startsWith('obs/')).length);
    expect(chunkGets.map((l) => l.key).sort()).toEqual(['obs/c/0/0', 'obs/c/0/1', 'obs/c/1/0', 'obs/c/1/1']);
    const mismatch = await failure(query(s.store).from('/obs').where('site', '=', 3).execute());
    expect(mismatch.message).toMatch(/type mismatch on dimension "site": 3 is a number but coordinate \/site holds strings/);
  });
});
