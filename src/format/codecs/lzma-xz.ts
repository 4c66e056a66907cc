// The .xz container (tukaani xz file format 1.x) parsed here, so that every filter chain and
// check Python's lzma module writes is read: the native package only supplies the raw LZMA2
// decoder. Layout: stream header (magic, flags, CRC32) | blocks | index | stream footer,
// optionally more streams separated by zero padding. Each block: header (filters), LZMA2
// data, padding to 4 bytes, check (CRC32, CRC64 or SHA-256 of the decoded block).
import type * as NodeCrypto from 'node:crypto';
import { crc32, napiLzma } from './native-lzma.ts';
import { loadPackage } from '../../optional-dependency.ts';
import { floeError } from '../../errors.ts';
import { corrupt } from './bytes-codec-support.ts';
import { decodedAt } from './checked-index.ts';
import { DecodedSizeLimitError } from './decoded-size.ts';

const NAME = 'lzma';
const MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
export const FILTER_DELTA = 0x03;
export const FILTER_LZMA2 = 0x21;

export function isXz(data: Uint8Array): boolean {
  return MAGIC.every((b, i) => data[i] === b);
}

/**
 * Decodes every stream of an xz file. With maxBytes, each block's size is summed from its LZMA2
 * chunk headers before it is decoded (the native decoder produces exactly what they state), so
 * output past the limit is refused without being produced.
 */
export function decodeXz(data: Uint8Array, maxBytes?: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const budget = { left: maxBytes ?? Number.POSITIVE_INFINITY, maxBytes };
  let p = 0;
  while (p < data.length) {
    p = decodeStream(data, p, parts, budget);
    while (p < data.length && data[p] === 0) p++; // stream padding
  }
  return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts);
}

/** What a decode may still produce; `maxBytes` undefined means unbounded. */
interface Budget {
  left: number;
  readonly maxBytes: number | undefined;
}

function decodeStream(data: Uint8Array, start: number, parts: Uint8Array[], budget: Budget): number {
  if (start + 12 > data.length || !MAGIC.every((b, i) => data[start + i] === b)) throw corrupt(NAME, 'no xz stream header');
  if (data[start + 6] !== 0 || crc32(data.subarray(start + 6, start + 8)) >>> 0 !== u32(data, start + 8)) {
    throw corrupt(NAME, 'xz stream header flags are damaged');
  }
  const checkType = decodedAt(data, start + 7, NAME, 'xz stream header is truncated') & 15; // start + 12 <= length
  const checkSize = checkType === 0 ? 0 : 4 << Math.floor((checkType - 1) / 3);
  let p = start + 12;
  for (;;) {
    const sizeCode = data[p];
    if (sizeCode === undefined) throw corrupt(NAME, 'xz stream ends before its index');
    if (sizeCode === 0) return skipIndexAndFooter(data, p);
    const headerSize = (sizeCode + 1) * 4;
    if (p + headerSize > data.length) throw corrupt(NAME, 'xz block header is truncated');
    const header = data.subarray(p, p + headerSize);
    if (crc32(header.subarray(0, headerSize - 4)) >>> 0 !== u32(header, headerSize - 4)) throw corrupt(NAME, 'xz block header CRC32 mismatch');
    const filters = readFilters(header);
    p += headerSize;
    const { end: packedEnd, unpacked } = lzma2Extent(data, p);
    spend(budget, unpacked);
    const decoded = applyFilters(decodeLzma2(data.subarray(p, packedEnd), unpacked), filters);
    p = packedEnd;
    while ((p - start) % 4 !== 0) if (data[p++] !== 0) throw corrupt(NAME, 'xz block padding is not zero');
    if (p + checkSize > data.length) throw corrupt(NAME, 'xz block check is truncated');
    verifyCheck(checkType, decoded, data.subarray(p, p + checkSize));
    p += checkSize;
    parts.push(decoded);
  }
}

interface Filter { id: number; props: Uint8Array }

function readFilters(header: Uint8Array): Filter[] {
  const flags = decodedAt(header, 1, NAME, 'xz block header is truncated'); // headers are >= 4 bytes
  let p = 2;
  const read = (): number => {
    const [value, next] = readVarint(header, p);
    p = next;
    return value;
  };
  if (flags & 0x40) read(); // compressed size: recomputed from the LZMA2 chunks instead
  if (flags & 0x80) read(); // uncompressed size
  const filters: Filter[] = [];
  for (let i = 0; i <= (flags & 3); i++) {
    const id = read();
    const size = read();
    if (p + size > header.length - 4) throw corrupt(NAME, 'xz filter properties overrun the block header');
    filters.push({ id, props: header.subarray(p, p + size) });
    p += size;
  }
  return filters;
}

/** Undoes the non-LZMA2 filters of a chain (they run in reverse on decode). */
export function applyFilters(decoded: Uint8Array, filters: readonly Filter[]): Uint8Array {
  const last = filters[filters.length - 1];
  if (!last || last.id !== FILTER_LZMA2) throw corrupt(NAME, 'the xz filter chain does not end with LZMA2');
  for (const f of filters.slice(0, -1).reverse()) {
    if (f.id !== FILTER_DELTA) {
      throw floeError('UNSUPPORTED', `lzma: filter id ${f.id} (BCJ/branch filters) is not supported; recompress the data without it`);
    }
    undoDelta(decoded, decodedAt(f.props, 0, NAME, 'the xz delta filter has no distance property') + 1);
  }
  return decoded;
}

export function undoDelta(data: Uint8Array, distance: number): void {
  // Reads go through a DataView, which checks its own range; distance <= i < data.length.
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = distance; i < data.length; i++) data[i] = (view.getUint8(i) + view.getUint8(i - distance)) & 255;
}

