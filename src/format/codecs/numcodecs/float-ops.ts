// Float arithmetic as NumPy 1.x does it between an array and a Python scalar (numcodecs' filters
// compute `(x - offset) * scale` and the like this way): the result type follows NumPy's
// value-based promotion, each operation rounds to it, and np.around rounds half to even.
import type { DataType } from '../../zarr/data-types.ts';
import { halfToNumber, numberToHalf } from '../../zarr/float16.ts';

export type FloatBits = 16 | 32 | 64;

const FLOAT32_MAX = 3.4028234663852886e38;
const FLOAT16_MAX = 65504;

/** Rounds a double to a float of `bits` (nearest, ties to even). */
export function roundTo(bits: FloatBits): (x: number) => number {
  if (bits === 64) return (x) => x;
  if (bits === 32) return Math.fround;
  return (x) => halfToNumber(numberToHalf(x));
}

export function floatBitsOf(dataType: DataType): FloatBits | undefined {
  if (dataType.kind !== 'float') return undefined;
  return (dataType.itemSize * 8) as FloatBits;
}

/**
 * The float type of `array op scalar` for a float array of `bits` (NumPy 1.x): an integer scalar
 * promotes by the smallest integer type holding it, a float scalar only when out of range.
 * JSON cannot tell 16 from 16.0: `pythonFloat` says the scalar was a Python float.
 */
export function promotedBits(bits: FloatBits, scalar: number, pythonFloat = false): FloatBits {
  if (bits === 64) return 64;
  if (!pythonFloat && Number.isInteger(scalar)) {
    const width = integerWidth(scalar);
    if (bits === 16) return width <= 8 ? 16 : width <= 16 ? 32 : 64;
    return width <= 16 ? 32 : 64;
  }
  const magnitude = Math.abs(scalar);
  if (!Number.isFinite(scalar) || magnitude <= (bits === 16 ? FLOAT16_MAX : FLOAT32_MAX)) return bits;
  return bits === 16 && magnitude <= FLOAT32_MAX ? 32 : 64;
}

/** Bits of NumPy's min_scalar_type for an integer. */
function integerWidth(n: number): number {
  if (n >= 0) return n <= 0xff ? 8 : n <= 0xffff ? 16 : n <= 0xffffffff ? 32 : 64;
  return n >= -0x80 ? 8 : n >= -0x8000 ? 16 : n >= -0x80000000 ? 32 : 64;
}

/** np.around with no decimals: the nearest integer, ties to even, keeping the sign of zero. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const floor = Math.floor(x);
  const rest = x - floor;
  const r = rest < 0.5 ? floor : rest > 0.5 ? floor + 1 : floor % 2 === 0 ? floor : floor + 1;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}
