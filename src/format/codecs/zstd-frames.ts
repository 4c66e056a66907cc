// zstd frame structure read in TypeScript (RFC 8878 §3.1), so both zstd backends walk frames
// identically: the total content size when every header states one, and where each frame ends.
// Also XXH64, which the WASM backend needs to write a frame's content checksum itself.

/** A malformed or unusable zstd input; `kind` picks the caller's error message. */
export class ZstdDataError extends Error {
  constructor(
    readonly kind: 'empty' | 'truncated' | 'corrupt',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ZstdDataError';
  }
}

const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

interface FrameInfo {
  /** Decompressed size from the header; null when the header leaves it out. */
  contentSize: number | null;
  /** Bytes the whole frame occupies, blocks and checksum included. */
  compressedSize: number;
  /** A skippable frame: user data that decodes to nothing. */
  skippable: boolean;
}

function truncated(): ZstdDataError {
  return new ZstdDataError('truncated', 'the last zstd frame is truncated');
}

function readLE(data: Uint8Array, at: number, bytes: number): number {
  let value = 0;
  for (let i = bytes - 1; i >= 0; i--) {
    const b = data[at + i];
    if (b === undefined) throw truncated(); // callers check first; a header field past the end
    value = value * 256 + b;
  }
  return value;
}

/** Reads the frame starting at data[0]: its header and, by walking block headers, its end. */
export function readFrame(data: Uint8Array): FrameInfo {
  if (data.length < 4) throw truncated();
  const magic = readLE(data, 0, 4);
  if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
    if (data.length < 8) throw truncated();
    const size = 8 + readLE(data, 4, 4);
    if (size > data.length) throw truncated();
    return { contentSize: 0, compressedSize: size, skippable: true };
  }
  if (magic !== FRAME_MAGIC) throw new ZstdDataError('corrupt', 'unknown zstd frame magic number');
  const descriptor = data[4];
  if (descriptor === undefined) throw truncated();
  if (descriptor & 0x08) throw new ZstdDataError('corrupt', 'a zstd frame header sets a reserved bit');
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const hasChecksum = (descriptor >> 2) & 1;
  const dictIdBytes = (descriptor & 3) === 3 ? 4 : descriptor & 3; // field codes 0-3: 0, 1, 2, 4 bytes
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  let at = 5 + (singleSegment ? 0 : 1) + dictIdBytes;
  if (at + fcsBytes > data.length) throw truncated();
  let contentSize: number | null = null;
  if (fcsBytes > 0) contentSize = readLE(data, at, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
  at += fcsBytes;
  for (;;) {
    if (at + 3 > data.length) throw truncated();
    const header = readLE(data, at, 3);
    const type = (header >> 1) & 3;
    if (type === 3) throw new ZstdDataError('corrupt', 'a zstd block has the reserved type');
    at += 3 + (type === 1 ? 1 : header >>> 3);
    if (at > data.length) throw truncated();
    if (header & 1) break;
  }
  at += hasChecksum ? 4 : 0;
  if (at > data.length) throw truncated();
  return { contentSize, compressedSize: at, skippable: false };
}

/** Total content size when every frame header states it, else null. */
export function knownContentSize(data: Uint8Array): number | null {
  let total = 0;
  let rest = data;
  while (rest.length > 0) {
    const frame = readFrame(rest);
    if (frame.contentSize === null) return null;
    total += frame.contentSize;
    rest = rest.subarray(frame.compressedSize);
  }
  return total;
}

const M64 = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;
const round = (acc: bigint, lane: bigint): bigint => (rotl((acc + lane * P2) & M64, 31n) * P1) & M64;
const merge = (acc: bigint, v: bigint): bigint => (((acc ^ round(0n, v)) * P1 + P4) & M64);

/** XXH64 with seed 0: a zstd frame's checksum is its low 32 bits, little-endian. */
export function xxh64(data: Uint8Array): bigint {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const n = data.length;
  let at = 0;
  let h: bigint;
  if (n >= 32) {
    let v1 = (P1 + P2) & M64;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (-P1) & M64;
    for (; at + 32 <= n; at += 32) {
      v1 = round(v1, view.getBigUint64(at, true));
      v2 = round(v2, view.getBigUint64(at + 8, true));
      v3 = round(v3, view.getBigUint64(at + 16, true));
      v4 = round(v4, view.getBigUint64(at + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M64;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h = (h + BigInt(n)) & M64;
  for (; at + 8 <= n; at += 8) h = ((rotl(h ^ round(0n, view.getBigUint64(at, true)), 27n) * P1) + P4) & M64;
  if (at + 4 <= n) {
    h = ((rotl(h ^ ((BigInt(view.getUint32(at, true)) * P1) & M64), 23n) * P2) + P3) & M64;
    at += 4;
  }
  for (; at < n; at++) h = (rotl(h ^ ((BigInt(view.getUint8(at)) * P5) & M64), 11n) * P1) & M64;
  h ^= h >> 33n;
  h = (h * P2) & M64;
  h ^= h >> 29n;
  h = (h * P3) & M64;
  return h ^ (h >> 32n);
}