/** Takes `bytes` from the budget, refusing (before decoding) what would pass the limit. */
function spend(budget: Budget, bytes: number): void {
  budget.left -= bytes;
  if (budget.left < 0 && budget.maxBytes !== undefined) throw new DecodedSizeLimitError(budget.maxBytes, budget.maxBytes - budget.left);
}

/** Decodes LZMA2 data whose chunk headers state `unpacked` bytes; anything else is corrupt. */
export function decodeLzma2(packed: Uint8Array, unpacked: number): Uint8Array {
  const decoded = napiLzma().lzma2.decompressSync(packed);
  if (decoded.length !== unpacked) throw corrupt(NAME, `LZMA2 data decoded to ${decoded.length} bytes, its chunk headers state ${unpacked}`);
  return decoded;
}

/**
 * Walks LZMA2 chunk headers from `p`: the byte after the end marker, and the decoded bytes the
 * chunks state (each chunk's header holds its unpacked size, so the total is known up front).
 */
export function lzma2Extent(data: Uint8Array, p: number): { end: number; unpacked: number } {
  let unpacked = 0;
  for (;;) {
    const control = data[p];
    if (control === undefined) throw corrupt(NAME, 'LZMA2 data has no end marker');
    if (control === 0) return { end: p + 1, unpacked };
    if (control === 1 || control === 2) {
      const size = u16be(data, p + 1) + 1;
      unpacked += size;
      p += 3 + size;
    } else if (control >= 0x80) {
      const headerBytes = control >= 0xc0 ? 6 : 5;
      if (p + headerBytes > data.length) throw corrupt(NAME, 'LZMA2 chunk header is truncated');
      unpacked += (control & 0x1f) * 65536 + u16be(data, p + 1) + 1;
      p += headerBytes + u16be(data, p + 3) + 1;
    } else {
      throw corrupt(NAME, `invalid LZMA2 control byte 0x${control.toString(16)}`);
    }
  }
}

function skipIndexAndFooter(data: Uint8Array, p: number): number {
  const indexStart = p;
  let [count, q] = readVarint(data, p + 1);
  for (let i = 0; i < count * 2; i++) q = readVarint(data, q)[1];
  while ((q - indexStart) % 4 !== 0) q++;
  q += 4; // index CRC32
  if (q + 12 > data.length || data[q + 10] !== 0x59 || data[q + 11] !== 0x5a) throw corrupt(NAME, 'xz stream footer is missing');
  return q + 12;
}

function verifyCheck(type: number, decoded: Uint8Array, stored: Uint8Array): void {
  let actual: Uint8Array | undefined;
  if (type === 1) {
    actual = new Uint8Array(4);
    new DataView(actual.buffer).setUint32(0, crc32(decoded) >>> 0, true);
  } else if (type === 4) actual = crc64(decoded);
  else if (type === 10) actual = loadPackage<typeof NodeCrypto>('node:crypto').createHash('sha256').update(decoded).digest();
  if (actual && !actual.every((b, i) => stored[i] === b)) {
    throw floeError('CHECKSUM_MISMATCH', 'lzma: an xz block check does not match its decoded data; the chunk is corrupted', {
      details: { codec: NAME, checkType: type },
    });
  }
}

// Entry n: low half at byte 8n, high half at 8n + 4 (little-endian). Read through a DataView,
// which checks its own range: an index is a byte, so 8n + 8 <= 2048 always.
const CRC64 = new DataView(new ArrayBuffer(8 * 256));
{
  // CRC-64/XZ (ECMA-182 reflected, poly 0xC96C5795D7870F42) as two 32-bit halves.
  for (let n = 0; n < 256; n++) {
    let lo = n;
    let hi = 0;
    for (let k = 0; k < 8; k++) {
      const carry = lo & 1;
      lo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
      hi = hi >>> 1;
      if (carry) {
        lo = (lo ^ 0xd7870f42) >>> 0;
        hi = (hi ^ 0xc96c5795) >>> 0;
      }
    }
    CRC64.setUint32(8 * n, lo, true);
    CRC64.setUint32(8 * n + 4, hi, true);
  }
}

function crc64(data: Uint8Array): Uint8Array {
  let lo = 0xffffffff;
  let hi = 0xffffffff;
  const bytes = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < data.length; i++) {
    const at = ((lo ^ bytes.getUint8(i)) & 255) << 3;
    lo = (((lo >>> 8) | (hi << 24)) ^ CRC64.getUint32(at, true)) >>> 0;
    hi = ((hi >>> 8) ^ CRC64.getUint32(at + 4, true)) >>> 0;
  }
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, ~lo >>> 0, true);
  view.setUint32(4, ~hi >>> 0, true);
  return out;
}

function readVarint(data: Uint8Array, p: number): [number, number] {
  let value = 0;
  for (let shift = 0; shift < 63; shift += 7) {
    const b = data[p++];
    if (b === undefined) throw corrupt(NAME, 'xz header integer is truncated');
    value += (b & 127) * 2 ** shift;
    if (b < 128) return [value, p];
  }
  throw corrupt(NAME, 'xz header integer is too long');
}

/** The u32le at p; CORRUPT_OBJECT when it runs past the end. */
function u32(data: Uint8Array, p: number): number {
  if (p < 0 || p + 4 > data.length) throw corrupt(NAME, 'an xz header field is truncated');
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(p, true);
}

/** The u16be at p (an LZMA2 chunk size); CORRUPT_OBJECT when it runs past the end. */
function u16be(data: Uint8Array, p: number): number {
  if (p < 0 || p + 2 > data.length) throw corrupt(NAME, 'LZMA2 chunk header is truncated');
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint16(p, false);
}
