// `numcodecs.quantize` (numcodecs' Quantize): keeps `digits` decimal digits of floats by rounding
// to a multiple of a power of two, round(x * 2^bits) / 2^bits, stored as `astype`; decoding only
// casts back to `dtype`. The exponent is worked out as numcodecs does, in doubles.
import { floeError } from '../../../errors.ts';
import { parseDataType, type TypedArray } from '../../zarr/data-types.ts';
import { checkKeys, invalidConfig } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { castElements } from './cast.ts';
import { checkSameType, readCodecDtype } from './dtype.ts';
import { elementwiseCodec } from './elementwise.ts';
import { floatBitsOf, promotedBits, roundHalfEven, roundTo } from './float-ops.ts';
import { readNumber } from './scalars.ts';

const NAME = 'numcodecs.quantize';
const FLOAT64 = parseDataType('float64');

export const quantizeEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['digits', 'dtype', 'astype']);
    const digits = readNumber(NAME, configuration, 'digits');
    if (!Number.isInteger(digits)) throw invalidConfig(NAME, `"digits" must be an integer, got ${digits}`);
    const dtype = readCodecDtype(NAME, configuration, 'dtype', spec.dataType);
    checkSameType(NAME, 'dtype', dtype, spec.dataType);
    const astype = readCodecDtype(NAME, configuration, 'astype', spec.dataType).dataType;
    const bits = floatBitsOf(spec.dataType);
    if (bits === undefined || astype.kind !== 'float') {
      throw floeError('UNSUPPORTED', `${NAME}: only float arrays quantize to floats (numcodecs refuses the rest), got ${spec.dataType.name} as ${astype.name}`);
    }
    const scale = quantizeScale(digits);
    const precision = promotedBits(bits, scale, true);
    const round = roundTo(precision);
    const decoded = spec.dataType;
    return elementwiseCodec<TypedArray, TypedArray>({
      name: NAME,
      json: { name: NAME, configuration: { ...configuration } },
      decoded,
      encoded: astype,
      encode: (x) => {
        const out = new Float64Array(x.length);
        (x as Float64Array).forEach((v, i) => {
          out[i] = round(roundHalfEven(round(v * scale)) / scale);
        });
        return castElements(out, FLOAT64, astype);
      },
      decode: (enc) => castElements(enc, astype, decoded),
    });
  },
};

/** 2^bits with 2^bits >= 10^digits, computed as numcodecs does (logarithms of doubles). */
function quantizeScale(digits: number): number {
  const precision = 10 ** -digits;
  const log10 = Math.log(precision) / Math.log(10);
  const exp = log10 < 0 ? Math.floor(log10) : Math.ceil(log10);
  const bits = Math.ceil(Math.log(10 ** -exp) / Math.log(2));
  return 2 ** bits;
}
