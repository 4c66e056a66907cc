import { describe, expect, it } from 'vitest';
import { checkedAt, dot, zipEvery, zipMap } from '../../../src/engine/indexing.ts';
import { isFloeError } from '../../../src/errors.ts';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return isFloeError(err) ? err.code : 'not a FloeError';
  }
  return undefined;
}

describe('checked indexing helpers', () => {
  it('zipMap pairs elements by index, undefined elements included', () => {
    expect(zipMap([1, 2, 3], ['a', 'b', 'c'], (n, s, i) => `${s}${n}${i}`)).toEqual(['a10', 'b21', 'c32']);
    expect(zipMap([1, 2], [undefined, 4], (n, m) => m ?? n)).toEqual([1, 4]);
    expect(zipMap([], [], () => 0)).toEqual([]);
  });

  it('zipEvery stops at the first false', () => {
    const seen: number[] = [];
    expect(zipEvery([1, 2, 3], [1, 0, 3], (x, y, i) => (seen.push(i), x === y))).toBe(false);
    expect(seen).toEqual([0, 1]);
    expect(zipEvery([1, 2], [1, 2], (x, y) => x === y)).toBe(true);
  });

  it('dot sums the products', () => {
    expect(dot([2, 3, 4], [100, 10, 1])).toBe(234);
    expect(dot([], [])).toBe(0);
  });

  it('lists of different lengths (or with holes) are INVALID_ARGUMENT, not NaN', () => {
    expect(codeOf(() => zipMap([1, 2], [1], (x) => x))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => zipEvery([1], [1, 2], () => true))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => dot([1, 2], [1]))).toBe('INVALID_ARGUMENT');
    const holey = new Array<number>(2);
    holey[0] = 1;
    expect(codeOf(() => dot([1, 2], holey))).toBe('INVALID_ARGUMENT');
  });

  it('checkedAt returns in-range elements and throws the given code otherwise', () => {
    expect(checkedAt([5, 6], 1, 'CORRUPT_OBJECT', 'x')).toBe(6);
    expect(checkedAt(new Float64Array([-1]), 0, 'CORRUPT_OBJECT', 'x')).toBe(-1);
    for (const i of [-1, 2, 0.5, NaN]) expect(codeOf(() => checkedAt([5, 6], i, 'CORRUPT_OBJECT', 'x'))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => checkedAt([], 0, 'INVALID_SELECTION', 'x'))).toBe('INVALID_SELECTION');
  });
});
