// The `bytes` codec: fixed-size elements to bytes, little or big endian. float16 converts
// between Float32Array memory and 2-byte halves here.
import { floeError } from '../../errors.ts';
import { copyBytes } from '../bytes.ts';
import { isVariableLength, type DataType, type TypedArray } from '../zarr/data-types.ts';
import { halfToNumber, numberToHalf } from '../zarr/float16.ts';
import { cStrides, product } from '../zarr/ndarray.ts';
import type { ArrayToBytesCodec, ChunkSpec } from './array-codecs.ts';
import { toCContiguous } from './contiguous.ts';
import type { ArrayCodecImplementation } from './codec-implementation.ts';
import type { CodecMetadata } from './types.ts';
import { vlenOffsetsCodec } from './vlen-offsets.ts';
import { shown } from './bytes-codec-support.ts';
import { swapBytesInPlace } from '../../platform/host.ts';

type Endian = 'little' | 'big';
const HOST_LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function bytesCodec(configuration: Record<string, unknown> | undefined, dataType: DataType): ArrayToBytesCodec {
  const endian = configuration?.endian;
  if (endian !== undefined && endian !== 'little' && endian !== 'big') {
    throw floeError('INVALID_METADATA', `bytes codec: endian must be "little" or "big", got ${shown(endian)}`);
  }
  if (dataType.kind === 'string') {
    throw floeError('INVALID_METADATA', 'the bytes codec cannot encode variable-length strings; use vlen-utf8');
  }
  const swapWidth = dataType.kind === 'raw' ? 1 : dataType.kind === 'complex' ? dataType.itemSize / 2 : dataType.itemSize;
  if (endian === undefined && swapWidth > 1) {
    throw floeError('INVALID_METADATA', `bytes codec: "endian" is required for ${dataType.name}`);
  }
  const swap = swapWidth > 1 && (endian === 'big') === HOST_LITTLE;
  const json: CodecMetadata = endian === undefined ? { name: 'bytes' } : { name: 'bytes', configuration: { endian } };

  return {
    kind: 'array_to_bytes',
    name: 'bytes',
    computeEncodedSize: (spec: ChunkSpec) => product(spec.shape) * dataType.itemSize,
    toJSON: () => json,
    encode(array, spec) {
      const c = toCContiguous(array, spec.dataType);
      if (dataType.name === 'float16') return encodeHalf(c.data as Float32Array, swap);
      const src = c.data as TypedArray;
      const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
      if (!swap) return bytes.slice();
      const out = bytes.slice();
      swapInPlace(out, swapWidth);
      return out;
    },
    decode(bytes, spec) {
      const n = product(spec.shape);
      const expected = n * dataType.itemSize;
      if (bytes.length !== expected) {
        throw floeError('CORRUPT_OBJECT', `chunk holds ${bytes.length} bytes, expected ${expected} (${n} x ${dataType.name})`);
      }
      const shape = [...spec.shape];
      const stride = cStrides(shape);
      if (dataType.name === 'float16') return { data: decodeHalf(bytes, swap), shape, stride };
      // Zero-copy view when the bytes are aligned and need no swap: the input is the chain's own
      // intermediate buffer (or a fresh read), never reused behind our back.
      const out = spec.dataType.allocate(0) as TypedArray;
      const Ctor = out.constructor as new (b: ArrayBufferLike, o: number, n: number) => TypedArray;
      const lanes = n * dataType.lanes;
      if (!swap && bytes.byteOffset % dataType.laneBytes === 0) {
        return { data: new Ctor(bytes.buffer, bytes.byteOffset, lanes), shape, stride };
      }
      const copy = copyBytes(bytes);
      if (swap) swapInPlace(copy, swapWidth);
      return { data: new Ctor(copy.buffer, 0, lanes), shape, stride };
    },
  };
}

function swapInPlace(bytes: Uint8Array, width: number): void {
  if (width === 2 || width === 4 || width === 8) swapBytesInPlace(bytes, width);
}

function encodeHalf(values: Float32Array, swap: boolean): Uint8Array {
  const out = Uint16Array.from(values, (v) => numberToHalf(v));
  const bytes = new Uint8Array(out.buffer);
  if (swap) swapInPlace(bytes, 2);
  return bytes;
}

function decodeHalf(bytes: Uint8Array, swap: boolean): Float32Array {
  const copy = copyBytes(bytes);
  if (swap) swapInPlace(copy, 2);
  const halves = new Uint16Array(copy.buffer, 0, copy.length / 2);
  return Float32Array.from(halves, (h) => halfToNumber(h));
}

export const bytesEntry: ArrayCodecImplementation = {
  name: 'bytes',
  kind: 'array_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: false, partialDecode: false, fixedEncodedSize: true },
  // On string/binary data the ZEP's offsets layout is the data type's own byte form.
  zarrV3: (configuration, { spec }) =>
    isVariableLength(spec.dataType) ? vlenOffsetsCodec(configuration, spec.dataType) : bytesCodec(configuration, spec.dataType),
};
