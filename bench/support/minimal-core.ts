// The "minimal reader" used as a ceiling by bench/zarr-read.ts: what a hand-written reader for
// exactly these 2-d float32 layouts does, with no generality. Synchronous file reads into one
// reused buffer, zstd-napi with one reused context decoding into one reused scratch buffer, then
// row copies into the caller's output. For the sharded layout it parses the shard index itself
// (bytes + crc32c, index at the end) and checks the checksum, as Floe does.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32c } from '@node-rs/crc32';
import binding from 'zstd-napi/binding.js';

export interface MinimalLayout {
  /** Directory of the array (holds zarr.json and c/). */
  root: string;
  shape: [number, number];
  /** Shape of one stored object (chunk, or shard when `innerShape` is set). */
  chunkShape: [number, number];
  /** Sharded layout: the inner chunk shape (index: bytes + crc32c, at the end). */
  innerShape?: [number, number];
  compressed: boolean;
}

/** Cut [r0, r1) x [c0, c1) of a chunk/shard, placed at (outRow, outCol) of an output of outCols columns. */
export interface Part {
  ci: number;
  cj: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  outRow: number;
  outCol: number;
}

const EMPTY = 2 ** 64;

export class MinimalCore {
  private readonly readBuf: Buffer;
  private readonly scratch: Buffer;
  private readonly scratchF32: Float32Array;
  private readonly dctx = new binding.DCtx();
  private readonly decodedShape: [number, number];
  private readonly nInner: number;
  private readonly indexBytes: number;

  constructor(readonly layout: MinimalLayout) {
    const [h, w] = layout.chunkShape;
    this.decodedShape = layout.innerShape ?? layout.chunkShape;
    const decodedBytes = this.decodedShape[0] * this.decodedShape[1] * 4;
    this.nInner = layout.innerShape ? (h / layout.innerShape[0]) * (w / layout.innerShape[1]) : 1;
    this.indexBytes = layout.innerShape ? this.nInner * 16 + 4 : 0;
    const objectBound = layout.innerShape
      ? this.nInner * binding.compressBound(decodedBytes) + this.indexBytes
      : binding.compressBound(h * w * 4);
    // Touched in advance (Buffer.alloc zero-fills): no page faults in the timed loops.
    this.readBuf = Buffer.alloc(objectBound);
    this.scratch = Buffer.alloc(decodedBytes);
    this.scratchF32 = new Float32Array(this.scratch.buffer, this.scratch.byteOffset, decodedBytes / 4);
  }

  private path(ci: number, cj: number): string {
    return `${this.layout.root}/c/${ci}/${cj}`;
  }

  /** Reads one part into `out` (row-major, `outCols` columns). */
  readPart(p: Part, out: Float32Array, outCols: number): void {
    const fd = openSync(this.path(p.ci, p.cj), 'r');
    try {
      if (this.layout.innerShape) this.readShardPart(fd, p, out, outCols);
      else this.readChunkPart(fd, p, out, outCols);
    } finally {
      closeSync(fd);
    }
  }

  private readChunkPart(fd: number, p: Part, out: Float32Array, outCols: number): void {
    const [h, w] = this.layout.chunkShape;
    if (!this.layout.compressed) {
      // Uncompressed: read only the rows the part needs, in one pread.
      const rowBytes = w * 4;
      const len = (p.r1 - p.r0) * rowBytes;
      readFully(fd, this.readBuf, len, p.r0 * rowBytes);
      const src = new Float32Array(this.readBuf.buffer, this.readBuf.byteOffset, len / 4);
      copyRows(src, w, 0, p.r1 - p.r0, p.c0, p.c1, out, outCols, p.outRow, p.outCol);
      return;
    }
    const size = fstatSync(fd).size;
    readFully(fd, this.readBuf, size, 0);
    this.decode(this.readBuf.subarray(0, size), h * w * 4);
    copyRows(this.scratchF32, w, p.r0, p.r1, p.c0, p.c1, out, outCols, p.outRow, p.outCol);
  }

