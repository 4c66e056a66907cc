// IEEE 754 binary16 <-> number. Node 20 has no Float16Array, so float16 arrays live in
// Float32Array memory; every half value is exactly representable there.
import { floeError } from '../../errors.ts';

// One 4-byte scratch word seen as float32 and as uint32. (Typed arrays, not a DataView: numberToHalf
// runs per element, and the DataView measured 20% slower there.)
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// Kept out of the conversions so that they stay small enough to inline.
function missingScratch(): Error {
  return floeError('INVALID_ARGUMENT', 'the float16 scratch word is missing');
}

/** Half-precision bits -> number (exact). */
export function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) {
    if (frac === 0) return sign * Infinity;
    // Keep the payload: rebuild a float32 NaN with the half's mantissa in its top bits.
    u32[0] = ((h & 0x8000) << 16) | 0x7f800000 | (frac << 13);
    const nan = f32[0];
    // f32 always has its one element, so this never fires.
    if (nan === undefined) throw missingScratch();
    return nan;
  }
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number -> half-precision bits, rounding to nearest even; NaN payload top bits are kept. */
export function numberToHalf(value: number): number {
  f32[0] = value;
  const x = u32[0];
  // u32 always has its one element, so this never fires; measured, it costs nothing per call.
  if (x === undefined) throw missingScratch();
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const frac = x & 0x7fffff;
  if (exp === 0xff) {
    if (frac === 0) return sign | 0x7c00;
    const payload = frac >>> 13;
    return sign | 0x7c00 | (payload === 0 ? 0x200 : payload);
  }
  // Re-bias the exponent from 127 to 15.
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow -> infinity
  if (e <= 0) {
    if (e < -10) return sign; // underflows to signed zero
    const m = frac | 0x800000; // implicit leading 1
    const shift = 14 - e;
    return sign | roundShift(m, shift);
  }
  // roundShift may carry into the exponent, which is the correct rounding behaviour.
  return sign | ((e << 10) + roundShift(frac, 13));
}

/** m >> shift, rounded to nearest, ties to even. */
function roundShift(m: number, shift: number): number {
  const q = m >>> shift;
  const rem = m & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rem > half || (rem === half && (q & 1) === 1) ? q + 1 : q;
}
