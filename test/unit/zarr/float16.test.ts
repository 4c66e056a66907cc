// float16 <-> number, exhaustively over all 65536 half bit patterns.
import { describe, expect, it } from 'vitest';
import { halfToNumber, numberToHalf } from '../../../src/format/zarr/float16.ts';

/** The value of a half bit pattern, computed from the IEEE formula (independent of the module). */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return exp === 0 ? sign * frac * 2 ** -24 : sign * (1024 + frac) * 2 ** (exp - 25);
}

describe('float16', () => {
  it('halfToNumber gives the exact value of every pattern, and numberToHalf returns the same bits', () => {
    for (let h = 0; h < 0x10000; h++) {
      const v = halfToNumber(h);
      const isNaN = ((h >> 10) & 0x1f) === 0x1f && (h & 0x3ff) !== 0;
      if (isNaN) {
        expect(Number.isNaN(v), `0x${h.toString(16)}`).toBe(true);
        const back = numberToHalf(v);
        // Still a NaN with the same sign; quiet NaNs keep their whole payload.
        expect((back >> 10) & 0x1f).toBe(0x1f);
        expect(back & 0x3ff).not.toBe(0);
        expect(back & 0x8000).toBe(h & 0x8000);
        if (h & 0x200) expect(back).toBe(h);
        continue;
      }
      expect(Object.is(v, halfValue(h)), `0x${h.toString(16)}`).toBe(true);
      expect(numberToHalf(v)).toBe(h);
    }
  });

  it('rounds to nearest, ties to even, overflowing to infinity and underflowing to signed zero', () => {
    expect(numberToHalf(1 + 2 ** -11)).toBe(0x3c00); // tie between 1 and 1+2^-10: even (1)
    expect(numberToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie: even (1+2^-9)
    expect(numberToHalf(1 + 2 ** -11 + 2 ** -20)).toBe(0x3c01); // above the tie
    expect(numberToHalf(65504)).toBe(0x7bff);
    expect(numberToHalf(65520)).toBe(0x7c00); // rounds up past the largest finite half
    expect(numberToHalf(-1e10)).toBe(0xfc00);
    expect(numberToHalf(2 ** -25)).toBe(0); // tie with the smallest subnormal: even (0)
    expect(numberToHalf(2 ** -25 + 2 ** -40)).toBe(1);
    expect(numberToHalf(-(2 ** -30))).toBe(0x8000);
    expect(numberToHalf(NaN) & 0x7c00).toBe(0x7c00);
  });
});
