// Issue 20: "did you mean" for mistyped commands, options and refs (src/format/did-you-mean.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestNames, didYouMean, editDistance } from '../../../src/format/did-you-mean.ts';

const RUNS = Number(process.env.FLOE_DID_YOU_MEAN_RUNS ?? 300);

/** The textbook recursion, memoised: the definition editDistance must agree with. */
function definition(a: string, b: string): number {
  const memo = new Map<string, number>();
  const d = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let best = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d(i - 2, j - 2) + 1);
    memo.set(key, best);
    return best;
  };
  return d(a.length, b.length);
}

describe('editDistance', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('improt', 'import')).toBe(1);
    expect(editDistance('mian', 'main')).toBe(1);
    expect(editDistance('brnch', 'branch')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('agrees with the recursive definition and is symmetric', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 8 });
    fc.assert(fc.property(word, word, (a, b) => {
      expect(editDistance(a, b)).toBe(definition(a, b));
      expect(editDistance(b, a)).toBe(editDistance(a, b));
    }), { numRuns: RUNS });
  });
});

describe('closestNames and didYouMean', () => {
  const commands = ['init', 'status', 'log', 'branch', 'tag', 'config', 'diff', 'ls', 'show', 'cat', 'import', 'export', 'expire', 'gc', 'conformance'];

  it('suggests the near names, best first', () => {
    expect(closestNames('improt', commands)).toEqual(['import']);
    expect(closestNames('exprot', commands)).toEqual(['export']);
    expect(closestNames('conf', commands)).toEqual(['config', 'conformance']);
    expect(closestNames('Main', ['main', 'dev'])).toEqual(['main']);
    expect(didYouMean(closestNames('stauts', commands))).toBe('did you mean "status"?');
    expect(didYouMean(['a', 'b', 'c'], (n) => `--${n}`)).toBe('did you mean --a, --b or --c?');
  });

  it('suggests nothing for a far or very short typo, and never the input itself', () => {
    expect(closestNames('zzzzzz', commands)).toEqual([]);
    expect(closestNames('q', commands)).toEqual([]);
    expect(closestNames('log', ['log'])).toEqual([]);
    expect(didYouMean([])).toBe('');
  });
});
