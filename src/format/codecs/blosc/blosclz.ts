// BloscLZ, c-blosc's own LZ77 format (a FastLZ level-1 derivative). A stream is a series of
// control bytes: top 3 bits 0 -> a literal run of (ctrl & 31) + 1 bytes follows; otherwise a
// match: length code c = ctrl >> 5 (7 -> extension bytes, 255 = more), then a distance byte.
// distance - 1 = ((ctrl & 31) << 8) + byte, or, when that is 31 and 255, 8191 + a u16be that
// follows. Length = c + 2 + extension. The first control byte is always a literal run.
// Our encoder always ends a stream with literals: some c-blosc versions drop a final match.
import { copyMatch } from './lz4.ts';
import { findMatches, type MatchSink } from './match-finder.ts';

const MAX_NEAR = 8191; // distances - 1 below this fit in 13 bits
const MAX_FAR = MAX_NEAR + 65535;
const MAX_LITERAL_RUN = 32;

/** Decodes into `dst`; returns the bytes written, or -1 for malformed input. */
export function blosclzDecompress(src: Uint8Array, dst: Uint8Array): number {
  const inEnd = src.length;
  const outEnd = dst.length;
  const first = src[0];
  if (first === undefined) return -1;
  let ip = 1;
  let op = 0;
  let ctrl = first & 31;
  for (;;) {
    if (ctrl < 32) {
      const run = ctrl + 1;
      if (ip + run > inEnd || op + run > outEnd) return -1;
      for (let k = 0; k < run; k++) dst[op + k] = src[ip + k]!; // ip + run <= inEnd, checked above
      ip += run;
      op += run;
    } else {
      let length = (ctrl >>> 5) + 2;
      if (length === 9) {
        let b: number | undefined;
        do {
          b = src[ip++];
          if (b === undefined) return -1;
          length += b;
        } while (b === 255);
      }
      const code = src[ip++];
      if (code === undefined) return -1;
      let distance = ((ctrl & 31) << 8) + code + 1;
      if (code === 255 && (ctrl & 31) === 31) {
        const high = src[ip];
        const low = src[ip + 1];
        if (high === undefined || low === undefined) return -1;
        distance = ((high << 8) | low) + MAX_NEAR + 1;
        ip += 2;
      }
      if (distance > op || op + length > outEnd) return -1;
      copyMatch(dst, op, distance, length);
      op += length;
    }
    if (ip >= inEnd) return op; // test first: a read past the end would slow every read here
    const next = src[ip++];
    if (next === undefined) return -1; // not taken: ip < inEnd
    ctrl = next;
  }
}

/** Encodes `src` into `dst`; returns bytes written, or 0 when it would not fit. */
export function blosclzCompress(src: Uint8Array, dst: Uint8Array): number {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  let op = 0;
  const sink: MatchSink = {
    sequence(literalStart, matchStart, length, distance) {
      if (matchStart === 0) {
        // The first control byte must be a literal run: give the match's first byte to it.
        matchStart++;
        length--;
      }
      op = writeLiterals(dst, op, view, literalStart, matchStart);
      if (op < 0) return false;
      op = writeMatch(dst, op, length, distance);
      return op >= 0;
    },
  };
  let anchor = 0;
  if (src.length > 8) {
    // lastMatchEnd < length: a stream always ends with at least one literal.
    const limits = { maxDistance: MAX_FAR + 1, lastMatchStart: src.length - 4, lastMatchEnd: src.length - 1, skipShift: 5 };
    anchor = findMatches(src, 0, limits, sink);
    if (anchor < 0) return 0;
  }
  op = writeLiterals(dst, op, view, anchor, src.length);
  return op < 0 ? 0 : op;
}

/** Writes `src[from, to)` as literal runs; `view` reads `src` (a DataView checks its own range). */
function writeLiterals(dst: Uint8Array, op: number, view: DataView, from: number, to: number): number {
  const n = to - from;
  if (op + n + Math.ceil(n / MAX_LITERAL_RUN) > dst.length) return -1;
  while (from < to) {
    const run = Math.min(MAX_LITERAL_RUN, to - from);
    dst[op++] = run - 1;
    for (let k = 0; k < run; k++) dst[op + k] = view.getUint8(from + k);
    op += run;
    from += run;
  }
  return op;
}

function writeMatch(dst: Uint8Array, op: number, length: number, distance: number): number {
  const d = distance - 1;
  const far = d >= MAX_NEAR;
  if (op + 5 + Math.floor(length / 255) > dst.length) return -1;
  const high = far ? 31 : d >>> 8;
  if (length >= 9) {
    dst[op++] = (7 << 5) | high;
    let rest = length - 9;
    while (rest >= 255) {
      dst[op++] = 255;
      rest -= 255;
    }
    dst[op++] = rest;
  } else {
    dst[op++] = ((length - 2) << 5) | high;
  }
  if (far) {
    const f = d - MAX_NEAR;
    dst[op++] = 255;
    dst[op++] = f >>> 8;
    dst[op++] = f & 255;
  } else {
    dst[op++] = d & 255;
  }
  return op;
}
