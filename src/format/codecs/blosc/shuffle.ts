// The two Blosc filters, applied per block. Layouts follow c-blosc 1.x (Blosc1 format v2):
// - byte shuffle: byte j of element i moves to j * n + i (n = whole elements in the block);
//   trailing bytes of a partial element stay in place.
// - bit shuffle: only when n is a multiple of 8 (else the block is left as is); output row
//   (8 * j + b) holds bit b of byte j of every element, element e at bit e % 8 of byte e / 8.
//   Trailing bytes of a partial element stay in place.
// Strided reads go through a DataView, which checks its own range (a RangeError, never an
// undefined byte); every index below is < n * typesize <= src.length anyway.

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function byteShuffle(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  const n = Math.floor(src.length / typesize);
  let done = 0;
  if (typesize % 4 === 0) done = shuffleWords(viewOf(src), viewOf(dst), typesize, n);
  else if (typesize === 2) done = shufflePairs(viewOf(src), viewOf(dst), n);
  shuffleBytes(src, dst, typesize, n, done);
  copyTail(src, dst, n * typesize);
}

export function byteUnshuffle(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  const n = Math.floor(src.length / typesize);
  byteUnshuffleRange(viewOf(src), typesize, n, 0, n, viewOf(dst), 0);
  copyTail(src, dst, n * typesize);
}

/**
 * Elements [first, first + count) of a byte-shuffled block of `n` whole elements (`src`),
 * unshuffled into `dst` from byte `at` (count * typesize bytes): a block's rows written straight
 * into a result. DataViews, so one view over a whole result serves every row.
 */
export function byteUnshuffleRange(src: DataView, typesize: number, n: number, first: number, count: number, dst: DataView, at: number): void {
  const end = first + count;
  let done = first;
  if (typesize % 4 === 0) done = unshuffleWords(src, dst, typesize, n, first, end, at);
  else if (typesize === 2) done = unshufflePairs(src, dst, n, first, end, at);
  unshuffleBytes(src, dst, typesize, n, done, end, at + (done - first) * typesize);
}

// The fast paths move four elements per step with 32-bit loads and stores: four words, one from
// each of four rows (byte j of elements i..i+3), become the 4-byte column j..j+3 of those elements
// by a 4x4 byte transpose, and back (the transpose is its own inverse). Measured on the Blosc read
// path: byte-at-a-time unshuffling was half the decode time of a shuffled float32 chunk.

/** Byte shuffle of elements [0, n - n % 4) when typesize is a multiple of 4; returns the count done. */
function shuffleWords(from: DataView, to: DataView, typesize: number, n: number): number {
  const whole = n - (n % 4);
  for (let q = 0; q < typesize; q += 4) {
    const r0 = q * n;
    for (let i = 0; i < whole; i += 4) {
      const p = i * typesize + q;
      const a = from.getUint32(p, true);
      const b = from.getUint32(p + typesize, true);
      const c = from.getUint32(p + 2 * typesize, true);
      const d = from.getUint32(p + 3 * typesize, true);
      to.setUint32(r0 + i, (a & 0xff) | ((b & 0xff) << 8) | ((c & 0xff) << 16) | (d << 24), true);
      to.setUint32(r0 + n + i, ((a >>> 8) & 0xff) | (b & 0xff00) | ((c & 0xff00) << 8) | ((d & 0xff00) << 16), true);
      to.setUint32(r0 + 2 * n + i, ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | (c & 0xff0000) | ((d & 0xff0000) << 8), true);
      to.setUint32(r0 + 3 * n + i, (a >>> 24) | ((b >>> 16) & 0xff00) | ((c >>> 8) & 0xff0000) | (d & 0xff000000), true);
    }
  }
  return whole;
}

/** Elements [first, end) from `from`'s rows into `to` from its start; returns where it stopped. */
function unshuffleWords(from: DataView, to: DataView, typesize: number, n: number, first: number, end: number, at: number): number {
  const whole = end - ((end - first) % 4);
  for (let q = 0; q < typesize; q += 4) {
    const r0 = q * n;
    for (let i = first; i < whole; i += 4) {
      const a = from.getUint32(r0 + i, true);
      const b = from.getUint32(r0 + n + i, true);
      const c = from.getUint32(r0 + 2 * n + i, true);
      const d = from.getUint32(r0 + 3 * n + i, true);
      const p = at + (i - first) * typesize + q;
      to.setUint32(p, (a & 0xff) | ((b & 0xff) << 8) | ((c & 0xff) << 16) | (d << 24), true);
      to.setUint32(p + typesize, ((a >>> 8) & 0xff) | (b & 0xff00) | ((c & 0xff00) << 8) | ((d & 0xff00) << 16), true);
      to.setUint32(p + 2 * typesize, ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | (c & 0xff0000) | ((d & 0xff0000) << 8), true);
      to.setUint32(p + 3 * typesize, (a >>> 24) | ((b >>> 16) & 0xff00) | ((c >>> 8) & 0xff0000) | (d & 0xff000000), true);
    }
  }
  return whole;
}

/** Typesize 2: elements i..i+3 are two words; their low and high bytes are one word per row. */
function shufflePairs(from: DataView, to: DataView, n: number): number {
  const whole = n - (n % 4);
  for (let i = 0; i < whole; i += 4) {
    const lo = from.getUint32(2 * i, true);
    const hi = from.getUint32(2 * i + 4, true);
    to.setUint32(i, (lo & 0xff) | ((lo >>> 8) & 0xff00) | ((hi & 0xff) << 16) | ((hi & 0xff0000) << 8), true);
    to.setUint32(n + i, ((lo >>> 8) & 0xff) | ((lo >>> 16) & 0xff00) | ((hi & 0xff00) << 8) | (hi & 0xff000000), true);
  }
  return whole;
}

