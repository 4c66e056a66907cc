// `numcodecs.astype` (numcodecs' AsType): stores elements cast to `encode_dtype` and casts them
// back to `decode_dtype` (the array's type) on read, with NumPy's casting rules (cast.ts).
import { checkKeys } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import type { TypedArray } from '../../zarr/data-types.ts';
import { castElements } from './cast.ts';
import { checkSameType, readCodecDtype } from './dtype.ts';
import { elementwiseCodec } from './elementwise.ts';

const NAME = 'numcodecs.astype';

export const asTypeEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, ['encode_dtype', 'decode_dtype']);
    const encoded = readCodecDtype(NAME, configuration, 'encode_dtype').dataType;
    checkSameType(NAME, 'decode_dtype', readCodecDtype(NAME, configuration, 'decode_dtype', spec.dataType), spec.dataType);
    const decoded = spec.dataType;
    return elementwiseCodec<TypedArray, TypedArray>({
      name: NAME,
      json: { name: NAME, configuration: { ...configuration } },
      decoded,
      encoded,
      encode: (x) => castElements(x, decoded, encoded),
      decode: (x) => castElements(x, encoded, decoded),
    });
  },
};
