// `numcodecs.bitround` (numcodecs' BitRound): keeps `keepbits` bits of each float's mantissa,
// rounding the dropped ones to nearest (ties to even) on the integer bit pattern, which stays a
// float of the same type; decoding is the identity. Works on the bits, never through JS numbers,
// so NaN payloads come out as numcodecs writes them.
import { floeError } from '../../../errors.ts';
import type { DataType } from '../../zarr/data-types.ts';
import { halfToNumber, numberToHalf } from '../../zarr/float16.ts';
import { checkKeys, invalidConfig } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { elementwiseCodec } from './elementwise.ts';
import { readNumber } from './scalars.ts';

const NAME = 'numcodecs.bitround';
/** Mantissa bits by float width. */
const MANTISSA: Readonly<Record<string, number>> = { float16: 10, float32: 23, float64: 52 };

export const bitRoundEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['keepbits']);
    const keepbits = readNumber(NAME, configuration, 'keepbits');
    const mantissa = MANTISSA[spec.dataType.name];
    if (mantissa === undefined) throw floeError('UNSUPPORTED', `${NAME}: only float16, float32 and float64 arrays can be bit-rounded, got ${spec.dataType.name}`);
    if (!Number.isInteger(keepbits) || keepbits < 0 || keepbits > mantissa) {
      throw invalidConfig(NAME, `"keepbits" must be an integer in [0, ${mantissa}] for ${spec.dataType.name}, got ${keepbits}`);
    }
    const round = rounder(spec.dataType, mantissa - keepbits);
    return elementwiseCodec<Float32Array | Float64Array, Float32Array | Float64Array>({
      name: NAME,
      json: { name: NAME, configuration: { keepbits } },
      decoded: spec.dataType,
      encoded: spec.dataType,
      encode: round,
      decode: (x) => x,
    });
  },
};

type Round = (x: Float32Array | Float64Array) => Float32Array | Float64Array;

function rounder(dataType: DataType, drop: number): Round {
  if (drop === 0) return (x) => x;
  if (dataType.name === 'float64') return (x) => roundBits64(x as Float64Array, drop);
  if (dataType.name === 'float32') return (x) => roundBits32(x as Float32Array, drop);
  return (x) => roundHalves(x as Float32Array, drop);
}

function roundBits32(x: Float32Array, drop: number): Float32Array {
  const out = x.slice();
  const bits = new Int32Array(out.buffer);
  const mask = (-1 << drop) | 0;
  const half = (1 << (drop - 1)) - 1;
  bits.forEach((b, i) => {
    bits[i] = ((b + ((b >> drop) & 1) + half) | 0) & mask;
  });
  return out;
}

function roundBits64(x: Float64Array, drop: number): Float64Array {
  const out = x.slice();
  const bits = new BigInt64Array(out.buffer);
  const shift = BigInt(drop);
  const mask = -1n << shift;
  const half = (1n << (shift - 1n)) - 1n;
  bits.forEach((b, i) => {
    bits[i] = BigInt.asIntN(64, b + ((b >> shift) & 1n) + half) & mask;
  });
  return out;
}

/** float16 lives in Float32Array memory: round its half-precision bits (16-bit wrap). */
function roundHalves(x: Float32Array, drop: number): Float32Array {
  const out = new Float32Array(x.length);
  const mask = (0xffff << drop) & 0xffff;
  const half = (1 << (drop - 1)) - 1;
  x.forEach((value, i) => {
    const h = numberToHalf(value);
    // The signed 16-bit view numcodecs uses rounds the same as unsigned: bit patterns wrap alike.
    out[i] = halfToNumber(((h + ((h >> drop) & 1) + half) & 0xffff) & mask);
  });
  return out;
}
