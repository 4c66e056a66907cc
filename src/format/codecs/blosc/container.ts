// The Blosc1 container (c-blosc 1.x, format version 2). Header, 16 bytes:
//   0 version (2)  1 versionlz  2 flags  3 typesize  4 nbytes u32le  8 blocksize u32le
//   12 cbytes u32le (whole buffer incl. header)
// flags: 0x01 byte shuffle, 0x02 memcpyed (raw data follows the header), 0x04 bit shuffle,
// 0x10 streams not split, bits 5-7 compressor code. Then one i32le start offset per block,
// then per block one or `typesize` streams (split when allowed), each i32le csize + bytes;
// csize equal to the stream's decoded size means the stream is stored raw.
import { corrupt, decodedTooLarge } from '../bytes-codec-support.ts';
import { decompressStream, formatName } from './block-codecs.ts';
import type { DecodedRuns } from '../types.ts';
import { bitUnshuffle, byteUnshuffle, byteUnshuffleRange } from './shuffle.ts';

export const HEADER_BYTES = 16;
export const FLAG_SHUFFLE = 0x01;
export const FLAG_MEMCPYED = 0x02;
export const FLAG_BITSHUFFLE = 0x04;
export const FLAG_DONT_SPLIT = 0x10;
export const MAX_SPLITS = 16;
export const MIN_BUFFERSIZE = 128;

const NAME = 'blosc';

export interface BloscHeader {
  version: number;
  flags: number;
  typesize: number;
  nbytes: number;
  blocksize: number;
  cbytes: number;
}

