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
