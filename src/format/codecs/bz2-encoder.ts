// A plain bzip2 encoder (every bzip2 decoder reads its output): RLE1, Burrows-Wheeler transform
// by prefix doubling, move-to-front with RUNA/RUNB zero runs, and one Huffman table (written
// twice: the format needs at least two) for the whole block. Simpler than bzip2's multi-table
// refinement, so files come out a few percent larger; speed matters more for chunks.

import { floeError } from '../../errors.ts';

const BLOCK_MAGIC_HI = 0x314159;
const BLOCK_MAGIC_LO = 0x265359;
const END_MAGIC_HI = 0x177245;
const END_MAGIC_LO = 0x385090;
const GROUP_SIZE = 50;
const MAX_CODE_LENGTH = 17;

export function bz2Compress(input: Uint8Array, level: number): Uint8Array {
  const out = new BitWriter(input.length + 64);
  out.bits(8, 0x42).bits(8, 0x5a).bits(8, 0x68).bits(8, 0x30 + level);
  const blockMax = level * 100000 - 19;
  let combined = 0;
  let p = 0;
  while (p < input.length) {
    const { rle, consumed } = rle1(input, p, blockMax);
    const crc = blockCrc(input.subarray(p, p + consumed));
    combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
    writeBlock(out, rle, crc);
    p += consumed;
  }
  out.bits(24, END_MAGIC_HI).bits(24, END_MAGIC_LO).bits(32, combined);
  return out.finish();
}

/** Runs of 4-255 equal bytes become 4 bytes and a count; stops before `max` output bytes. */
function rle1(input: Uint8Array, start: number, max: number): { rle: Uint8Array; consumed: number } {
  const out = new Uint8Array(Math.min(max, Math.ceil(((input.length - start) * 5) / 4) + 4));
  let o = 0;
  let i = start;
  while (i < input.length && o + 5 <= max) {
    const b = u8(input, i); // start <= i < input.length
    let run = 1;
    while (run < 255 && i + run < input.length && input[i + run] === b) run++;
    if (run >= 4) {
      out[o] = out[o + 1] = out[o + 2] = out[o + 3] = b;
      out[o + 4] = run - 4;
      o += 5;
    } else {
      for (let k = 0; k < run; k++) out[o++] = b;
    }
    i += run;
  }
  return { rle: out.subarray(0, o), consumed: i - start };
}

function writeBlock(out: BitWriter, block: Uint8Array, crc: number): void {
  const { last, origPtr } = bwt(block);
  const inUse = new Uint8Array(256);
  for (let i = 0; i < block.length; i++) inUse[u8(block, i)] = 1;
  const { symbols, count, alphaSize } = mtfAndRuns(last, inUse);
  const lengths = codeLengths(symbols, count, alphaSize);
  const codes = canonicalCodes(lengths, alphaSize);

  out.bits(24, BLOCK_MAGIC_HI).bits(24, BLOCK_MAGIC_LO).bits(32, crc).bits(1, 0).bits(24, origPtr);
  let ranges = 0;
  for (let r = 0; r < 16; r++) for (let k = 0; k < 16; k++) if (inUse[r * 16 + k]) ranges |= 0x8000 >>> r;
  out.bits(16, ranges);
  for (let r = 0; r < 16; r++) {
    if (!(ranges & (0x8000 >>> r))) continue;
    let bits = 0;
    for (let k = 0; k < 16; k++) if (inUse[r * 16 + k]) bits |= 0x8000 >>> k;
    out.bits(16, bits);
  }
  const nSelectors = Math.ceil(count / GROUP_SIZE);
  out.bits(3, 2).bits(15, nSelectors);
  for (let s = 0; s < nSelectors; s++) out.bits(1, 0); // every group uses table 0
  for (let table = 0; table < 2; table++) {
    let current = u8(lengths, 0);
    out.bits(5, current);
    for (let s = 0; s < alphaSize; s++) {
      const length = u8(lengths, s);
      while (current < length) { out.bits(2, 2); current++; }
      while (current > length) { out.bits(2, 3); current--; }
      out.bits(1, 0);
    }
  }
  for (let i = 0; i < count; i++) {
    const symbol = u16(symbols, i);
    out.bits(u8(lengths, symbol), u32(codes, symbol));
  }
}

