// Issue 33: the CF value kernels (src/format/cf/values.ts) against the rule they implement, element
// by element: `_FillValue` / `missing_value` -> NaN, then stored * scale_factor + add_offset, in
// NumPy's float32 steps for a float32 result (scale and offset rounded to float32, each step
// rounded) or in doubles for float64. Runs long and short, any position of the missing values, so
// both the short-run loop and the long-run path (unpack, then mark missing values found by
// indexOf) are compared with the rule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valueCoding, valueKernel } from '../../src/format/cf/values.ts';

const RUNS = Number(process.env.FLOE_CF_PROPERTY_RUNS ?? 200);

/** The rule, written out per element. */
function expected(x: number, missing: readonly number[], scale: number | undefined, offset: number | undefined, f32: boolean): number {
  if (missing.includes(x)) return NaN;
  const r = f32 ? Math.fround : (v: number) => v;
  const scaled = scale === undefined ? x : r(x * r(scale));
  return r(offset === undefined ? scaled : scaled + r(offset));
}

describe('CF value kernels (property)', () => {
  it('decode every element as the rule says, for runs of any length and missing values anywhere', () => {
    const input = fc.record({
      dtype: fc.constantFrom('int16', 'int8', 'uint8', 'int32', 'float32'),
      scale: fc.option(fc.constantFrom(0.01, 0.5, 2.5, 1e-3), { nil: undefined }),
      offset: fc.option(fc.constantFrom(273.15, -10, 0.5), { nil: undefined }),
      // A narrow range, so missing values are common and fall anywhere in a run (its first element too).
      missing: fc.array(fc.integer({ min: -8, max: 8 }), { maxLength: 2 }),
      // Lengths spread to 400 (past the long-run threshold of 64), not fast-check's small default sizes.
      values: fc.nat(400).chain((n) => fc.array(fc.integer({ min: -8, max: 8 }), { minLength: n, maxLength: n })),
      start: fc.nat(8),
    });
    fc.assert(fc.property(input, ({ dtype, scale, offset, missing, values, start }) => {
      const attributes = { ...(scale !== undefined && { scale_factor: scale }), ...(offset !== undefined && { add_offset: offset }), ...(missing.length > 0 && { _FillValue: missing.length === 1 ? missing[0]! : missing }) };
      const { coding } = valueCoding(attributes, dtype, undefined, 'p');
      if (coding.output === undefined) return;
      const Src = { int16: Int16Array, int8: Int8Array, uint8: Uint8Array, int32: Int32Array, float32: Float32Array }[dtype];
      const src = new Src(start + values.length);
      // Values that the type cannot hold wrap as the missing values do (valueCoding's domain).
      src.set(values.map((v) => (dtype === 'uint8' ? v & 0xff : v)), start);
      const f32 = coding.output === 'float32';
      const dst = f32 ? new Float32Array(values.length + 3) : new Float64Array(values.length + 3);
      valueKernel(coding)(src, start, dst, 1, values.length);
      for (let i = 0; i < values.length; i++) {
        const want = expected(src[start + i]!, coding.missing, coding.scale, coding.offset, f32);
        if (!Object.is(dst[1 + i], want)) expect(`[${i}] ${dst[1 + i]}`).toBe(`[${i}] ${want}`);
      }
      expect([dst[0], dst[values.length + 1]]).toEqual([0, 0]);
    }), { numRuns: RUNS });
  });
});
