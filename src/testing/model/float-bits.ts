// Float bit patterns as the model sees them, written independently of the engine's float16 module
// so a bug there cannot hide itself in the expected values.

/**
 * IEEE binary16 bits -> the binary32 bits of the same value (exponent re-bias; subnormals
 * normalised; NaN payload moved to the top bits).
 */
export function halfBitsToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >> 10) & 0x1f;
  let frac = h & 0x3ff;
  if (exp === 0x1f) return (sign | 0x7f800000 | (frac << 13)) >>> 0;
  if (exp !== 0) return (sign | ((exp - 15 + 127) << 23) | (frac << 13)) >>> 0;
  if (frac === 0) return sign >>> 0;
  let e = -14;
  while ((frac & 0x400) === 0) {
    frac <<= 1;
    e--;
  }
  return (sign | ((e + 127) << 23) | ((frac & 0x3ff) << 13)) >>> 0;
}

export function floatFromBits(bits: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, bits);
  return view.getFloat32(0);
}

/** Half bit patterns as the engine can hold them: a float32 lane keeps quiet NaNs only. */
export const quietHalf = (h: number): number => (((h >> 10) & 0x1f) === 0x1f && (h & 0x3ff) !== 0 ? h | 0x200 : h);
