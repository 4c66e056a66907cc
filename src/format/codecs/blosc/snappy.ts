// Snappy raw format (no framing), as c-blosc stores it for cname snappy: a varint of the
// decoded length, then elements whose tag's low 2 bits say: 0 literal (length - 1 in the upper
// 6 bits, or 60-63 = 1-4 little-endian length bytes follow), 1 copy of 4-11 bytes with an
// 11-bit offset, 2 copy of 1-64 bytes with a u16le offset, 3 the same with a u32le offset.
import { copyMatch } from './lz4.ts';
import { findMatches, type MatchSink } from './match-finder.ts';

/** Decodes into `dst` (which must be exactly the stated length); returns bytes or -1. */
export function snappyDecompress(src: Uint8Array, dst: Uint8Array): number {
  const inEnd = src.length;
  let ip = 0;
  let stated = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[ip++];
    if (b === undefined || shift > 28) return -1;
    stated += (b & 127) * 2 ** shift;
    if (b < 128) break;
  }
  if (stated !== dst.length) return -1;
  let op = 0;
  while (ip < inEnd) {
    const tag = src[ip++];
    if (tag === undefined) return -1; // not taken: ip < inEnd
    const kind = tag & 3;
    if (kind === 0) {
      let length = (tag >>> 2) + 1;
      if (length > 60) {
        const extra = length - 60;
        if (ip + extra > inEnd) return -1;
        length = 0;
        for (const [k, b] of src.subarray(ip, ip + extra).entries()) length += b * 2 ** (8 * k);
        length += 1;
        ip += extra;
      }
      if (ip + length > inEnd || op + length > stated) return -1;
      dst.set(src.subarray(ip, ip + length), op);
      ip += length;
      op += length;
      continue;
    }
    let length: number;
    let offset: number;
    if (kind === 1) {
      const low = src[ip++];
      if (low === undefined) return -1;
      length = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | low;
    } else if (kind === 2) {
      const b0 = src[ip];
      const b1 = src[ip + 1];
      if (b0 === undefined || b1 === undefined) return -1;
      length = (tag >>> 2) + 1;
      offset = b0 | (b1 << 8);
      ip += 2;
    } else {
      const b0 = src[ip];
      const b1 = src[ip + 1];
      const b2 = src[ip + 2];
      const b3 = src[ip + 3];
      if (b0 === undefined || b1 === undefined || b2 === undefined || b3 === undefined) return -1;
      length = (tag >>> 2) + 1;
      offset = (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)) >>> 0;
      ip += 4;
    }
    if (offset === 0 || offset > op || op + length > stated) return -1;
    copyMatch(dst, op, offset, length);
    op += length;
  }
  return op;
}

/** Encodes `src` into `dst`; returns bytes written, or 0 when it would not fit. */
export function snappyCompress(src: Uint8Array, dst: Uint8Array): number {
  let op = writeVarint(dst, 0, src.length);
  if (op < 0) return 0;
  const sink: MatchSink = {
    sequence(literalStart, matchStart, length, distance) {
      op = writeLiteral(dst, op, src, literalStart, matchStart);
      if (op < 0) return false;
      while (length > 0) {
        const piece = length > 64 ? (length - 64 < 4 ? 60 : 64) : length;
        if (op + 3 > dst.length) return false;
        dst[op++] = ((piece - 1) << 2) | 2;
        dst[op++] = distance & 255;
        dst[op++] = distance >>> 8;
        length -= piece;
      }
      return true;
    },
  };
  let anchor = 0;
  if (src.length > 8) {
    const limits = { maxDistance: 65535, lastMatchStart: src.length - 4, lastMatchEnd: src.length, skipShift: 5 };
    anchor = findMatches(src, 0, limits, sink);
    if (anchor < 0) return 0;
  }
  op = writeLiteral(dst, op, src, anchor, src.length);
  return op < 0 ? 0 : op;
}

function writeLiteral(dst: Uint8Array, op: number, src: Uint8Array, from: number, to: number): number {
  const n = to - from;
  if (n === 0) return op;
  if (op + n + 5 > dst.length) return -1;
  const code = n - 1;
  if (code < 60) {
    dst[op++] = code << 2;
  } else {
    const bytes = code < 0x100 ? 1 : code < 0x10000 ? 2 : code < 0x1000000 ? 3 : 4;
    dst[op++] = (59 + bytes) << 2;
    for (let k = 0; k < bytes; k++) dst[op++] = (code >>> (8 * k)) & 255;
  }
  dst.set(src.subarray(from, to), op);
  return op + n;
}

function writeVarint(dst: Uint8Array, op: number, n: number): number {
  while (n >= 128) {
    if (op >= dst.length) return -1;
    dst[op++] = (n & 127) | 128;
    n = Math.floor(n / 128);
  }
  if (op >= dst.length) return -1;
  dst[op++] = n;
  return op;
}
