// The planner's pure pieces on their own: index-set algebra, coalescing, CF time.
import { describe, expect, it } from 'vitest';
import { clipSet, compressIndices, fullSet, intersectSets, keepIndices, keepProgression, limitSet, setCount, setIndices, strideSet } from '../../src/query/plan/dim-set.ts';
import { coalesceRanges } from '../../src/query/plan/coalesce.ts';
import { dateToCf, parseCfTime } from '../../src/query/plan/cf-time.ts';
import { range } from './support.ts';

describe('index sets', () => {
  it('clips, keeps, strides and limits like the equivalent index lists', () => {
    const all = fullSet(20);
    expect(setIndices(clipSet(all, 3, 7))).toEqual([3, 4, 5, 6]);
    expect(setIndices(keepProgression(all, 2, 15, 4))).toEqual([2, 6, 10, 14]);
    const scattered = compressIndices([1, 2, 3, 7, 9, 11, 12]);
    expect(setIndices(scattered)).toEqual([1, 2, 3, 7, 9, 11, 12]);
    expect(setIndices(keepProgression(scattered, 1, 20, 2))).toEqual([1, 3, 7, 9, 11]);
    expect(setIndices(strideSet(scattered, 3))).toEqual([1, 7, 12]);
    expect(setIndices(limitSet(scattered, 4))).toEqual([1, 2, 3, 7]);
    expect(setIndices(keepIndices(scattered, [12, 2, 8, 2]))).toEqual([2, 12]);
    expect(setIndices(intersectSets(scattered, compressIndices([0, 3, 6, 9, 12])))).toEqual([3, 9, 12]);
    expect(setCount(strideSet(fullSet(10), 3))).toBe(4);
    expect(strideSet(fullSet(10), 3)).toEqual([{ start: 0, step: 3, count: 4 }]);
  });

  it('agrees with plain index lists on many random sets', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + rand(40);
      const list = range(0, n).filter(() => rand(3) > 0);
      const set = compressIndices(list);
      const [a, b, s] = [rand(n + 2) - 1, rand(n + 2), 1 + rand(4)];
      expect(setIndices(keepProgression(set, a, b, s))).toEqual(list.filter((i) => i >= a && i < b && (i - a) % s === 0));
      expect(setIndices(strideSet(set, s))).toEqual(list.filter((_, k) => k % s === 0));
      expect(setIndices(limitSet(set, a))).toEqual(list.slice(0, Math.max(0, a)));
    }
  });
});

describe('coalescing', () => {
  it('bridges small gaps, keeps far ranges apart, and never exceeds the overread bound', () => {
    const wants = [{ offset: 0, length: 1000 }, { offset: 1010, length: 1000 }, { offset: 50_000, length: 100 }, { offset: 1010, length: 1000 }];
    const merged = coalesceRanges(wants, { gapBytes: 64, maxOverread: 0.05 });
    expect(merged.map((r) => [r.offset, r.length, r.pieces.length])).toEqual([[0, 2010, 2], [50_000, 100, 1]]);
    expect(coalesceRanges(wants, { gapBytes: 0 }).map((r) => r.offset)).toEqual([0, 1010, 50_000]);
    // A gap inside gapBytes but worth more than 5% of the wanted bytes stays a separate request.
    expect(coalesceRanges([{ offset: 0, length: 100 }, { offset: 200, length: 100 }], { gapBytes: 1000 })).toHaveLength(2);
    expect(coalesceRanges([{ offset: 0, length: 100 }, { offset: 200, length: 100 }], { gapBytes: 1000, maxOverread: 1 })).toHaveLength(1);
    // No merged request longer than maxSpanBytes, however cheap its gaps.
    const spans = coalesceRanges(Array.from({ length: 10 }, (_, i) => ({ offset: i * 100, length: 50 })), { gapBytes: 1000, maxOverread: Infinity, maxSpanBytes: 350 });
    expect(spans.map((r) => [r.offset, r.length])).toEqual([[0, 350], [400, 350], [800, 150]]);
  });
});

describe('CF time', () => {
  it('parses units and converts Dates', () => {
    const t = parseCfTime('days since 2000-01-01', undefined, 'x')!;
    expect(dateToCf(t, new Date(Date.UTC(2000, 0, 11, 12)))).toBe(10.5);
    const h = parseCfTime('hours since 1979-01-01 06:00:00', 'standard', 'x')!;
    expect(dateToCf(h, new Date(Date.UTC(1979, 0, 2)))).toBe(18);
    const z = parseCfTime('seconds since 1970-01-01T01:00:00+01:00', undefined, 'x')!;
    expect(z.epochMs).toBe(0);
    expect(parseCfTime('kelvin', undefined, 'x')).toBeUndefined();
    expect(parseCfTime('fortnights since 2000-01-01', undefined, 'x')).toBeUndefined();
    expect(() => parseCfTime('days since 2000-01-01', '360_day', 'x')).toThrow(/calendar "360_day"/);
  });
});
