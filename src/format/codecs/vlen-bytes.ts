// `vlen-bytes` (zarr-python 3 / numcodecs): u32le count, then for each element u32le byte length
// + bytes, in C order. The same framing as `vlen-utf8`, whose decoder uses `decodeFrames` too.
import { floeError } from '../../errors.ts';
import { cStrides, product } from '../zarr/ndarray.ts';
import type { ArrayToBytesCodec } from './array-codecs.ts';
import { checkVariableLength, elementBytes, elementFromBytes } from './vlen-elements.ts';
import type { DataType } from '../zarr/data-types.ts';
import { PLAIN_CAPABILITIES, type ArrayCodecImplementation } from './codec-implementation.ts';

export function vlenBytesCodec(dataType: DataType): ArrayToBytesCodec {
  checkVariableLength(dataType, 'vlen-bytes');
  return framedCodec('vlen-bytes');
}

export const vlenBytesEntry: ArrayCodecImplementation = {
  name: 'vlen-bytes',
  kind: 'array_to_bytes',
  capabilities: PLAIN_CAPABILITIES,
  zarrV3: (_configuration, { spec }) => vlenBytesCodec(spec.dataType),
};

/** An array -> bytes codec with numcodecs' framed layout under `name`. */
export function framedCodec(name: string): ArrayToBytesCodec {
  return {
    kind: 'array_to_bytes',
    name,
    toJSON: () => ({ name }),
    encode: (array, spec) => encodeFrames(elementBytes(array, spec, name)),
    decode(bytes, spec) {
      const n = product(spec.shape);
      const parts = decodeFrames(bytes, n, name);
      const out = spec.dataType.allocate(n) as unknown[];
      parts.forEach((p, i) => (out[i] = elementFromBytes(p, spec.dataType, name, i)));
      return { data: out as string[] | Uint8Array[], shape: [...spec.shape], stride: cStrides(spec.shape) };
    },
  };
}

export function encodeFrames(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(4 + parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, parts.length, true);
  let pos = 4;
  for (const p of parts) {
    view.setUint32(pos, p.length, true);
    out.set(p, pos + 4);
    pos += 4 + p.length;
  }
  return out;
}

/** The `n` frames of a chunk, as views into `bytes`; every length is checked against the buffer. */
export function decodeFrames(bytes: Uint8Array, n: number, codec: string): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (why: string): never => {
    throw floeError('CORRUPT_OBJECT', `${codec} chunk is malformed: ${why}`);
  };
  if (bytes.length < 4) corrupt('shorter than its 4-byte count');
  const count = view.getUint32(0, true);
  if (count !== n) corrupt(`holds ${count} elements, expected ${n}`);
  const parts = new Array<Uint8Array>(n);
  let pos = 4;
  for (let i = 0; i < n; i++) {
    if (pos + 4 > bytes.length) corrupt(`truncated at element ${i}`);
    const len = view.getUint32(pos, true);
    pos += 4;
    if (pos + len > bytes.length) corrupt(`element ${i} (${len} bytes) runs past the end`);
    parts[i] = bytes.subarray(pos, pos + len);
    pos += len;
  }
  if (pos !== bytes.length) corrupt(`${bytes.length - pos} trailing bytes`);
  return parts;
}
