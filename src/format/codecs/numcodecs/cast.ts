// NumPy's `astype` between numeric types, as numcodecs' filters use it on x86-64 (where every
// numcodecs stream in the wild was written): integers wrap modulo their width; floats truncate
// toward zero into integers, and a float an integer type cannot hold (NaN, infinities, out of
// range) becomes what the CPU's conversion gives (the type's minimum, or its low bits: 0);
// floats round to nearest-even into narrower floats; anything non-zero is true.
import type { DataType, TypedArray } from '../../zarr/data-types.ts';
import { halfToNumber, numberToHalf } from '../../zarr/float16.ts';
import { isBigIntType } from './dtype.ts';

const TWO_31 = 2 ** 31;
const TWO_63 = 2 ** 63;
const INT64_MIN = -(2n ** 63n);
const BIT_63 = 2n ** 63n;

/** `src` (elements of `from`) as a new array of `to`. */
export function castElements(src: TypedArray, from: DataType, to: DataType): TypedArray {
  const out = to.allocate(src.length) as TypedArray;
  const convert = converter(from, to);
  // Typed as numbers for the loop; bigint arrays run the same code with bigints.
  const target = out as Float64Array;
  (src as Float64Array).forEach((v, i) => {
    target[i] = convert(v) as number;
  });
  return out;
}

type Convert = (v: number | bigint) => number | bigint;

function converter(from: DataType, to: DataType): Convert {
  const fromBig = isBigIntType(from);
  if (to.kind === 'bool') return fromBig ? (v) => (v !== 0n ? 1 : 0) : (v) => (v !== 0 ? 1 : 0);
  if (to.kind === 'float') {
    const round = to.name === 'float16' ? (x: number) => halfToNumber(numberToHalf(x)) : (x: number) => x;
    return fromBig ? (v) => round(Number(v)) : (v) => round(v as number);
  }
  const bits = to.itemSize * 8;
  const signed = to.kind === 'int';
  if (isBigIntType(to)) {
    const wrap = signed ? (b: bigint) => BigInt.asIntN(64, b) : (b: bigint) => BigInt.asUintN(64, b);
    if (fromBig) return (v) => wrap(v as bigint);
    if (from.kind !== 'float') return (v) => wrap(BigInt(v as number));
    return signed ? (v) => floatToInt64(v as number) : (v) => wrap(floatToUint64(v as number));
  }
  // int8..uint32: the typed array's own assignment wraps integers modulo 2^bits.
  if (fromBig) return signed ? (v) => Number(BigInt.asIntN(bits, v as bigint)) : (v) => Number(BigInt.asUintN(bits, v as bigint));
  if (from.kind !== 'float') return (v) => v;
  if (bits === 32 && !signed) return (v) => wrap32FromInt64(v as number);
  return (v) => toInt32Register(v as number);
}

/** cvttsd2si into a 32-bit register: out of range or NaN gives -2^31 (narrower types keep its low bits). */
function toInt32Register(x: number): number {
  return x > -TWO_31 - 1 && x < TWO_31 ? Math.trunc(x) : -TWO_31;
}

/** uint32 goes through a 64-bit conversion: out of its range gives INT64_MIN, whose low 32 bits are 0. */
function wrap32FromInt64(x: number): number {
  return x >= -TWO_63 && x < TWO_63 ? Number(BigInt.asUintN(32, BigInt(Math.trunc(x)))) : 0;
}

function floatToInt64(x: number): bigint {
  return x >= -TWO_63 && x < TWO_63 ? BigInt(Math.trunc(x)) : INT64_MIN;
}

/** NumPy's double -> uint64: values from 2^63 up convert offset by 2^63. */
function floatToUint64(x: number): bigint {
  if (!(x >= TWO_63)) return floatToInt64(x);
  const rest = x - TWO_63;
  return (rest < TWO_63 ? BigInt(Math.trunc(rest)) : INT64_MIN) ^ BIT_63;
}
