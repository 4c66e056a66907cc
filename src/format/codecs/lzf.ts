// `floe.lzf`: LZF, the compressor of h5py's HDF5 filter 32000, as h5py stores it: the raw LZF
// stream, no header. The stream is a sequence of items, each starting with a control byte c:
// c < 32 is a literal run of c + 1 bytes that follow; otherwise a back reference of
// (c >> 5) + 2 bytes (c >> 5 === 7: one more length byte added) at distance
// ((c & 31) << 8 | next byte) + 1 behind the output's end. The stream does not record its decoded
// size (h5py passes the chunk's size to its filter), so decode walks it once to add the size up,
// checks that against the decode's limit, then allocates and decodes. A codec of Floe's own, so
// virtualized h5py chunks compressed with LZF can be read in place: no other Zarr reader decodes
// it (virtualize maps to it only when asked, as for floe.hdf5_lz4).
import { checkKeys, corrupt, decodingGuard } from './bytes-codec-support.ts';
import type { BytesCodecImplementation } from './codec-implementation.ts';
import type { BytesToBytesCodec, DecodeLimits } from './types.ts';
import { boundedPassThrough } from './numcodecs/bounds.ts';

const NAME = 'floe.lzf';
const MAX_LITERAL = 32;
const MAX_DISTANCE = 1 << 13;
const MAX_MATCH = 7 + 255 + 2;

/** The decoded size of an LZF stream, checking every item's bounds on the way. */
function decodedSize(data: Uint8Array): number {
  let at = 0;
  let out = 0;
  while (at < data.length) {
    const c = data[at++]!;
    if (c < 32) {
      if (at + c + 1 > data.length) throw corrupt(NAME, `a literal run of ${c + 1} bytes runs past its end`);
      at += c + 1;
      out += c + 1;
      continue;
    }
    let length = c >> 5;
    if (length === 7) {
      if (at >= data.length) throw corrupt(NAME, 'it ends inside a back reference');
      length += data[at++]!;
    }
    if (at >= data.length) throw corrupt(NAME, 'it ends inside a back reference');
    const distance = (((c & 31) << 8) | data[at++]!) + 1;
    if (distance > out) throw corrupt(NAME, `a back reference points ${distance} bytes back, before the start of the output`);
    out += length + 2;
  }
  return out;
}

export function lzfDecode(data: Uint8Array, limits?: DecodeLimits): Uint8Array {
  const size = decodedSize(data);
  boundedPassThrough(NAME, data, size, limits);
  const out = new Uint8Array(size);
  let at = 0;
  let op = 0;
  while (at < data.length) {
    const c = data[at++]!;
    if (c < 32) {
      out.set(data.subarray(at, at + c + 1), op);
      at += c + 1;
      op += c + 1;
      continue;
    }
    let length = c >> 5;
    if (length === 7) length += data[at++]!;
    let ref = op - ((((c & 31) << 8) | data[at++]!) + 1);
    // Byte by byte: a reference may overlap the bytes it produces (a run).
    for (let end = op + length + 2; op < end; ) out[op++] = out[ref++]!;
  }
  return out;
}

/** LZF with a greedy hash-chain-free matcher (one candidate per 3-byte hash), as liblzf does. */
export function lzfEncode(data: Uint8Array): Uint8Array {
  const n = data.length;
  // Worst case: every byte a literal, plus one control byte per 32.
  const out = new Uint8Array(n + Math.ceil(n / MAX_LITERAL) + 1);
  const table = new Int32Array(1 << 14).fill(-1);
  let op = 0;
  let literalStart = 0;
  const flushLiterals = (end: number) => {
    for (let s = literalStart; s < end; s += MAX_LITERAL) {
      const run = Math.min(MAX_LITERAL, end - s);
      out[op++] = run - 1;
      out.set(data.subarray(s, s + run), op);
      op += run;
    }
  };
  let ip = 0;
  while (ip + 2 < n) {
    const h = (((data[ip]! << 16) | (data[ip + 1]! << 8) | data[ip + 2]!) * 2654435761) >>> 18;
    const ref = table[h]!;
    table[h] = ip;
    if (ref >= 0 && ip - ref <= MAX_DISTANCE && data[ref] === data[ip] && data[ref + 1] === data[ip + 1] && data[ref + 2] === data[ip + 2]) {
      let length = 3;
      while (length < MAX_MATCH && ip + length < n && data[ref + length] === data[ip + length]) length++;
      flushLiterals(ip);
      const distance = ip - ref - 1;
      const l = length - 2;
      if (l < 7) out[op++] = (l << 5) | (distance >> 8);
      else {
        out[op++] = (7 << 5) | (distance >> 8);
        out[op++] = l - 7;
      }
      out[op++] = distance & 255;
      ip += length;
      literalStart = ip;
      continue;
    }
    ip++;
  }
  flushLiterals(n);
  return out.slice(0, op);
}

export function lzfCodec(): BytesToBytesCodec {
  return {
    kind: 'bytes_to_bytes',
    name: NAME,
    encode: lzfEncode,
    decode: (data, limits) => decodingGuard(NAME, () => lzfDecode(data, limits)),
    toJSON: () => ({ name: NAME }),
  };
}

export const lzfEntry: BytesCodecImplementation = {
  name: NAME,
  kind: 'bytes_to_bytes',
  capabilities: { decodeInto: false, boundedDecode: true, partialDecode: false, fixedEncodedSize: false },
  zarrV3: (configuration) => {
    checkKeys(NAME, configuration, []);
    return lzfCodec();
  },
};
