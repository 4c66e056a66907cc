// Issue 33: queries with `decode: 'cf'`: each array's result is decoded by its attributes, and
// `from(path, dtype)` names the decoded type. Expected values are worked out by hand from the
// rule (scale_factor 0.5 is exact in binary; 1 March is day 59 of a noleap year).
import { describe, expect, it, vi } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { createQueryServer } from '../../src/query/http.ts';
import { query } from '../../src/query/index.ts';

const N = 70;

async function cfStore() {
  const store = new StorageStore(new MemoryStorage());
  const time = await ZarrArray.create(store, '/time', { shape: [N], chunkShape: [N], dataType: 'float64', dimensionNames: ['time'], attributes: { units: 'days since 2001-01-01', calendar: 'noleap' } });
  await time.set(undefined, Float64Array.from({ length: N }, (_, i) => i));
  // Stored i - 10, -1 is the fill value; chunks of 16 so a selection spans several.
  const t = await ZarrArray.create(store, '/t', { shape: [N], chunkShape: [16], dataType: 'int16', dimensionNames: ['time'], attributes: { scale_factor: 0.5, _FillValue: -1, units: 'K' } });
  await t.set(undefined, Int16Array.from({ length: N }, (_, i) => i - 10));
  const u = await ZarrArray.create(store, '/u', { shape: [N], chunkShape: [N], dataType: 'int8', dimensionNames: ['time'], attributes: { _Unsigned: 'true' } });
  await u.set(undefined, Int8Array.from({ length: N }, (_, i) => -i));
  const plain = await ZarrArray.create(store, '/plain', { shape: [N], chunkShape: [N], dataType: 'int32', dimensionNames: ['time'] });
  await plain.set(undefined, Int32Array.from({ length: N }, (_, i) => i));
  return store;
}

