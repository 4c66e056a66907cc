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
      // Typed as Int32Array for the arithmetic; bigint arrays run the same code with bigints.
      const src = toCContiguous(array, spec.dataType).data as TypedArray as Int32Array;
      const out = src.slice();
      differences(src, out);
      return { data: out, shape: [...array.shape], stride: cStrides(array.shape) };
    },
    decode(array, spec) {
      const out = (toCContiguous(array, spec.dataType).data as TypedArray).slice() as Int32Array;
      // Running sums as stored (wrapped to the element type). 1 <= i < out.length:
      for (let i = 1; i < out.length; i++) out[i] = out[i]! + out[i - 1]!;
      return { data: out, shape: [...array.shape], stride: cStrides(array.shape) };
    },
  };
}

/** out[i] = src[i] - src[i - 1] for i >= 1 (out[0] stays src[0]); `out` is a copy of `src`. */
function differences(src: Int32Array, out: Int32Array): void {
  // Indexed, not for-of: for-of over typed arrays is several times slower on Node 20. The value
  // carried in `prev` saves a second read per element.
  let prev = src[0];
  if (prev === undefined) return;
  for (let i = 1; i < src.length; i++) {
    const x = src[i]!; // 1 <= i < src.length
    out[i] = x - prev;
    prev = x;
  }
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
