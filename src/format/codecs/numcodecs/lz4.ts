// `numcodecs.lz4` (numcodecs' LZ4): the decoded size as 4 bytes little-endian, then one LZ4 block
// (the block format Blosc's lz4 streams use), coded by lz4-backend.ts (lz4-napi when installed,
// else Floe's own). The stated size is checked against the decode's limit before anything is
// allocated, and the block must fill it exactly.
import { lz4Backend } from '../lz4-backend.ts';
import { checkKeys, corrupt, decodingGuard, readInt } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation } from '../codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from '../types.ts';
import { boundedPassThrough } from './bounds.ts';

const NAME = 'numcodecs.lz4';
const HEADER = 4;

export function lz4Encode(data: Uint8Array): Uint8Array {
  return lz4Backend().encodeFramed(data);
}

export function lz4Decode(data: Uint8Array, limits?: DecodeLimits): Uint8Array {
  if (data.length < HEADER) throw corrupt(NAME, `${data.length} bytes is shorter than the 4-byte size header`);
  const size = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
  boundedPassThrough(NAME, data, size, limits);
  const out = lz4Backend().decodeFramedNew(data, size);
  if (!out) throw corrupt(NAME, `the LZ4 block is malformed or does not hold the ${size} bytes its header says`);
  return out;
}

/** Decodes into the start of a reused `out`; -1 when the stated size does not fit it. */
export function lz4DecodeInto(data: Uint8Array, out: Uint8Array): number {
  if (data.length < HEADER) throw corrupt(NAME, `${data.length} bytes is shorter than the 4-byte size header`);
  const size = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
  if (size > out.length) return -1;
  if (lz4Backend().decodeFramed(data, out.subarray(0, size)) !== size) {
    throw corrupt(NAME, `the LZ4 block is malformed or does not hold the ${size} bytes its header says`);
  }
  return size;
}

export function lz4Codec(acceleration: number): BytesToBytesCodec {
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: lz4Encode,
    decode: (data, limits) => decodingGuard(NAME, () => lz4Decode(data, limits)),
    decodeInto: (data, out) => decodingGuard(NAME, () => lz4DecodeInto(data, out)),
    toJSON: () => ({ name: NAME, configuration: { acceleration } }),
  };
}

/** `acceleration` is kept and written back; Floe's encoder has one speed (as numcodecs' 1). */
export const lz4Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: true, boundedDecode: true, partialDecode: false, fixedEncodedSize: false },
  zarrV3: (configuration) => {
    checkKeys(NAME, configuration, ['acceleration']);
    return lz4Codec(readInt(NAME, configuration, 'acceleration', -(2 ** 31), 2 ** 31 - 1, 1));
  },
};
