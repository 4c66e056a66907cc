// `numcodecs.lz4` (numcodecs' LZ4): the decoded size as 4 bytes little-endian, then one LZ4 block
// (the block format Blosc's lz4 streams use, blosc/lz4.ts). The stated size is checked against
// the decode's limit before anything is allocated, and the block must fill it exactly.
import { lz4Compress, lz4Decompress } from '../blosc/lz4.ts';
import { checkKeys, corrupt, decodingGuard, readInt } from '../bytes-codec-support.ts';
import type { BytesCodecImplementation } from '../codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from '../types.ts';
import { boundedPassThrough } from './bounds.ts';

const NAME = 'numcodecs.lz4';
const HEADER = 4;

/** LZ4_compressBound: the most one block can take for `n` bytes. */
const compressBound = (n: number): number => n + Math.floor(n / 255) + 16;

export function lz4Encode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + compressBound(data.length));
  new DataView(out.buffer).setUint32(0, data.length, true);
  const written = lz4Compress(data, out.subarray(HEADER), false);
  // The bound always fits a block; 0 would mean the encoder broke its own contract.
  if (written === 0) throw corrupt(NAME, 'the encoder overran LZ4_compressBound');
  return out.slice(0, HEADER + written);
}

export function lz4Decode(data: Uint8Array, limits?: DecodeLimits): Uint8Array {
  if (data.length < HEADER) throw corrupt(NAME, `${data.length} bytes is shorter than the 4-byte size header`);
  const size = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
  boundedPassThrough(NAME, data, size, limits);
  const out = new Uint8Array(size);
  const written = lz4Decompress(data.subarray(HEADER), out);
  if (written !== size) throw corrupt(NAME, written < 0 ? 'the LZ4 block is malformed' : `the block holds ${written} bytes, the header says ${size}`);
  return out;
}

export function lz4Codec(acceleration: number): BytesToBytesCodec {
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: lz4Encode,
    decode: (data, limits) => decodingGuard(NAME, () => lz4Decode(data, limits)),
    toJSON: () => ({ name: NAME, configuration: { acceleration } }),
  };
}

/** `acceleration` is kept and written back; Floe's encoder has one speed (as numcodecs' 1). */
export const lz4Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: false },
  zarrV3: (configuration) => {
    checkKeys(NAME, configuration, ['acceleration']);
    return lz4Codec(readInt(NAME, configuration, 'acceleration', -(2 ** 31), 2 ** 31 - 1, 1));
  },
};
