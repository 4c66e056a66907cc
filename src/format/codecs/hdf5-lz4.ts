// `floe.hdf5_lz4`: the framing of HDF5's LZ4 filter (registered filter 32004, Debian's
// hdf5-filter-plugin), which is not numcodecs' LZ4: the decoded size as 8 bytes big-endian, the
// block size as 4 bytes big-endian, then per block its stored size (4 bytes big-endian) and an LZ4
// block, or the block's bytes as they are when the stored size equals the block's decoded size.
// A codec of Floe's own, so virtualized HDF5 chunks compressed this way can be read in place:
// no other Zarr implementation decodes it (virtualize maps to it only when asked). The declared
// size is checked against the decode's limit before anything is allocated.
import { joinBytes } from '../bytes.ts';
import { lz4Backend, compressBound } from './lz4-backend.ts';
import { checkKeys, corrupt, decodingGuard } from './bytes-codec-support.ts';
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from './types.ts';
import { boundedPassThrough } from './numcodecs/bounds.ts';

const NAME = 'floe.hdf5_lz4';
const HEADER = 12;
/** HDF5's plugin's default block size (1 GiB caps it); Floe writes 1 MiB blocks. */
const BLOCK = 1 << 20;

export function hdf5Lz4Decode(data: Uint8Array, limits?: DecodeLimits): Uint8Array {
  if (data.length < HEADER) throw corrupt(NAME, `${data.length} bytes is shorter than the 12-byte header`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const total = view.getBigUint64(0, false);
  const blockSize = view.getUint32(8, false);
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(NAME, `it declares ${total} decoded bytes`);
  const size = Number(total);
  boundedPassThrough(NAME, data, size, limits);
  if (size > 0 && blockSize === 0) throw corrupt(NAME, 'its block size is 0');
  if (size > 0 && data.length < HEADER + 4 * Math.ceil(size / blockSize)) throw corrupt(NAME, `${data.length} bytes cannot hold ${size} decoded bytes in ${blockSize}-byte blocks`);
  const out = new Uint8Array(size);
  let at = HEADER;
  for (let done = 0; done < size; ) {
    const want = Math.min(blockSize, size - done);
    if (at + 4 > data.length) throw corrupt(NAME, 'it ends inside a block header');
    const stored = view.getUint32(at, false);
    at += 4;
    if (at + stored > data.length) throw corrupt(NAME, `a block of ${stored} bytes runs past its end`);
    const block = data.subarray(at, at + stored);
    if (stored === want) out.set(block, done);
    else if (lz4Backend().decodeBlock(block, out.subarray(done, done + want)) !== want) throw corrupt(NAME, `a block does not decode to its ${want} bytes`);
    at += stored;
    done += want;
  }
  return out;
}

export function hdf5Lz4Encode(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const head = new Uint8Array(HEADER);
  const view = new DataView(head.buffer);
  view.setBigUint64(0, BigInt(data.length), false);
  view.setUint32(8, BLOCK, false);
  parts.push(head);
  for (let done = 0; done < data.length; done += BLOCK) {
    const block = data.subarray(done, Math.min(data.length, done + BLOCK));
    const dst = new Uint8Array(4 + compressBound(block.length));
    const n = lz4Backend().encodeBlock(block, dst.subarray(4));
    const body = n > 0 && n < block.length ? dst.subarray(0, 4 + n) : (() => { const raw = new Uint8Array(4 + block.length); raw.set(block, 4); return raw; })();
    new DataView(body.buffer, body.byteOffset).setUint32(0, body.length - 4, false);
    parts.push(body);
  }
  return joinBytes(parts, parts.reduce((n, p) => n + p.length, 0));
}

export function hdf5Lz4Codec(): BytesToBytesCodec {
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: hdf5Lz4Encode,
    decode: (data, limits) => decodingGuard(NAME, () => hdf5Lz4Decode(data, limits)),
    toJSON: () => ({ name: NAME }),
  };
}

export const hdf5Lz4Entry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: false },
  zarrV3: (configuration) => {
    checkKeys(NAME, configuration, []);
    return hdf5Lz4Codec();
  },
};
