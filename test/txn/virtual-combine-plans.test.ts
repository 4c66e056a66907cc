// combinePlans over scanner-neutral plans: chunk indices shifted along the joined axis, the
// tiling rule (every file but the last a whole number of chunks long), agreement checks naming
// the file, the variable and the field, and coordinates re-chunked from the bytes read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { combinePlans, type RangeReader } from '../../src/txn/virtual-combine.ts';
import type { PlannedArray, PlannedSource } from '../../src/txn/virtual-plan.ts';

/** A file with `t` steps of v(t, x) (x = 2) in chunks of `chunk` steps, and its coordinate t (chunks of 1). */
function file(name: string, t: number, chunk: number, dataType = 'int16'): PlannedSource {
  const v: PlannedArray = {
    variable: 'v', relativePath: 'v',
    metadata: { shape: [t, 2], chunkShape: [chunk, 2], dataType, codecs: [{ name: 'bytes', configuration: { endian: 'big' } }], dimensionNames: ['t', 'x'] },
    refs: Array.from({ length: Math.ceil(t / chunk) }, (_, i) => ({ index: [i, 0], location: `file:///a/${name}`, offset: 100 + i * 8 * chunk, length: 4 * chunk })),
    stored: [],
  };
  const coord: PlannedArray = {
    variable: 't', relativePath: 't',
    metadata: { shape: [t], chunkShape: [1], dataType: 'int32', codecs: [{ name: 'bytes', configuration: { endian: 'big' } }], dimensionNames: ['t'] },
    refs: Array.from({ length: t }, (_, i) => ({ index: [i], location: `file:///a/${name}`, offset: 10 + i * 4, length: 4 })),
    stored: [],
  };
  return { source: `/a/${name}`, format: 'test', groups: [{ relativePath: '', attributes: {} }], arrays: [v, coord], skipped: [] };
}

/** Every file's bytes are their offsets' low bytes: coordinate values are recognisable. */
const reader: RangeReader = async (_location, ranges) => ranges.map((r) => Uint8Array.from({ length: r.length }, (_, i) => (r.offset + i) & 0xff));

const reason = async (p: Promise<unknown>) => {
  const err = await p.catch((e: unknown) => e);
  expect(isFloeError(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
  return (err as Error).message;
};

describe('combinePlans', () => {
  it('shifts chunk indices along the axis and stores the coordinate re-chunked', async () => {
    const out = await combinePlans([file('a.nc', 4, 2), file('b.nc', 6, 2), file('c.nc', 3, 2)], { dim: 't' }, reader);
    const v = out.arrays.find((a) => a.variable === 'v')!;
    expect(v.metadata.shape).toEqual([13, 2]);
    expect(v.refs.map((r) => [r.location.slice(-4), ...r.index])).toEqual([
      ['a.nc', 0, 0], ['a.nc', 1, 0], ['b.nc', 2, 0], ['b.nc', 3, 0], ['b.nc', 4, 0], ['c.nc', 5, 0], ['c.nc', 6, 0],
    ]);
    const t = out.arrays.find((a) => a.variable === 't')!;
    expect(t.refs).toEqual([]);
    expect(t.metadata.chunkShape).toEqual([13]);
    expect(t.stored).toHaveLength(1);
    const expected = [4, 6, 3].flatMap((n) => Array.from({ length: n * 4 }, (_, i) => (10 + i) & 0xff));
    expect(Array.from(t.stored[0]!.bytes)).toEqual(expected);
  });

  it('refuses a file that does not tile the joined grid, and files that disagree', async () => {
    expect(await reason(combinePlans([file('a.nc', 3, 2), file('b.nc', 4, 2)], { dim: 't' }, reader))).toContain('a.nc: variable v: its length along t (3) is not a multiple of its chunk length there (2)');
    expect(await reason(combinePlans([file('a.nc', 4, 2), file('b.nc', 4, 4)], { dim: 't' }, reader))).toContain('b.nc: variable v: its chunk shape [4,2] differs from [2,2] in /a/a.nc');
    expect(await reason(combinePlans([file('a.nc', 4, 2), file('b.nc', 4, 2, 'int32')], { dim: 't' }, reader))).toContain('b.nc: variable v: its data type "int32" differs from "int16"');
    const fewer = file('b.nc', 4, 2);
    expect(await reason(combinePlans([file('a.nc', 4, 2), { ...fewer, arrays: fewer.arrays.slice(0, 1) }], { dim: 't' }, reader))).toContain('b.nc: it has no variable t');
  });

  it('property: joined iff every file but the last tiles; then every element maps to its file and offset', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }), async (chunk, lengths) => {
        const files = lengths.map((n, i) => file(`f${i}.nc`, n, chunk));
        const tiles = lengths.slice(0, -1).every((n) => n % chunk === 0);
        const out = await combinePlans(files, { dim: 't' }, reader).catch((e: unknown) => e);
        if (!tiles) {
          expect(isFloeError(out, 'INVALID_ARGUMENT') && out.message).toContain('is not a multiple of its chunk length');
          return;
        }
        const v = (out as Awaited<ReturnType<typeof combinePlans>>).arrays.find((a) => a.variable === 'v')!;
        const total = lengths.reduce((a, b) => a + b, 0);
        expect(v.metadata.shape).toEqual([total, 2]);
        // Element t of the joined array: the chunk holding it must be the right file's, at the right offset.
        const byChunk = new Map(v.refs.map((r) => [r.index[0]!, r]));
        expect(byChunk.size).toBe(v.refs.length);
        let start = 0;
        for (const [i, n] of lengths.entries()) {
          for (let t = 0; t < n; t++) {
            const ref = byChunk.get(Math.floor((start + t) / chunk))!;
            expect(ref.location).toBe(`file:///a/f${i}.nc`);
            expect(ref.offset).toBe(100 + Math.floor(t / chunk) * 8 * chunk);
            expect((start + t) % chunk).toBe(t % chunk);
          }
          start += n;
        }
      }),
      { numRuns: Number(process.env.FLOE_COMBINE_RUNS ?? 200) },
    );
  });

  it('a variable skipped in one file is skipped in all', async () => {
    const b = file('b.nc', 2, 2);
    const out = await combinePlans([file('a.nc', 2, 2), { ...b, arrays: b.arrays.slice(1), skipped: [{ source: '/a/b.nc', variable: 'v', reason: 'odd' }] }], { dim: 't' }, reader);
    expect(out.arrays.map((a) => a.variable)).toEqual(['t']);
    expect(out.skipped.map((s) => [s.source, s.reason])).toEqual([['/a/b.nc', 'odd'], ['/a/a.nc', 'skipped in another of the files combined']]);
  });
});
