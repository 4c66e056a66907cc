// `numcodecs.packbits` (numcodecs' PackBits): a bool chunk of n elements becomes 1 + ceil(n / 8)
// bytes: the count of padding bits, then the elements eight to a byte, first element in the high
// bit (np.packbits). A one-dimensional uint8 chunk, as zarr-python 3's wrapper resolves it.
import { floeError } from '../../../errors.ts';
import { parseDataType } from '../../zarr/data-types.ts';
import { defaultFillValue } from '../../zarr/fill-value.ts';
import { cStrides, product } from '../../zarr/ndarray.ts';
import type { ArrayToArrayCodec, ChunkSpec } from '../array-codecs.ts';
import { checkKeys, corrupt } from '../bytes-codec-support.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from '../codec-implementation.ts';
import { toCContiguous } from '../contiguous.ts';

const NAME = 'numcodecs.packbits';
const UINT8 = parseDataType('uint8');

export function packedLength(n: number): number {
  return 1 + Math.ceil(n / 8);
}

export function packBits(bits: Uint8Array): Uint8Array {
  const out = new Uint8Array(packedLength(bits.length));
  out[0] = (8 - (bits.length % 8)) % 8;
  let byte = 0;
  for (const [i, bit] of bits.entries()) {
    if (bit !== 0) byte |= 0x80 >> (i & 7);
    if ((i & 7) === 7 || i === bits.length - 1) {
      out[1 + (i >> 3)] = byte;
      byte = 0;
    }
  }
  return out;
}

/** Unpacks exactly `n` elements; the stored padding count must say the same. */
export function unpackBits(packed: Uint8Array, n: number): Uint8Array {
  if (packed.length !== packedLength(n) || packed[0] !== (8 - (n % 8)) % 8) {
    throw corrupt(NAME, `expected ${packedLength(n)} bytes with ${(8 - (n % 8)) % 8} padding bits for ${n} elements, got ${packed.length} bytes with ${packed[0] ?? 'no'} padding bits`);
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = ((packed[1 + (i >> 3)] ?? 0) >> (7 - (i & 7))) & 1; // 1 + i/8 < packed.length (checked)
  return out;
}

function packBitsCodec(): ArrayToArrayCodec {
  return {
    kind: 'array_to_array',
    name: NAME,
    toJSON: () => ({ name: NAME, configuration: {} }),
    resolveSpec: (spec: ChunkSpec): ChunkSpec => ({ shape: [packedLength(product(spec.shape))], dataType: UINT8, fillValue: defaultFillValue(UINT8) }),
    encode(array, spec) {
      const flat = toCContiguous(array, spec.dataType).data as Uint8Array;
      const packed = packBits(flat);
      return { data: packed, shape: [packed.length], stride: [1] };
    },
    decode(array, spec) {
      const packed = toCContiguous(array, UINT8).data as Uint8Array;
      const shape = [...spec.shape];
      return { data: unpackBits(packed, product(shape)), shape, stride: cStrides(shape) };
    },
  };
}

export const packBitsEntry: ArrayCodecImplementation = {
  name: NAME,
  kind: 'array_to_array',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (configuration, { spec }) => {
    checkKeys(NAME, configuration, []);
    if (spec.dataType.kind !== 'bool') throw floeError('UNSUPPORTED', `${NAME}: packs bool arrays only (as numcodecs), got ${spec.dataType.name}`);
    return packBitsCodec();
  },
};