/** Sorts the cyclic rotations of `s` (prefix doubling with counting sorts). */
function bwt(s: Uint8Array): { last: Uint8Array; origPtr: number } {
  const n = s.length;
  let sa = new Int32Array(n);
  let tmp = new Int32Array(n);
  let rank = new Int32Array(n);
  let next = new Int32Array(n);
  const counts = new Int32Array(Math.max(n, 256) + 1);
  // Every index below is a byte (< 256 < counts.length), a rank (< classes <= counts.length - 1),
  // a position (< n) or a count (< n); i32/u8 check anyway, for free once optimized.
  for (let i = 0; i < n; i++) increment(counts, u8(s, i) + 1);
  for (let i = 1; i <= 256; i++) counts[i] = i32(counts, i) + i32(counts, i - 1);
  for (let i = 0; i < n; i++) sa[increment(counts, u8(s, i))] = i;
  rank.set(s);
  let classes = 256;
  for (let k = 1; k < n; k *= 2) {
    for (let j = 0; j < n; j++) tmp[j] = (i32(sa, j) - k + n) % n; // sorted by rank[i + k]
    counts.fill(0, 0, classes + 1);
    for (let j = 0; j < n; j++) increment(counts, i32(rank, i32(tmp, j)) + 1);
    for (let c = 1; c <= classes; c++) counts[c] = i32(counts, c) + i32(counts, c - 1);
    for (let j = 0; j < n; j++) {
      const t = i32(tmp, j);
      sa[increment(counts, i32(rank, t))] = t;
    }
    next[i32(sa, 0)] = 0;
    let r = 0;
    for (let j = 1; j < n; j++) {
      const a = i32(sa, j - 1);
      const b = i32(sa, j);
      if (rank[a] !== rank[b] || rank[(a + k) % n] !== rank[(b + k) % n]) r++;
      next[b] = r;
    }
    [rank, next] = [next, rank];
    classes = r + 1;
    if (classes === n) break;
  }
  const last = new Uint8Array(n);
  let origPtr = 0;
  for (let j = 0; j < n; j++) {
    const i = i32(sa, j);
    if (i === 0) origPtr = j;
    last[j] = u8(s, (i + n - 1) % n);
  }
  return { last, origPtr };
}

function mtfAndRuns(last: Uint8Array, inUse: Uint8Array): { symbols: Uint16Array; count: number; alphaSize: number } {
  const order = new Uint8Array(256);
  const seqOf = new Uint8Array(256);
  let nInUse = 0;
  for (let b = 0; b < 256; b++) if (inUse[b]) { seqOf[b] = nInUse; order[nInUse] = nInUse; nInUse++; }
  const symbols = new Uint16Array(last.length + 1);
  let count = 0;
  let zeros = 0;
  const flushZeros = (): void => {
    while (zeros > 0) {
      zeros--;
      symbols[count++] = zeros & 1; // RUNA 0, RUNB 1: bijective base 2
      zeros >>>= 1;
    }
  };
  for (let i = 0; i < last.length; i++) {
    const v = u8(seqOf, u8(last, i));
    let pos = 0;
    while (order[pos] !== v) pos++;
    if (pos === 0) { zeros++; continue; }
    flushZeros();
    order.copyWithin(1, 0, pos); // shift order[0, pos) up by one
    order[0] = v;
    symbols[count++] = pos + 1;
  }
  flushZeros();
  symbols[count++] = nInUse + 1; // end of block
  return { symbols, count, alphaSize: nInUse + 2 };
}

/** Huffman code lengths, frequencies flattened until no code exceeds 17 bits. */
function codeLengths(symbols: Uint16Array, count: number, alphaSize: number): Uint8Array {
  const freq = new Float64Array(alphaSize);
  for (let i = 0; i < count; i++) {
    const symbol = u16(symbols, i);
    const f = freq[symbol];
    if (f === undefined) throw outOfRange('symbol', symbol, alphaSize);
    freq[symbol] = f + 1;
  }
  for (;;) {
    const lengths = huffmanLengths(freq);
    if (lengths.every((l) => l <= MAX_CODE_LENGTH)) return lengths;
    freq.forEach((f, s) => (freq[s] = 1 + Math.floor(f / 2)));
  }
}

