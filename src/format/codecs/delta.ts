// `numcodecs.delta` (zarr-python's wrapper of numcodecs' Delta): each element stored as the
// difference to its predecessor in C order. Only `astype` equal to `dtype` is supported.
import { floeError } from '../../errors.ts';
import type { TypedArray } from '../zarr/data-types.ts';
import { cStrides } from '../zarr/ndarray.ts';
import type { ArrayToArrayCodec } from './array-codecs.ts';
import { toCContiguous } from './contiguous.ts';
import { shown } from './bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from './codec-implementation.ts';

export function deltaCodec(configuration: Record<string, unknown> | undefined, dataTypeName: string): ArrayToArrayCodec {
  const dtype = configuration?.dtype;
  const astype = configuration?.astype ?? dtype;
  if (dtype !== undefined && !matches(dtype, dataTypeName)) {
    throw floeError('UNSUPPORTED', `numcodecs.delta: dtype ${shown(dtype)} differs from the array's ${dataTypeName}`);
  }
  if (astype !== undefined && astype !== dtype) {
    throw floeError('UNSUPPORTED', `numcodecs.delta: astype ${shown(astype)} different from dtype is not supported`);
  }
  return {
    kind: 'array_to_array',
    name: 'numcodecs.delta',
    toJSON: () => ({ name: 'numcodecs.delta', configuration: { ...(configuration ?? {}) } }),
    resolveSpec: (spec) => spec,
    encode(array, spec) {
      const src = toCContiguous(array, spec.dataType).data as TypedArray;
      const out = src.slice() as TypedArray;
      for (let i = out.length - 1; i > 0; i--) (out as Int32Array)[i] = (src as Int32Array)[i]! - (src as Int32Array)[i - 1]!;
      return { data: out, shape: [...array.shape], stride: cStrides(array.shape) };
    },
    decode(array, spec) {
      const out = (toCContiguous(array, spec.dataType).data as TypedArray).slice() as Int32Array;
      for (let i = 1; i < out.length; i++) out[i] = out[i]! + out[i - 1]!;
      return { data: out, shape: [...array.shape], stride: cStrides(array.shape) };
    },
  };
}

const NUMPY_NAMES: Record<string, string[]> = {
  int8: ['|i1', 'i1'], uint8: ['|u1', 'u1'], int16: ['<i2', 'i2'], uint16: ['<u2', 'u2'],
  int32: ['<i4', 'i4'], uint32: ['<u4', 'u4'], int64: ['<i8', 'i8'], uint64: ['<u8', 'u8'],
  float32: ['<f4', 'f4'], float64: ['<f8', 'f8'],
};

function matches(dtype: unknown, name: string): boolean {
  return dtype === name || (NUMPY_NAMES[name] ?? []).includes(dtype as string);
}

export const deltaEntry: ArrayCodecImplementation = {
  name: 'numcodecs.delta',
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => deltaCodec(configuration, spec.dataType.name),
};
