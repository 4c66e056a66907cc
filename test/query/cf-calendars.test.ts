// Issue 33: label predicates on CF time coordinates of every calendar (src/query/plan/label-lookup.ts):
// date text on the coordinate's own calendar ("2001-02-30" exists on 360_day), CfDates (as a
// decode: 'cf' read returns them), Julian dates on `standard` before 1582, and explain/errors
// showing the decoded labels.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import type { CfDate } from '../../src/format/cf/cf-date.ts';
import { query } from '../../src/query/index.ts';

async function timeStore(units: string, calendar: string, n: number) {
  const store = new StorageStore(new MemoryStorage());
  const time = await ZarrArray.create(store, '/time', { shape: [n], chunkShape: [n], dataType: 'float64', dimensionNames: ['time'], attributes: { units, calendar } });
  await time.set(undefined, Float64Array.from({ length: n }, (_, i) => i));
  const v = await ZarrArray.create(store, '/v', { shape: [n], chunkShape: [7], dataType: 'int32', dimensionNames: ['time'] });
  await v.set(undefined, Int32Array.from({ length: n }, (_, i) => i));
  return { store, time };
}

describe('queries on CF time labels of any calendar', () => {
  it('resolves 360_day and noleap date text, CfDates and nearest', async () => {
    const { store, time } = await timeStore('days since 2001-01-01', '360_day', 90);
    const v = () => query(store).from('/v', 'int32');
    expect(Array.from((await v().where('time', 'between', ['2001-02-29', '2001-03-01']).execute()).data)).toEqual([58, 59, 60]);
    expect(Array.from((await v().where('time', '=', '2001-02-30').execute()).data)).toEqual([59]);
    const dates = (await time.get([slice(10, 13)], { decode: 'cf' })).data as CfDate[];
    expect(Array.from((await v().where('time', 'in', dates).execute()).data)).toEqual([10, 11, 12]);
    expect(Array.from((await v().nearest('time', '2001-03-15 13:00').execute()).data)).toEqual([75]);
    await expect(v().where('time', '=', '2001-02-31').execute()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('360_day') });
    await expect(v().where('time', '<', new Date(0)).execute()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('has no JS Dates') });
    const missing = await v().where('time', '=', '2001-01-01 12:00').execute().catch((err: Error) => err);
    expect((missing as Error).message).toMatch(/nearest is 0 \(2001-01-01T00:00:00 360_day\)|nearest is 1 \(2001-01-02T00:00:00 360_day\)/);
    const { text } = await v().where('time', '>=', '2001-03-29').explain();
    expect(text).toContain('labels /time float64 ascending (days since 2001-01-01, calendar 360_day)');
    expect(text).toContain('time: 2 of 90 [88..89]');
    const noleap = await timeStore('days since 2001-02-27', 'noleap', 5);
    expect(Array.from((await query(noleap.store).from('/v', 'int32').where('time', '=', '2001-03-01').execute()).data)).toEqual([2]);
    await expect(query(noleap.store).from('/v', 'int32').where('time', '=', '2001-02-29').execute()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('reads standard-calendar text before 1582 as Julian dates, Dates as instants', async () => {
    const { store } = await timeStore('days since 1582-10-01', 'standard', 20);
    const v = () => query(store).from('/v', 'int32');
    expect(Array.from((await v().where('time', 'between', ['1582-10-04', '1582-10-15']).execute()).data)).toEqual([3, 4]);
    // Julian 1582-10-01 is the instant proleptic-Gregorian 1582-10-11 names.
    expect(Array.from((await v().where('time', '=', new Date(Date.UTC(1582, 9, 11))).execute()).data)).toEqual([0]);
  });
});