function unshufflePairs(from: DataView, to: DataView, n: number, first: number, end: number, at: number): number {
  const whole = end - ((end - first) % 4);
  for (let i = first; i < whole; i += 4) {
    const a = from.getUint32(i, true);
    const b = from.getUint32(n + i, true);
    const p = at + 2 * (i - first);
    to.setUint32(p, (a & 0xff) | ((b & 0xff) << 8) | ((a & 0xff00) << 8) | ((b & 0xff00) << 16), true);
    to.setUint32(p + 4, ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | ((a >>> 8) & 0xff0000) | (b & 0xff000000), true);
  }
  return whole;
}

/** Elements [start, n) one byte at a time: other typesizes, and what the word paths leave. */
function shuffleBytes(src: Uint8Array, dst: Uint8Array, typesize: number, n: number, start: number): void {
  const from = viewOf(src);
  for (let j = 0; j < typesize; j++) {
    const row = j * n;
    for (let i = start, k = start * typesize + j; i < n; i++, k += typesize) dst[row + i] = from.getUint8(k);
  }
}

/** Elements [start, end), written from byte `at` of `to`, a byte at a time. */
function unshuffleBytes(from: DataView, to: DataView, typesize: number, n: number, start: number, end: number, at: number): void {
  for (let j = 0; j < typesize; j++) {
    const row = j * n;
    for (let i = start, k = at + j; i < end; i++, k += typesize) to.setUint8(k, from.getUint8(row + i));
  }
}

export function bitShuffle(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  const n = Math.floor(src.length / typesize);
  if (n % 8 !== 0) {
    dst.set(src);
    return;
  }
  const rowBytes = n / 8;
  const from = viewOf(src);
  for (let r = 0; r < rowBytes; r++) {
    const base = r * 8 * typesize;
    for (let j = 0; j < typesize; j++) {
      // Gather byte j of elements 8r..8r+7, transpose the 8x8 bit matrix, scatter into 8 rows.
      let [lo, hi] = gather8(from, base + j, typesize);
      [lo, hi] = transpose8x8(lo, hi);
      const out = j * 8 * rowBytes + r;
      dst[out] = lo & 255;
      dst[out + rowBytes] = (lo >>> 8) & 255;
      dst[out + 2 * rowBytes] = (lo >>> 16) & 255;
      dst[out + 3 * rowBytes] = lo >>> 24;
      dst[out + 4 * rowBytes] = hi & 255;
      dst[out + 5 * rowBytes] = (hi >>> 8) & 255;
      dst[out + 6 * rowBytes] = (hi >>> 16) & 255;
      dst[out + 7 * rowBytes] = hi >>> 24;
    }
  }
  copyTail(src, dst, n * typesize);
}

export function bitUnshuffle(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  const n = Math.floor(src.length / typesize);
  if (n % 8 !== 0) {
    dst.set(src);
    return;
  }
  const rowBytes = n / 8;
  const from = viewOf(src);
  for (let j = 0; j < typesize; j++) {
    const rows = j * 8 * rowBytes;
    for (let r = 0; r < rowBytes; r++) {
      let [lo, hi] = gather8(from, rows + r, rowBytes);
      [lo, hi] = transpose8x8(lo, hi);
      const p = r * 8 * typesize + j;
      dst[p] = lo & 255;
      dst[p + typesize] = (lo >>> 8) & 255;
      dst[p + 2 * typesize] = (lo >>> 16) & 255;
      dst[p + 3 * typesize] = lo >>> 24;
      dst[p + 4 * typesize] = hi & 255;
      dst[p + 5 * typesize] = (hi >>> 8) & 255;
      dst[p + 6 * typesize] = (hi >>> 16) & 255;
      dst[p + 7 * typesize] = hi >>> 24;
    }
  }
  copyTail(src, dst, n * typesize);
}

/** Bytes p, p + stride, ..., p + 7 * stride: the first four in `lo`, the rest in `hi` (little-endian). */
function gather8(view: DataView, p: number, stride: number): [number, number] {
  const lo =
    view.getUint8(p) | (view.getUint8(p + stride) << 8) | (view.getUint8(p + 2 * stride) << 16) | (view.getUint8(p + 3 * stride) << 24);
  const hi =
    view.getUint8(p + 4 * stride) |
    (view.getUint8(p + 5 * stride) << 8) |
    (view.getUint8(p + 6 * stride) << 16) |
    (view.getUint8(p + 7 * stride) << 24);
  return [lo, hi];
}

/**
 * Transposes an 8x8 bit matrix held as 8 bytes (row k = byte k, column c = bit c), bytes 0-3 in
 * `lo` and 4-7 in `hi`, by swapping off-diagonal 1x1, 2x2 then 4x4 blocks.
 */
function transpose8x8(lo: number, hi: number): [number, number] {
  let t = (lo ^ (lo >>> 7)) & 0x00aa00aa;
  lo = lo ^ t ^ (t << 7);
  t = (hi ^ (hi >>> 7)) & 0x00aa00aa;
  hi = hi ^ t ^ (t << 7);
  t = (lo ^ (lo >>> 14)) & 0x0000cccc;
  lo = lo ^ t ^ (t << 14);
  t = (hi ^ (hi >>> 14)) & 0x0000cccc;
  hi = hi ^ t ^ (t << 14);
  t = ((lo >>> 4) ^ hi) & 0x0f0f0f0f;
  hi ^= t;
  lo ^= t << 4;
  return [lo >>> 0, hi >>> 0];
}

function copyTail(src: Uint8Array, dst: Uint8Array, from: number): void {
  dst.set(src.subarray(from), from);
}
