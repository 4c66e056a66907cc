// `numcodecs.delta` (numcodecs' Delta): each element stored as the difference to its predecessor
// in C order, the first as it is, computed in `dtype` (integers wrap, floats round to their
// width) and cast to `astype`; reading casts back to `dtype` and takes running sums in it.
import { floeError } from '../../../errors.ts';
import type { DataType, TypedArray } from '../../zarr/data-types.ts';
import { checkKeys } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { castElements } from './cast.ts';
import { checkSameType, readCodecDtype } from './dtype.ts';
import { elementwiseCodec } from './elementwise.ts';
import { roundTo } from './float-ops.ts';

const NAME = 'numcodecs.delta';

export const deltaEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['dtype', 'astype']);
    const decoded = spec.dataType;
    checkSameType(NAME, 'dtype', readCodecDtype(NAME, configuration, 'dtype', decoded), decoded);
    const astype = readCodecDtype(NAME, configuration, 'astype', decoded).dataType;
    if (decoded.kind === 'bool' || astype.kind === 'bool') throw floeError('UNSUPPORTED', `${NAME}: bool arrays have no differences (numcodecs refuses them too)`);
    const same = astype.name === decoded.name;
    const step = stepOf(decoded);
    return elementwiseCodec<TypedArray, TypedArray>({
      name: NAME,
      json: { name: NAME, configuration: { ...configuration } },
      decoded,
      encoded: astype,
      encode: (x) => {
        const diffs = differences(x, step);
        return same ? diffs : castElements(diffs, decoded, astype);
      },
      decode: (enc) => runningSums(same ? enc.slice() : castElements(enc, astype, decoded), step),
    });
  },
};

/**
 * One difference or sum as it lands in the type: integers wrap to their width, floats round to
 * theirs (float16 lives in a Float32Array, so its rounding is explicit). Written for numbers;
 * int64/uint64 run the same code with bigints.
 */
function stepOf(dataType: DataType): (x: number) => number {
  const big = (wrap: (x: bigint) => bigint) => wrap as unknown as (x: number) => number;
  switch (dataType.name) {
    case 'int8': return (x) => (x << 24) >> 24;
    case 'uint8': return (x) => x & 0xff;
    case 'int16': return (x) => (x << 16) >> 16;
    case 'uint16': return (x) => x & 0xffff;
    case 'int32': return (x) => x | 0;
    case 'uint32': return (x) => x >>> 0;
    case 'int64': return big((x) => BigInt.asIntN(64, x));
    case 'uint64': return big((x) => BigInt.asUintN(64, x));
    case 'float16': return roundTo(16);
    case 'float32': return roundTo(32);
    default: return roundTo(64);
  }
}

/** out[i] = x[i] - x[i - 1] (out[0] = x[0]), each stepped into the type. */
function differences(src: TypedArray, step: (x: number) => number): TypedArray {
  const out = src.slice() as Float64Array;
  let prev: number | undefined;
  (src as Float64Array).forEach((v, i) => {
    if (prev !== undefined) out[i] = step(v - prev);
    prev = v;
  });
  return out;
}

/** Running sums in place, each stepped into the type. */
function runningSums(values: TypedArray, step: (x: number) => number): TypedArray {
  const out = values as Float64Array;
  let sum: number | undefined;
  out.forEach((v, i) => {
    sum = sum === undefined ? v : step(sum + v);
    out[i] = sum;
  });
  return out;
}