function huffmanLengths(freq: Float64Array): Uint8Array {
  const n = freq.length;
  // Nodes 0..n-1 are leaves; parents are appended. Unused symbols still get a code (weight 1).
  const weight: number[] = Array.from(freq, (f) => Math.max(f, 1));
  const parent: number[] = new Array(n).fill(-1);
  const live = Array.from({ length: n }, (_, i) => i);
  // Node ids come from `live` and `parent`, which only hold ids of nodes already created.
  const nodeWeight = (node: number): number => {
    const w = weight[node];
    if (w === undefined) throw outOfRange('node', node, weight.length);
    return w;
  };
  const parentOf = (node: number): number => {
    const p = parent[node];
    if (p === undefined) throw outOfRange('node', node, parent.length);
    return p;
  };
  while (live.length > 1) {
    live.sort((a, b) => nodeWeight(b) - nodeWeight(a));
    const a = live.pop();
    const b = live.pop();
    if (a === undefined || b === undefined) break; // not taken: live.length > 1
    const node = weight.length;
    weight.push(nodeWeight(a) + nodeWeight(b));
    parent.push(-1);
    parent[a] = node;
    parent[b] = node;
    live.push(node);
  }
  const lengths = new Uint8Array(n);
  for (let s = 0; s < n; s++) {
    let depth = 0;
    for (let p = parentOf(s); p !== -1; p = parentOf(p)) depth++;
    lengths[s] = Math.max(depth, 1);
  }
  return lengths;
}

function canonicalCodes(lengths: Uint8Array, alphaSize: number): Uint32Array {
  const codes = new Uint32Array(alphaSize);
  let code = 0;
  for (let len = 1; len <= MAX_CODE_LENGTH; len++) {
    for (let s = 0; s < alphaSize; s++) if (lengths[s] === len) codes[s] = code++;
    code <<= 1;
  }
  return codes;
}

const CRC_TABLE = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 24;
  for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  CRC_TABLE[i] = c >>> 0;
}

/** bzip2's CRC-32 (MSB-first, polynomial 0x04C11DB7) of the block's original bytes. */
function blockCrc(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = ((crc << 8) ^ u32(CRC_TABLE, ((crc >>> 24) ^ u8(data, i)) & 255)) >>> 0;
  return ~crc >>> 0;
}

// Checked reads for the arrays above, one per element type so each stays monomorphic (and
// inlines, the undefined test then folding away). Their indices are in range by construction
// (see each caller); a miss would be an encoder bug, reported rather than read as 0.
function u8(a: Uint8Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outOfRange('byte', i, a.length);
  return v;
}

function u16(a: Uint16Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outOfRange('uint16', i, a.length);
  return v;
}

function i32(a: Int32Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outOfRange('int32', i, a.length);
  return v;
}

function u32(a: Uint32Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outOfRange('uint32', i, a.length);
  return v;
}

/** a[i]++, returning the value before the increment. */
function increment(a: Int32Array, i: number): number {
  const v = i32(a, i);
  a[i] = v + 1;
  return v;
}

function outOfRange(what: string, i: number, length: number): Error {
  return floeError('INVALID_ARGUMENT', `bz2 encoder: ${what} index ${i} outside 0..${length - 1}`);
}

class BitWriter {
  private buf: Uint8Array;
  private pos = 0;
  private acc = 0;
  private nacc = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  bits(n: number, value: number): this {
    for (let left = n; left > 0; ) {
      const take = Math.min(left, 8);
      left -= take;
      this.acc = (this.acc << take) | ((value >>> left) & ((1 << take) - 1));
      this.nacc += take;
      while (this.nacc >= 8) {
        if (this.pos === this.buf.length) this.grow();
        this.nacc -= 8;
        this.buf[this.pos++] = (this.acc >>> this.nacc) & 255;
      }
      this.acc &= (1 << this.nacc) - 1;
    }
    return this;
  }
  finish(): Uint8Array {
    if (this.nacc > 0) this.bits(8 - this.nacc, 0);
    return this.buf.subarray(0, this.pos);
  }
  private grow(): void {
    const bigger = new Uint8Array(this.buf.length * 2);
    bigger.set(this.buf);
    this.buf = bigger;
  }
}