  private readShardPart(fd: number, p: Part, out: Float32Array, outCols: number): void {
    const [h, w] = this.layout.chunkShape;
    const [ih, iw] = this.layout.innerShape!;
    const perRow = w / iw;
    const size = fstatSync(fd).size;
    const whole = p.r0 === 0 && p.r1 === h && p.c0 === 0 && p.c1 === w;
    // A whole shard: one read of the file. A part: the index, then only the inner chunks needed.
    let indexAt: number;
    if (whole) {
      readFully(fd, this.readBuf, size, 0);
      indexAt = size - this.indexBytes;
    } else {
      readFully(fd, this.readBuf, this.indexBytes, size - this.indexBytes);
      indexAt = 0;
    }
    const index = this.parseIndex(this.readBuf.subarray(indexAt, indexAt + this.indexBytes));
    // Copy the index out of readBuf: partial reads reuse the buffer for inner chunks.
    const offsets = new Float64Array(this.nInner);
    const lengths = new Float64Array(this.nInner);
    for (let i = 0; i < this.nInner; i++) {
      offsets[i] = Number(index[2 * i]!);
      lengths[i] = Number(index[2 * i + 1]!);
    }
    for (let a = Math.floor(p.r0 / ih); a * ih < p.r1; a++) {
      for (let b = Math.floor(p.c0 / iw); b * iw < p.c1; b++) {
        const i = a * perRow + b;
        const r0 = Math.max(p.r0, a * ih) - a * ih;
        const r1 = Math.min(p.r1, (a + 1) * ih) - a * ih;
        const c0 = Math.max(p.c0, b * iw) - b * iw;
        const c1 = Math.min(p.c1, (b + 1) * iw) - b * iw;
        const outRow = p.outRow + a * ih + r0 - p.r0;
        const outCol = p.outCol + b * iw + c0 - p.c0;
        if (offsets[i] === EMPTY) {
          fillRows(out, outCols, outRow, outCol, r1 - r0, c1 - c0);
          continue;
        }
        let bytes: Buffer;
        if (whole) {
          bytes = this.readBuf.subarray(offsets[i]!, offsets[i]! + lengths[i]!);
        } else {
          readFully(fd, this.readBuf, lengths[i]!, offsets[i]!);
          bytes = this.readBuf.subarray(0, lengths[i]!);
        }
        this.decode(bytes, ih * iw * 4);
        copyRows(this.scratchF32, iw, r0, r1, c0, c1, out, outCols, outRow, outCol);
      }
    }
  }

  private parseIndex(bytes: Buffer): BigUint64Array {
    const payload = bytes.subarray(0, bytes.length - 4);
    if ((crc32c(payload) >>> 0) !== bytes.readUInt32LE(bytes.length - 4)) throw new Error('shard index checksum mismatch');
    // readBuf's offset inside its ArrayBuffer may not be 8-aligned: copy the small index.
    const copy = new Uint8Array(payload);
    return new BigUint64Array(copy.buffer, 0, copy.length / 8);
  }

  private decode(src: Uint8Array, expected: number): void {
    if (!this.layout.compressed) {
      if (src.length !== expected) throw new Error(`chunk is ${src.length} bytes, expected ${expected}`);
      this.scratch.set(src);
      return;
    }
    const n = this.dctx.decompress(this.scratch, src);
    if (n !== expected) throw new Error(`decoded ${n} bytes, expected ${expected}`);
  }
}

function readFully(fd: number, buf: Buffer, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error('unexpected end of file');
    done += n;
  }
}

function copyRows(
  src: Float32Array, srcCols: number, r0: number, r1: number, c0: number, c1: number,
  out: Float32Array, outCols: number, outRow: number, outCol: number,
): void {
  const width = c1 - c0;
  for (let r = r0; r < r1; r++) {
    const s = r * srcCols + c0;
    out.set(src.subarray(s, s + width), (outRow + r - r0) * outCols + outCol);
  }
}

function fillRows(out: Float32Array, outCols: number, outRow: number, outCol: number, rows: number, cols: number): void {
  for (let r = 0; r < rows; r++) out.fill(0, (outRow + r) * outCols + outCol, (outRow + r) * outCols + outCol + cols);
}

/** The parts covering a window [r, r+h) x [c, c+w) of the array, placed at (0, 0) of a w-wide output. */
export function windowParts(layout: MinimalLayout, r: number, c: number, h: number, w: number): Part[] {
  const [ch, cw] = layout.chunkShape;
  const parts: Part[] = [];
  for (let ci = Math.floor(r / ch); ci * ch < r + h; ci++) {
    for (let cj = Math.floor(c / cw); cj * cw < c + w; cj++) {
      const r0 = Math.max(r, ci * ch);
      const r1 = Math.min(r + h, (ci + 1) * ch);
      const c0 = Math.max(c, cj * cw);
      const c1 = Math.min(c + w, (cj + 1) * cw);
      parts.push({ ci, cj, r0: r0 - ci * ch, r1: r1 - ci * ch, c0: c0 - cj * cw, c1: c1 - cj * cw, outRow: r0 - r, outCol: c0 - c });
    }
  }
  return parts;
}
