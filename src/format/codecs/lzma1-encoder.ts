// A literal-only LZMA1 encoder for raw streams (no header; lc/lp/pb live in the filter spec), used
// where @napi-rs/lzma cannot help: it always writes lc=3, lp=0, pb=2. Every byte is coded as a
// literal, so the stream never refers back into the dictionary (any reader's dict_size works) and
// the state machine never leaves state 0 (no matched literals). The stream ends with the
// end-of-stream marker, as liblzma writes raw LZMA1 whose size it does not know.

import { floeError } from '../../errors.ts';

const PROB_BITS = 11;
const PROB_INIT = 1 << (PROB_BITS - 1);
const MOVE_BITS = 5;
const TOP = 2 ** 24;
const POS_STATES_MAX = 16; // 1 << 4, the largest pb
const LITERAL_CODER_SIZE = 0x300;
/** Pos slot 63 carries (63 >> 1) - 1 = 30 distance bits: 26 direct, then the 4 align bits. */
const END_DIRECT_BITS = 26;
const ALIGN_BITS = 4;

export interface Lzma1Props {
  readonly lc: number;
  readonly lp: number;
  readonly pb: number;
}

/** LZMA's binary range encoder: 32-bit range, `low` carried past 2^32 into the cached bytes. */
class RangeEncoder {
  private low = 0; // < 2^33, exact as a double
  private range = 0xffffffff;
  private cache = 0;
  private cacheSize = 1;
  private out: Uint8Array;
  private length = 0;

  constructor(expected: number) {
    this.out = new Uint8Array(Math.max(64, expected));
  }

  bit(probs: Uint16Array, index: number, bit: number): void {
    const prob = probs[index];
    // Inline, not argumentAt: this runs 9 times per byte and must stay monomorphic.
    if (prob === undefined) throw floeError('INVALID_ARGUMENT', `lzma1: probability slot ${index} of ${probs.length}; lc/lp/pb out of range`);
    const bound = (this.range >>> PROB_BITS) * prob;
    if (bit === 0) {
      this.range = bound;
      probs[index] = prob + (((1 << PROB_BITS) - prob) >>> MOVE_BITS);
    } else {
      this.low += bound;
      this.range -= bound;
      probs[index] = prob - (prob >>> MOVE_BITS);
    }
    this.normalize();
  }

  /** Bits at probability 1/2, most significant first. */
  direct(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) {
      this.range >>>= 1;
      if ((value >>> i) & 1) this.low += this.range;
      this.normalize();
    }
  }

  finish(): Uint8Array {
    for (let i = 0; i < 5; i++) this.shiftLow();
    return this.out.subarray(0, this.length);
  }

  private normalize(): void {
    while (this.range < TOP) {
      this.range = (this.range * 256) >>> 0;
      this.shiftLow();
    }
  }

  private shiftLow(): void {
    if (this.low < 0xff000000 || this.low >= 2 ** 32) {
      const carry = this.low >= 2 ** 32 ? 1 : 0;
      let pending = this.cache;
      do {
        this.push((pending + carry) & 0xff);
        pending = 0xff;
      } while (--this.cacheSize !== 0);
      this.cache = (this.low >>> 24) & 0xff;
    }
    this.cacheSize++;
    this.low = (this.low & 0xffffff) * 256;
  }

  private push(byte: number): void {
    if (this.length === this.out.length) {
      const grown = new Uint8Array(this.out.length * 2);
      grown.set(this.out);
      this.out = grown;
    }
    this.out[this.length++] = byte;
  }
}

/** Encodes `data` as a raw LZMA1 stream (literals, then the end marker) for the given properties. */
export function encodeLzma1Literals(data: Uint8Array, { lc, lp, pb }: Lzma1Props): Uint8Array {
  const rc = new RangeEncoder(data.length + (data.length >>> 4) + 16);
  const isMatch = new Uint16Array(POS_STATES_MAX).fill(PROB_INIT); // state 0 only
  const literal = new Uint16Array(LITERAL_CODER_SIZE << (lc + lp)).fill(PROB_INIT);
  const pbMask = (1 << pb) - 1;
  const lpMask = (1 << lp) - 1;
  let prev = 0;
  for (const [pos, byte] of data.entries()) {
    rc.bit(isMatch, pos & pbMask, 0);
    const base = LITERAL_CODER_SIZE * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
    for (let i = 7, symbol = 1; i >= 0; i--) {
      const bit = (byte >>> i) & 1;
      rc.bit(literal, base + symbol, bit);
      symbol = (symbol << 1) | bit;
    }
    prev = byte;
  }
  writeEndMarker(rc, isMatch, data.length & pbMask);
  return rc.finish();
}

/**
 * The marker is a match (isMatch 1, isRep 0) of length 2 (choice 0, low-tree value 0) whose
 * distance is 2^32 - 1: pos slot 63, then 26 direct bits and 4 align bits, all ones. Each of these
 * probabilities is used here for the first time, so each bit is coded at the initial 1/2.
 */
function writeEndMarker(rc: RangeEncoder, isMatch: Uint16Array, posState: number): void {
  const fresh = new Uint16Array(1);
  const freshBits = (bit: number, count: number) => {
    for (let i = 0; i < count; i++) rc.bit(fresh.fill(PROB_INIT), 0, bit);
  };
  rc.bit(isMatch, posState, 1);
  freshBits(0, 1 + 1 + 3); // isRep, length choice, 3-bit low length tree
  freshBits(1, 6); // pos slot 63
  rc.direct(2 ** END_DIRECT_BITS - 1, END_DIRECT_BITS);
  freshBits(1, ALIGN_BITS);
}