export function readHeader(data: Uint8Array): BloscHeader {
  if (data.length < HEADER_BYTES) throw corrupt(NAME, `${data.length} bytes is shorter than the 16-byte header`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const header = {
    version: view.getUint8(0),
    flags: view.getUint8(2),
    typesize: view.getUint8(3),
    nbytes: view.getUint32(4, true),
    blocksize: view.getUint32(8, true),
    cbytes: view.getUint32(12, true),
  };
  if (header.version === 0 || header.version > 2) {
    throw corrupt(NAME, `header version ${header.version} is not a Blosc1 buffer (versions 1-2)`);
  }
  if (header.cbytes < HEADER_BYTES || header.cbytes > data.length) {
    throw corrupt(NAME, `header says ${header.cbytes} compressed bytes, the buffer has ${data.length}`);
  }
  if (header.nbytes > 0x7fffffff - HEADER_BYTES) throw corrupt(NAME, `decoded size ${header.nbytes} exceeds Blosc's limit`);
  return header;
}

/** Streams of a block are split per byte of the type (c-blosc's rule, incl. old buffers). */
export function streamsPerBlock(flags: number, typesize: number, blocksize: number, leftover: boolean): number {
  const split = (flags & FLAG_DONT_SPLIT) === 0 && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE;
  return split && !leftover ? typesize : 1;
}

/**
 * Decodes a Blosc1 buffer. Its header states the decoded size (nbytes), checked against maxBytes
 * before the output is allocated; every block then decodes into its own slice of that output.
 */
export function bloscDecompress(data: Uint8Array, maxBytes?: number): Uint8Array {
  const h = readHeader(data);
  if (maxBytes !== undefined && h.nbytes > maxBytes) throw decodedTooLarge(NAME, maxBytes, h.nbytes);
  const out = new Uint8Array(h.nbytes);
  decodeBlocks(data, h, out);
  return out;
}

/**
 * Decodes a Blosc1 buffer into the start of `out` (a reused buffer: no allocation, no page faults);
 * returns the decoded size, or -1 when it would not fit (the caller then uses bloscDecompress).
 */
export function bloscDecompressInto(data: Uint8Array, out: Uint8Array): number {
  const h = readHeader(data);
  if (h.nbytes > out.length) return -1;
  decodeBlocks(data, h, out.subarray(0, h.nbytes));
  return h.nbytes;
}

/** Shuffled blocks decode here first; grown to the largest block seen, kept for the next call. */
let blockScratch = new Uint8Array(0);

function scratchFor(size: number): Uint8Array {
  if (blockScratch.length < size) blockScratch = new Uint8Array(size);
  return blockScratch.subarray(0, size);
}

/** The parts of a buffer every block decode needs, checked once. */
interface BlockTable {
  readonly h: BloscHeader;
  readonly src: Uint8Array;
  readonly view: DataView;
  readonly code: number;
  readonly nblocks: number;
  readonly byteShuffled: boolean;
  readonly bitShuffled: boolean;
}

/** Checks a compressed (not memcpyed, non-empty) buffer's block table. */
function blockTable(data: Uint8Array, h: BloscHeader): BlockTable {
  if (h.blocksize === 0 || h.typesize === 0) throw corrupt(NAME, `blocksize ${h.blocksize} / typesize ${h.typesize} is zero`);
  const code = h.flags >>> 5;
  if (code > 4) throw corrupt(NAME, `${formatName(code)} in the header flags`);
  const nblocks = Math.ceil(h.nbytes / h.blocksize);
  if (HEADER_BYTES + 4 * nblocks > h.cbytes) throw corrupt(NAME, `${nblocks} block offsets do not fit in ${h.cbytes} bytes`);
  const src = data.subarray(0, h.cbytes);
  const byteShuffled = (h.flags & FLAG_SHUFFLE) !== 0 && h.typesize > 1;
  const bitShuffled = !byteShuffled && (h.flags & FLAG_BITSHUFFLE) !== 0;
  return { h, src, view: new DataView(src.buffer, src.byteOffset, src.byteLength), code, nblocks, byteShuffled, bitShuffled };
}

/** Fills `out` (exactly h.nbytes long) from the buffer's blocks. */
function decodeBlocks(data: Uint8Array, h: BloscHeader, out: Uint8Array): void {
  if (h.flags & FLAG_MEMCPYED) {
    if (HEADER_BYTES + h.nbytes > h.cbytes) throw corrupt(NAME, `raw buffer of ${h.nbytes} bytes is truncated`);
    out.set(data.subarray(HEADER_BYTES, HEADER_BYTES + h.nbytes));
    return;
  }
  if (h.nbytes === 0) return;
  const t = blockTable(data, h);
  const scratch = t.byteShuffled || t.bitShuffled ? scratchFor(Math.min(h.blocksize, h.nbytes)) : undefined;
  for (let b = 0; b < t.nblocks; b++) {
    const blockStart = b * h.blocksize;
    const size = Math.min(h.blocksize, h.nbytes - blockStart);
    const target = out.subarray(blockStart, blockStart + size);
    const decoded = scratch ? scratch.subarray(0, size) : target;
    decodeBlockStreams(t, b, decoded);
    if (!scratch) continue;
    if (t.byteShuffled) byteUnshuffle(decoded, target, h.typesize);
    else bitUnshuffle(decoded, target, h.typesize);
  }
}

/** Decodes block `b`'s streams into `decoded` (the block's size): its bytes as stored, still shuffled. */
function decodeBlockStreams(t: BlockTable, b: number, decoded: Uint8Array): void {
  const { h, src, view, code, nblocks } = t;
  const starts = HEADER_BYTES;
  const size = decoded.length;
  let ip = view.getInt32(starts + 4 * b, true);
  if (ip < starts + 4 * nblocks || ip >= h.cbytes) throw corrupt(NAME, `block ${b} starts at ${ip}, outside the buffer`);
  const streams = streamsPerBlock(h.flags, h.typesize, h.blocksize, size < h.blocksize);
  const streamSize = size / streams;
  for (let s = 0; s < streams; s++) {
    if (ip + 4 > h.cbytes) throw corrupt(NAME, `block ${b} stream ${s} header is truncated`);
    const csize = view.getInt32(ip, true);
    ip += 4;
    if (csize < 0 || ip + csize > h.cbytes) throw corrupt(NAME, `block ${b} stream ${s} claims ${csize} bytes past the end`);
    const piece = decoded.subarray(s * streamSize, (s + 1) * streamSize);
    const input = src.subarray(ip, ip + csize);
    if (csize === streamSize) {
      piece.set(input);
    } else {
      const produced = decompressStream(code, input, piece);
      if (produced !== streamSize) {
        throw corrupt(NAME, `block ${b} stream ${s} (${formatName(code)}) decoded to ${produced} bytes, expected ${streamSize}`);
      }
    }
    ip += csize;
  }
}

/**
 * Decodes a Blosc1 buffer straight into a result's rows (`runs`): each block that some run takes
 * decodes into a block-sized scratch (or straight into its row when it lies in one and needs no
 * unshuffle) and is unshuffled into the rows it covers; blocks outside the runs are skipped.
 * False, with nothing written, when the decoded size is not `runs.chunkBytes`.
 */
export function bloscDecompressIntoRuns(data: Uint8Array, runs: DecodedRuns): boolean {
  const h = readHeader(data);
  if (h.nbytes !== runs.chunkBytes || h.flags & FLAG_MEMCPYED || h.nbytes === 0) return false;
  const t = blockTable(data, h);
  const { fileOffset, rowBytes, views } = runs;
  const end = fileOffset + views.length * rowBytes;
  if (end > h.nbytes) return false;
  const ts = h.typesize;
  // Unshuffled straight into rows when rows and blocks hold whole elements; else via a second scratch.
  const fused = t.byteShuffled && h.blocksize % ts === 0 && rowBytes % ts === 0 && fileOffset % ts === 0;
  let out: DataView | undefined; // over the whole buffer the rows are in
  const firstBlock = Math.floor(fileOffset / h.blocksize);
  const lastBlock = Math.ceil(end / h.blocksize);
  for (let b = firstBlock; b < lastBlock; b++) {
    const blockStart = b * h.blocksize;
    const size = Math.min(h.blocksize, h.nbytes - blockStart);
    const lo = Math.max(blockStart, fileOffset);
    const hi = Math.min(blockStart + size, end);
    const row = Math.floor((lo - fileOffset) / rowBytes);
    const oneRow = row === Math.floor((hi - 1 - fileOffset) / rowBytes) && lo === blockStart && hi === blockStart + size;
    if (!t.byteShuffled && !t.bitShuffled && oneRow) {
      const at = blockStart - fileOffset - row * rowBytes;
      decodeBlockStreams(t, b, (views[row] ?? noRow(row)).subarray(at, at + size));
      continue;
    }
    const decoded = scratchFor(size);
    decodeBlockStreams(t, b, decoded);
    if (fused && size % ts === 0) {
      const shuffled = new DataView(decoded.buffer, decoded.byteOffset, size);
      forEachPiece(runs, blockStart, lo, hi, (from, to, into) => {
        if (out?.buffer !== into.buffer) out = new DataView(into.buffer); // once per result, not per row
        byteUnshuffleRange(shuffled, ts, size / ts, from / ts, (to - from) / ts, out, into.byteOffset - out.byteOffset);
      });
      continue;
    }
    let plain = decoded;
    if (t.byteShuffled || t.bitShuffled) {
      plain = plainScratchFor(size);
      if (t.byteShuffled) byteUnshuffle(decoded, plain, ts);
      else bitUnshuffle(decoded, plain, ts);
    }
    forEachPiece(runs, blockStart, lo, hi, (from, to, into) => into.set(plain.subarray(from, to)));
  }
  return true;
}

/**
 * Calls `write(from, to, into)` for each row piece of the chunk's bytes [lo, hi): [from, to) is
 * the piece relative to `blockStart`, `into` its place in the row's view (to - from bytes).
 */
function forEachPiece(runs: DecodedRuns, blockStart: number, lo: number, hi: number, write: (from: number, to: number, into: Uint8Array) => void): void {
  const { fileOffset, rowBytes, views } = runs;
  for (let at = lo; at < hi; ) {
    const row = Math.floor((at - fileOffset) / rowBytes);
    const rowStart = fileOffset + row * rowBytes;
    const stop = Math.min(hi, rowStart + rowBytes);
    const view = views[row] ?? noRow(row);
    write(at - blockStart, stop - blockStart, view.subarray(at - rowStart, stop - rowStart));
    at = stop;
  }
}

function noRow(row: number): never {
  throw corrupt(NAME, `row ${row} is outside the result's runs`);
}

/** Unshuffled blocks that do not go straight into rows; kept like blockScratch. */
let plainScratch = new Uint8Array(0);

function plainScratchFor(size: number): Uint8Array {
  if (plainScratch.length < size) plainScratch = new Uint8Array(size);
  return plainScratch.subarray(0, size);
}
