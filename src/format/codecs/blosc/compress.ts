// Writes Blosc1 buffers that c-blosc 1.x reads. Streams our compressors cannot shrink are
// stored raw (csize = stream size), which the format allows; a buffer that would not shrink
// at all is written memcpyed, as c-blosc does.
import { compressStream, FORMAT_CODE, type BloscCname } from './block-codecs.ts';
import {
  FLAG_BITSHUFFLE, FLAG_DONT_SPLIT, FLAG_MEMCPYED, FLAG_SHUFFLE, HEADER_BYTES, MAX_SPLITS, MIN_BUFFERSIZE, streamsPerBlock,
} from './container.ts';
import { bitShuffle, byteShuffle } from './shuffle.ts';

export type BloscShuffle = 0 | 1 | 2; // noshuffle, byte shuffle, bit shuffle

export interface BloscOptions {
  cname: BloscCname;
  clevel: number;
  shuffle: BloscShuffle;
  typesize: number;
  /** 0 = chosen from clevel and cname. */
  blocksize: number;
}

const VERSION_FORMAT = 2;
const VERSION_LZ = 1; // every compressor's stream format version in c-blosc 1.x
const L1 = 32 * 1024;
const MAX_TYPESIZE = 255;

export function bloscCompress(src: Uint8Array, options: BloscOptions): Uint8Array {
  const nbytes = src.length;
  const typesize = options.typesize > MAX_TYPESIZE ? 1 : Math.max(1, options.typesize);
  const blocksize = chooseBlocksize(options, typesize, nbytes);
  const nblocks = nbytes === 0 ? 0 : Math.ceil(nbytes / blocksize);
  let flags = FORMAT_CODE[options.cname] << 5;
  if (options.shuffle === 1) flags |= FLAG_SHUFFLE;
  if (options.shuffle === 2) flags |= FLAG_BITSHUFFLE;

  const limit = nbytes + HEADER_BYTES;
  const out = new Uint8Array(limit);
  let written = -1;
  if (options.clevel > 0 && nbytes >= MIN_BUFFERSIZE) {
    const layout = flags | (splits(options.cname, typesize, blocksize) ? 0 : FLAG_DONT_SPLIT);
    written = compressBlocks(src, out, options, layout, typesize, blocksize, nblocks);
    if (written >= 0) flags = layout;
  }
  if (written < 0) {
    // A memcpyed buffer has no streams to split; its flag is c-blosc's, so the bytes are numcodecs'.
    flags |= FLAG_MEMCPYED | (cbloscSplits(options.cname, typesize, blocksize) ? 0 : FLAG_DONT_SPLIT);
    out.set(src, HEADER_BYTES);
    written = limit;
  }
  out[0] = VERSION_FORMAT;
  out[1] = VERSION_LZ;
  out[2] = flags;
  out[3] = typesize;
  const view = new DataView(out.buffer);
  view.setUint32(4, nbytes, true);
  view.setUint32(8, blocksize, true);
  view.setUint32(12, written, true);
  return out.subarray(0, written);
}

/** Returns the total size, or -1 when the result would not be smaller than the input. */
function compressBlocks(
  src: Uint8Array, out: Uint8Array, options: BloscOptions, flags: number, typesize: number, blocksize: number, nblocks: number,
): number {
  const view = new DataView(out.buffer);
  const filtered = new Uint8Array(blocksize);
  let op = HEADER_BYTES + 4 * nblocks;
  for (let b = 0; b < nblocks; b++) {
    view.setInt32(HEADER_BYTES + 4 * b, op, true);
    const block = src.subarray(b * blocksize, Math.min(src.length, (b + 1) * blocksize));
    let input = block;
    if (options.shuffle === 1 && typesize > 1) {
      input = filtered.subarray(0, block.length);
      byteShuffle(block, input, typesize);
    } else if (options.shuffle === 2) {
      input = filtered.subarray(0, block.length);
      bitShuffle(block, input, typesize);
    }
    const streams = streamsPerBlock(flags, typesize, blocksize, block.length < blocksize);
    const streamSize = block.length / streams;
    for (let s = 0; s < streams; s++) {
      if (op + 4 + streamSize > out.length) return -1;
      const stream = input.subarray(s * streamSize, (s + 1) * streamSize);
      // Compressed output must stay strictly smaller than the stream, else it reads as raw.
      const room = out.subarray(op + 4, op + 4 + streamSize - 1);
      let csize = streamSize > 1 ? compressStream(options.cname, options.clevel, stream, room) : 0;
      if (csize <= 0 || csize >= streamSize) {
        out.set(stream, op + 4);
        csize = streamSize;
      }
      view.setInt32(op, csize, true);
      op += 4 + csize;
    }
  }
  return op;
}

/**
 * When Floe splits a block into one stream per byte of the type: for the fast LZ codecs only
 * (c-blosc's BLOSC_AUTO_SPLIT). Splitting lz4 too, as c-blosc's default does, measured 47% slower
 * to encode and 18% slower to decode here (32 MiB of float32, lz4, shuffle: 68 vs 129 MB/s and
 * 128 vs 157 MB/s), for a better ratio (1.42 vs 1.28); either layout reads everywhere.
 */
function splits(cname: BloscCname, typesize: number, blocksize: number): boolean {
  return (cname === 'blosclz' || cname === 'snappy') && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE;
}

/** c-blosc 1.x's default rule (BLOSC_FORWARD_COMPAT_SPLIT, what numcodecs writes with): all codecs but zstd. */
function cbloscSplits(cname: BloscCname, typesize: number, blocksize: number): boolean {
  return cname !== 'zstd' && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE;
}

/** Same shape as c-blosc's compute_blocksize: L1-sized, larger for high levels and HCR codecs. */
function chooseBlocksize(options: BloscOptions, typesize: number, nbytes: number): number {
  if (nbytes < typesize) return Math.max(1, nbytes);
  let size = nbytes;
  if (options.blocksize > 0) {
    size = Math.max(options.blocksize, MIN_BUFFERSIZE);
  } else if (nbytes >= L1) {
    size = L1;
    if (options.cname === 'lz4hc' || options.cname === 'zlib' || options.cname === 'zstd') size *= 2;
    const c = options.clevel;
    size = c === 0 ? size / 4 : c <= 3 ? size / 2 : c <= 5 ? size : c <= 6 ? size * 2 : c < 9 ? size * 4 : size * 16;
  }
  size = Math.min(size, nbytes);
  if (size > typesize) size = Math.floor(size / typesize) * typesize;
  return Math.max(1, size);
}
