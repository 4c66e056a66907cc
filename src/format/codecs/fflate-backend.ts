// The pure-JS deflate backend (fflate) for runtimes without node:zlib. fflate's one-shot gunzip
// reads a single member and trusts its trailer; this one reads every member of the stream and
// checks each CRC32 and size, and checks zlib's Adler-32, so it refuses what node:zlib refuses.
import { Gunzip, gzipSync, Unzlib, unzlibSync, zlibSync } from 'fflate';
import { DecodedSizeLimitError, type DeflateBackend } from './deflate-types.ts';
import { corrupt } from './bytes-codec-support.ts';

const NAME = 'gzip';
const TRAILER = 8;
/** Header (10) + the smallest deflate stream (2) + trailer (8). */
const SMALLEST_MEMBER = 20;
type Level = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

export const fflateBackend: DeflateBackend = {
  name: 'fflate',
  // mtime 0: no timestamp, like node:zlib, so equal input gives equal bytes.
  gzip: (data, level) => gzipSync(data, { level: level as Level, mtime: 0 }),
  gunzip,
  zlib: (data, level) => zlibSync(data, { level: (level === -1 ? 6 : level) as Level }),
  unzip: (data, maxBytes) => (data[0] === 0x1f && data[1] === 0x8b ? gunzip(data, maxBytes) : unzlib(data, maxBytes)),
};

/** Deflate's best case: one 258-byte match per ~2 bits, so about 1032 output bytes per input byte. */
const MAX_RATIO = 1032;
/** Input slices stay at least this big (fflate copies its leftover input on every push). */
const MIN_SLICE = 1024;
const MAX_SLICE = 1 << 20;

/**
 * Feeds `data` to a streaming decoder and returns its output chunks. Without a limit the whole
 * input goes in one push (fflate's fastest path). With one, the input goes in slices sized so a
 * single push cannot inflate much past what the limit still allows (at most ~1 MiB beyond it, since
 * a slice is at least MIN_SLICE bytes), and decoding stops at the first push that passes the limit:
 * a bomb never gets to allocate its full output.
 */
function inflateChunks(stream: Gunzip | Unzlib, data: Uint8Array, maxBytes: number | undefined): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let produced = 0;
  stream.ondata = (chunk) => {
    parts.push(chunk);
    produced += chunk.length;
  };
  if (maxBytes === undefined) {
    stream.push(data, true);
    return parts;
  }
  let at = 0;
  do {
    const room = Math.ceil((maxBytes - produced + 1) / MAX_RATIO);
    const end = Math.min(data.length, at + Math.min(MAX_SLICE, Math.max(MIN_SLICE, room)));
    stream.push(data.subarray(at, end), end === data.length);
    at = end;
    if (produced > maxBytes) throw new DecodedSizeLimitError(maxBytes);
  } while (at < data.length);
  return parts;
}

function gunzip(data: Uint8Array, maxBytes?: number): Uint8Array {
  if (data.length < SMALLEST_MEMBER) throw corrupt(NAME, `${data.length} bytes cannot hold a gzip member`);
  const starts = [0];
  const stream = new Gunzip();
  stream.onmember = (offset) => starts.push(offset);
  const out = concat(inflateChunks(stream, data, maxBytes));
  checkMembers(data, starts, out);
  return out;
}

/** Each member's trailer ends where the next member starts (the last one at the end of the data). */
function checkMembers(data: Uint8Array, starts: readonly number[], out: Uint8Array): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let produced = 0;
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? data.length;
    if (end - start < SMALLEST_MEMBER) throw corrupt(NAME, `gzip member at byte ${start} is truncated`);
    const size = view.getUint32(end - 4, true);
    const member = out.subarray(produced, produced + size);
    if (member.length !== size) throw corrupt(NAME, `gzip member at byte ${start} decodes to fewer bytes than its trailer records`);
    if (crc32(member) !== view.getUint32(end - TRAILER, true)) throw corrupt(NAME, `gzip member at byte ${start} fails its CRC32 check`);
    produced += size;
  });
  if (produced !== out.length) throw corrupt(NAME, 'the gzip stream decodes to more bytes than its trailers record');
}

function unzlib(data: Uint8Array, maxBytes?: number): Uint8Array {
  // The one-shot decoder where there is no limit: it is what this backend always used there.
  const out = maxBytes === undefined ? unzlibSync(data) : concat(inflateChunks(new Unzlib(), data, maxBytes));
  const stored = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(data.length - 4, false);
  if (adler32(out) !== stored) throw corrupt('zlib', 'the zlib stream fails its Adler-32 check');
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// Entry b (4 bytes, little-endian) at byte 4 * b. Read through a DataView, which checks its
// range itself: an index is a byte, so 4 * b + 4 <= 1024 always.
const CRC_ENTRIES = new DataView(new ArrayBuffer(4 * 256));
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_ENTRIES.setUint32(4 * n, c >>> 0, true);
}

function bytesView(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/** CRC-32 (IEEE, as gzip uses); pure JS because this backend runs where native modules may not. */
export function crc32(data: Uint8Array): number {
  const bytes = bytesView(data);
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_ENTRIES.getUint32(((c ^ bytes.getUint8(i)) & 255) << 2, true) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(data: Uint8Array): number {
  const bytes = bytesView(data);
  let a = 1;
  let b = 0;
  // 5552 bytes is the longest run before b can overflow 2^32 (zlib's NMAX).
  for (let i = 0; i < data.length; i += 5552) {
    const end = Math.min(i + 5552, data.length);
    for (let j = i; j < end; j++) {
      a += bytes.getUint8(j);
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
