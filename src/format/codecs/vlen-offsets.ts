// The variable-length ZEP's chunk layout for the `string` / `binary` data types (Arrow's):
// (n + 1) little-endian signed offsets (int32; int64 for `large_string` / `large_binary`), zero
// padding up to a multiple of 64 bytes, then the concatenated element bytes. Element i is
// data[offsets[i] .. offsets[i + 1]). Floe reaches this layout through the `bytes` codec: the ZEP
// makes the data type itself the chunk's final encoding, so `bytes` on a vlen type means this.
import { floeError } from '../../errors.ts';
import type { DataType } from '../zarr/data-types.ts';
import { cStrides, product } from '../zarr/ndarray.ts';
import type { ArrayToBytesCodec } from './array-codecs.ts';
import type { CodecMetadata } from './types.ts';
import { checkVariableLength, elementBytes, elementFromBytes } from './vlen-elements.ts';
import { shown } from './bytes-codec-support.ts';

const ALIGN = 64;
const NAME = 'bytes';

export function vlenOffsetsCodec(configuration: Record<string, unknown> | undefined, dataType: DataType): ArrayToBytesCodec {
  checkVariableLength(dataType, 'the bytes codec');
  const endian = configuration?.endian;
  if (endian !== undefined && endian !== 'little') {
    throw floeError('INVALID_METADATA', `bytes codec on ${dataType.name}: offsets are little-endian (Arrow's layout), got endian ${shown(endian)}`);
  }
  const wide = dataType.name.startsWith('large_');
  const json: CodecMetadata = endian === undefined ? { name: NAME } : { name: NAME, configuration: { endian } };
  return {
    kind: 'array_to_bytes',
    name: NAME,
    toJSON: () => json,
    encode: (array, spec) => encodeOffsets(elementBytes(array, spec, `bytes (${dataType.name})`), wide, dataType.name),
    decode(bytes, spec) {
      const n = product(spec.shape);
      const out = spec.dataType.allocate(n) as unknown[];
      const where = `bytes (${dataType.name})`;
      decodeOffsets(bytes, n, wide).forEach((p, i) => (out[i] = elementFromBytes(p, spec.dataType, where, i)));
      return { data: out as string[] | Uint8Array[], shape: [...spec.shape], stride: cStrides(spec.shape) };
    },
  };
}

export function dataStart(n: number, wide: boolean): number {
  return Math.ceil(((n + 1) * (wide ? 8 : 4)) / ALIGN) * ALIGN;
}

export function encodeOffsets(parts: readonly Uint8Array[], wide: boolean, typeName: string): Uint8Array {
  const total = parts.reduce((s, p) => s + p.length, 0);
  if (!wide && total > 0x7fffffff) {
    throw floeError('INVALID_ARGUMENT', `a ${typeName} chunk holds ${total} bytes, more than int32 offsets reach; use large_${typeName}`);
  }
  const start = dataStart(parts.length, wide);
  const out = new Uint8Array(start + total);
  const view = new DataView(out.buffer);
  let offset = 0;
  const put = (i: number, v: number): void => {
    if (wide) view.setBigInt64(i * 8, BigInt(v), true);
    else view.setInt32(i * 4, v, true);
  };
  put(0, 0);
  parts.forEach((p, i) => {
    out.set(p, start + offset);
    offset += p.length;
    put(i + 1, offset);
  });
  return out;
}

/** The `n` elements as views into `bytes`; offsets are checked to run forwards inside the data. */
export function decodeOffsets(bytes: Uint8Array, n: number, wide: boolean): Uint8Array[] {
  const corrupt = (why: string): never => {
    throw floeError('CORRUPT_OBJECT', `variable-length chunk is malformed: ${why}`);
  };
  const start = dataStart(n, wide);
  if (bytes.length < start) corrupt(`${bytes.length} bytes cannot hold ${n + 1} offsets and their 64-byte alignment (${start} bytes)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataLength = bytes.length - start;
  const at = (i: number): number => {
    const v = wide ? view.getBigInt64(i * 8, true) : BigInt(view.getInt32(i * 4, true));
    if (v < 0n || v > BigInt(dataLength)) corrupt(`offset ${i} is ${v}, outside the ${dataLength}-byte data buffer`);
    return Number(v);
  };
  const parts = new Array<Uint8Array>(n);
  let prev = at(0);
  for (let i = 0; i < n; i++) {
    const next = at(i + 1);
    if (next < prev) corrupt(`offsets run backwards at element ${i} (${prev} then ${next})`);
    parts[i] = bytes.subarray(start + prev, start + next);
    prev = next;
  }
  return parts;
}
