// What an HTTP server answered to a ranged GET, checked before a byte of it is used. Servers
// differ: most send 206 with the range asked for, some (python's http.server, misconfigured
// proxies) ignore Range and send the whole object with 200, and a few send a range that is not
// the one asked for. Each answer is classified here, so the backend never returns wrong bytes.
import type { ByteRange } from './types.ts';

/** A `Content-Range` header: bytes `start`..`end` (inclusive) of an object of `total` bytes (null: unknown, `*`). */
export interface ContentRange {
  readonly start: number;
  readonly end: number;
  readonly total: number | null;
}

/** The `Range` header value for a range: `bytes=a-b`, `bytes=a-` or `bytes=-n`. Never for an empty range. */
export function rangeHeader(range: ByteRange): string {
  if ('suffixLength' in range) return `bytes=-${range.suffixLength}`;
  return range.length === undefined ? `bytes=${range.offset}-` : `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

const DIGITS = /^\d{1,16}$/;
const count = (text: string | undefined): number | undefined => {
  if (text === undefined || !DIGITS.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
};

/**
 * Parses `bytes 0-99/1234` (or `bytes 0-99/*`); `undefined` for anything else, a malformed or
 * inverted range included. `bytes * /1234` (the 416 form) is parsed by {@link unsatisfiedTotal}.
 */
export function parseContentRange(text: string | null): ContentRange | undefined {
  const match = text ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(text) : null;
  if (!match) return undefined;
  const start = count(match[1]);
  const end = count(match[2]);
  const total = match[3] === '*' ? null : count(match[3]);
  if (start === undefined || end === undefined || total === undefined || end < start) return undefined;
  if (total !== null && end >= total) return undefined;
  return { start, end, total };
}

/** The object size in a 416 answer's `Content-Range: bytes *\/N`; `undefined` when absent. */
export function unsatisfiedTotal(text: string | null): number | undefined {
  const match = text ? /^\s*bytes\s+\*\/(\d+)\s*$/i.exec(text) : null;
  return match ? count(match[1]) : undefined;
}

/** The half-open interval a range selects in an object of `total` bytes. */
export function expectedInterval(range: ByteRange, total: number): { start: number; end: number } {
  if ('suffixLength' in range) return { start: Math.max(0, total - range.suffixLength), end: total };
  const start = Math.min(range.offset, total);
  const end = range.length === undefined ? total : Math.min(total, range.offset + range.length);
  return { start, end: Math.max(start, end) };
}

/** Whether a 206 answer's Content-Range is exactly what `range` selects in the object it names. */
export function partialAnswerMatches(range: ByteRange, answered: ContentRange, bodyLength: number): boolean {
  if (bodyLength !== answered.end - answered.start + 1) return false;
  if (answered.total === null) {
    // Without a total, only a bounded offset range can be checked, and only fully inside the object.
    return !('suffixLength' in range) && range.length !== undefined && answered.start === range.offset && answered.end === range.offset + range.length - 1;
  }
  const { start, end } = expectedInterval(range, answered.total);
  return answered.start === start && answered.end + 1 === end;
}

/** The most bytes a ranged answer can need: the range's length, when it has one. */
export function rangeLengthBound(range: ByteRange): number | undefined {
  return 'suffixLength' in range ? range.suffixLength : range.length;
}

/** One part of a multipart/byteranges answer: bytes `start`..`end` (inclusive) of an object of `total`. */
export interface RangePart extends ContentRange {
  readonly bytes: Uint8Array;
}

const CRLF = [13, 10];
const MAX_PART_HEADER_BYTES = 4096;

/** The boundary of a `multipart/byteranges` Content-Type; undefined for any other type. */
export function byterangesBoundary(contentType: string | null): string | undefined {
  const match = contentType ? /^\s*multipart\/byteranges\s*;(?:.*;)?\s*boundary=("?)([^";]{1,70})\1\s*(?:;.*)?$/i.exec(contentType) : null;
  return match?.[2];
}

/**
 * The parts of a multipart/byteranges body (RFC 9110 §14.6): each part's Content-Range says how
 * many bytes it holds, and exactly that many are taken (the data may contain anything, the
 * boundary included). Undefined for a body that is not well formed; parts are not yet checked
 * against what was asked (see {@link rangesCovered}).
 */
export function parseByteranges(body: Uint8Array, boundary: string): RangePart[] | undefined {
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const parts: RangePart[] = [];
  let at = indexOf(body, delimiter, 0);
  if (at < 0) return undefined;
  for (;;) {
    at += delimiter.length;
    if (body[at] === 45 && body[at + 1] === 45) return parts; // the closing delimiter
    if (body[at] !== CRLF[0] || body[at + 1] !== CRLF[1]) return undefined;
    at += 2;
    const headersEnd = indexOf(body, Uint8Array.of(13, 10, 13, 10), at - 2);
    if (headersEnd < 0 || headersEnd - at > MAX_PART_HEADER_BYTES) return undefined;
    const headers = new TextDecoder().decode(body.subarray(at, headersEnd)).split('\r\n');
    const rangeLine = headers.find((line) => /^content-range\s*:/i.test(line));
    const range = parseContentRange(rangeLine?.slice(rangeLine.indexOf(':') + 1) ?? null);
    if (!range || range.total === null) return undefined;
    const start = headersEnd + 4;
    const end = start + (range.end - range.start + 1);
    if (end + 2 + delimiter.length > body.length) return undefined;
    parts.push({ ...range, bytes: body.subarray(start, end) });
    if (body[end] !== CRLF[0] || body[end + 1] !== CRLF[1] || !startsWithAt(body, delimiter, end + 2)) return undefined;
    at = end + 2;
  }
}

/**
 * Each wanted range's bytes from the parts of an answer, or undefined when a part disagrees on
 * the object's size or a wanted range is not inside one part (a server that answered only some).
 */
export function rangesCovered(wanted: readonly { offset: number; length: number }[], parts: readonly RangePart[]): Uint8Array[] | undefined {
  const total = parts[0]?.total;
  if (total === undefined || parts.some((p) => p.total !== total)) return undefined;
  const out: Uint8Array[] = [];
  for (const w of wanted) {
    const end = Math.min(w.offset + w.length, total ?? 0);
    const part = parts.find((p) => p.start <= w.offset && end <= p.end + 1);
    if (!part || w.offset >= end) return undefined;
    out.push(part.bytes.subarray(w.offset - part.start, end - part.start));
  }
  return out;
}

function startsWithAt(bytes: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  for (let i = Math.max(0, from); i + needle.length <= bytes.length; i++) if (startsWithAt(bytes, needle, i)) return i;
  return -1;
}
