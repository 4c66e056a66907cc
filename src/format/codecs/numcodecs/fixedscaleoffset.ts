// `numcodecs.fixedscaleoffset` (numcodecs' FixedScaleOffset): stores round((x - offset) * scale)
// as `astype`, and reads back enc / scale + offset as `dtype`. The arithmetic follows NumPy 1.x
// (float-ops.ts): a float array computes in its own precision unless the scalar promotes it, an
// integer array with integer offset and scale in integers (wrapping to its width), else in
// doubles. Lossy by design; byte-identical to numcodecs on the streams it writes.
import type { DataType, TypedArray } from '../../zarr/data-types.ts';
import { checkKeys } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { castElements } from './cast.ts';
import { checkSameType, isBigIntType, readCodecDtype } from './dtype.ts';
import { elementwiseCodec } from './elementwise.ts';
import { floatBitsOf, promotedBits, roundHalfEven, roundTo } from './float-ops.ts';
import { readNumber } from './scalars.ts';
import { parseDataType } from '../../zarr/data-types.ts';

const NAME = 'numcodecs.fixedscaleoffset';
const FLOAT64 = parseDataType('float64');

export const fixedScaleOffsetEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['offset', 'scale', 'dtype', 'astype']);
    const offset = readNumber(NAME, configuration, 'offset');
    const scale = readNumber(NAME, configuration, 'scale');
    const dtype = readCodecDtype(NAME, configuration, 'dtype', spec.dataType);
    checkSameType(NAME, 'dtype', dtype, spec.dataType);
    const astype = readCodecDtype(NAME, configuration, 'astype', spec.dataType).dataType;
    const decoded = spec.dataType;
    return elementwiseCodec<TypedArray, TypedArray>({
      name: NAME,
      json: { name: NAME, configuration: { ...configuration } },
      decoded,
      encoded: astype,
      encode: (x) => castScaled(x, decoded, astype, offset, scale),
      decode: (enc) => castElements(unscale(enc, astype, offset, scale), FLOAT64, decoded),
    });
  },
};

function castScaled(x: TypedArray, decoded: DataType, astype: DataType, offset: number, scale: number): TypedArray {
  const bits = floatBitsOf(decoded);
  if (bits === undefined && Number.isInteger(offset) && Number.isInteger(scale)) {
    return castElements(integerScaled(x, decoded, offset, scale), decoded, astype);
  }
  const out = new Float64Array(x.length);
  if (bits === undefined) {
    (x as Float64Array).forEach((v, i) => {
      out[i] = roundHalfEven((Number(v) - offset) * scale);
    });
  } else {
    const first = promotedBits(bits, offset);
    const second = promotedBits(first, scale);
    const r1 = roundTo(first);
    const r2 = roundTo(second);
    const off = r1(offset);
    const sc = r2(scale);
    (x as Float64Array).forEach((v, i) => {
      out[i] = roundHalfEven(r2(r1(v - off) * sc));
    });
  }
  return castElements(out, FLOAT64, astype);
}

/** (x - offset) * scale in exact integers, wrapped to the array's own width. */
function integerScaled(x: TypedArray, decoded: DataType, offset: number, scale: number): TypedArray {
  const out = decoded.allocate(x.length) as TypedArray;
  const off = BigInt(offset);
  const sc = BigInt(scale);
  const width = decoded.itemSize * 8;
  const wrap = decoded.kind === 'uint' ? (v: bigint) => BigInt.asUintN(width, v) : (v: bigint) => BigInt.asIntN(width, v);
  const big = isBigIntType(decoded);
  const target = out as BigInt64Array;
  (x as Float64Array).forEach((value, i) => {
    const v = wrap((BigInt(value) - off) * sc);
    target[i] = (big ? v : Number(v)) as bigint;
  });
  return out;
}

/** enc / scale + offset in the precision NumPy uses for `astype` elements, as doubles. */
function unscale(enc: TypedArray, astype: DataType, offset: number, scale: number): Float64Array {
  const out = new Float64Array(enc.length);
  const bits = floatBitsOf(astype);
  if (bits === undefined) {
    (enc as Float64Array).forEach((v, i) => {
      out[i] = Number(v) / scale + offset;
    });
    return out;
  }
  const first = promotedBits(bits, scale);
  const second = promotedBits(first, offset);
  const r1 = roundTo(first);
  const r2 = roundTo(second);
  const sc = r1(scale);
  const off = r2(offset);
  (enc as Float64Array).forEach((v, i) => {
    out[i] = r2(r1(v / sc) + off);
  });
  return out;
}