describe("queries with decode: 'cf'", () => {
  it('decode each array, name the decoded dtype, keep stored values on request, and give dates on the calendar', async () => {
    const store = await cfStore();
    const q = query(store, { decode: 'cf' }).from('/t', 'float32').select('/time', '/u', '/plain').where('time', 'between', ['2001-02-27', '2001-03-02']);
    const r = await q.execute();
    // Days 57..60 (27 Feb .. 2 Mar on noleap: no 29 Feb); stored 47..50 -> 23.5 .. 25.
    expect(r.dtype).toBe('float32');
    expect(r.data).toBeInstanceOf(Float32Array);
    expect(Array.from(r.data)).toEqual([23.5, 24, 24.5, 25]);
    expect(r.cf).toMatchObject({ storedDtype: 'int16' });
    expect(r.cf?.stored).toBeUndefined();
    expect(r.arrays['/time']!.cf?.dates?.map(String)).toEqual(['2001-02-27T00:00:00', '2001-02-28T00:00:00', '2001-03-01T00:00:00', '2001-03-02T00:00:00']);
    expect(Array.from(r.arrays['/time']!.data as Float64Array)).toEqual([57, 58, 59, 60]);
    expect(r.arrays['/u']).toMatchObject({ dtype: 'uint8', cf: { storedDtype: 'int8' } });
    expect(Array.from(r.arrays['/u']!.data as Uint8Array)).toEqual([256 - 57, 256 - 58, 256 - 59, 256 - 60]);
    // An array CF leaves as it is reads as without decoding.
    expect(r.arrays['/plain']!.cf).toBeUndefined();
    expect(r.arrays['/plain']!.dtype).toBe('int32');

    // A fill value across chunk boundaries: stored -1 at day 9 is NaN.
    const around = await query(store, { decode: 'cf', keepStored: true }).from('/t', 'float32').whereIndex('time', 7, 20).execute();
    expect(Array.from(around.data)).toEqual([-1.5, -1, NaN, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]);
    expect(Array.from(around.cf!.stored as Int16Array)).toEqual(Array.from({ length: 13 }, (_, i) => i - 3));
  });

  it('decode packed values inside the chunk reads, for one box and several, and agree with decoding afterwards', async () => {
    const store = await cfStore();
    const gets = vi.spyOn(ZarrArray.prototype, 'get');
    const decodingReads = () => gets.mock.calls.filter(([, options]) => (options as { decode?: string } | undefined)?.decode === 'cf').length;
    // Several boxes (days 3 and 9, and 40..42: stored -7, -1 (fill), 30..32) and one box (7..20).
    const several = await query(store, { decode: 'cf' }).from('/t', 'float32').where('time', 'in', ['2001-01-04', '2001-01-10', '2001-02-10', '2001-02-11', '2001-02-12']).execute();
    expect(several.data).toBeInstanceOf(Float32Array);
    expect(Array.from(several.data)).toEqual([-3.5, NaN, 15, 15.5, 16]);
    expect(several.cf).toMatchObject({ storedDtype: 'int16' });
    expect(decodingReads()).toBe(2); // one engine read per box (days 3 and 9 are one stepped box), each decoding in its chunk reads
    const kept = await query(store, { decode: 'cf', keepStored: true }).from('/t', 'float32').where('time', 'in', ['2001-01-04', '2001-01-10', '2001-02-10', '2001-02-11', '2001-02-12']).execute();
    expect(Array.from(kept.data)).toEqual(Array.from(several.data));
    expect(decodingReads()).toBe(2); // keeping the stored values reads them stored, decodes after
    const one = await query(store, { decode: 'cf' }).from('/t', 'float32').whereIndex('time', 7, 20).execute();
    expect(Array.from(one.data)).toEqual([-1.5, -1, NaN, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]);
    expect(decodingReads()).toBe(3);
    gets.mockRestore();
  });

  it('refuses the stored dtype under decoding, and reads stored values without it', async () => {
    const store = await cfStore();
    await expect(query(store, { decode: 'cf' }).from('/t', 'int16').execute()).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT', message: expect.stringContaining("holds float32 (stored as int16; decode: 'cf' reads float32)"), details: { dtype: 'float32', expectedDtype: 'int16' },
    });
    const raw = await query(store).from('/t', 'int16').whereIndex('time', 8, 11).execute();
    expect(raw.data).toBeInstanceOf(Int16Array);
    expect(Array.from(raw.data)).toEqual([-2, -1, 0]);
    expect(raw.cf).toBeUndefined();
  });

  it("count the decoded values against the query server's memory budget, only for arrays that decode", async () => {
    const store = new StorageStore(new MemoryStorage());
    // 10^6 elements in one absent chunk. Stored int16: result + fetched + decoding about 6 MB;
    // decoded to float32 (a fill value is present) 4 MB more. /plain has nothing to decode.
    const dims = { shape: [1000, 1000], chunkShape: [1000, 1000], dimensionNames: ['y', 'x'] };
    await ZarrArray.create(store, '/packed', { ...dims, dataType: 'int16', attributes: { scale_factor: 0.5, _FillValue: -1 } });
    await ZarrArray.create(store, '/plain', { ...dims, dataType: 'uint16' });
    const get = store.get.bind(store);
    let slow = false;
    store.get = async (key, ...rest) => {
      if (slow && key.includes('/c/')) await new Promise((r) => setTimeout(r, 300));
      return get(key, ...rest);
    };
    const post = (base: string, from: string, decode: string) =>
      fetch(`${base}/query?decode=${decode}`, { method: 'POST', body: JSON.stringify({ from }), headers: { 'content-type': 'application/json', accept: 'application/octet-stream' } });
    const withServer = async (memoryBudgetBytes: number, body: (base: string) => Promise<void>) => {
      const server = createQueryServer(store, { memoryBudgetBytes, queueTimeoutMs: 0, onServerError: (err) => { throw err; } });
      const base = await server.listen(0, '127.0.0.1');
      try {
        await body(base);
      } finally {
        await server.close();
      }
    };
    await withServer(8_000_000, async (base) => {
      expect((await post(base, '/packed', 'none')).status).toBe(200);
      const decoding = await post(base, '/packed', 'cf');
      expect(decoding.status).toBe(413);
      expect(((await decoding.json()) as { error: { code: string } }).error.code).toBe('LIMIT_EXCEEDED');
      expect((await post(base, '/plain', 'cf')).status).toBe(200); // no decoded copy, nothing more reserved
    });
    // While a 6 MB query runs, a second one fits the 12 MB budget and a decoding one does not.
    slow = true;
    await withServer(12_500_000, async (base) => {
      const running = post(base, '/packed', 'none');
      await new Promise((r) => setTimeout(r, 100));
      expect((await post(base, '/packed', 'cf')).status).toBe(503);
      expect((await post(base, '/plain', 'cf')).status).toBe(200);
      expect((await running).status).toBe(200);
    });
  });
});
