// The HTTP Range header (RFC 9110 §14): one range of bytes, or several answered as
// multipart/byteranges (§14.6). Other units, bad syntax, more than MAX_RANGES ranges or ranges
// that overlap are ignored (the whole object is sent, which the RFC allows: no request can make
// the answer larger than the object plus the parts' headers); a range that starts past the end is
// unsatisfiable (416).
export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; offset: number; length: number } | { kind: 'unsatisfiable' };

export function resolveRange(header: string | undefined, size: number): RangeAnswer {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  return match ? resolveSpec(match[1] ?? '', match[2] ?? '', size) : { kind: 'whole' };
}

function resolveSpec(first: string, last: string, size: number): RangeAnswer {
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    const length = Math.min(suffix, size);
    return size === 0 ? { kind: 'unsatisfiable' } : { kind: 'partial', offset: size - length, length };
  }
  const start = Number(first);
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return { kind: 'whole' };
  return { kind: 'partial', offset: start, length: end - start + 1 };
}

/** What to answer a GET or HEAD of an object of `size` bytes: 416, or the status, interval and headers. */
export type RangedAnswer =
  | { readonly status: 416; readonly headers: Record<string, string> }
  | { readonly status: 200 | 206; readonly offset: number; readonly length: number; readonly headers: Record<string, string> };

export function rangedAnswer(header: string | undefined, size: number): RangedAnswer {
  const range = resolveRange(header, size);
  if (range.kind === 'unsatisfiable') return { status: 416, headers: { 'content-range': `bytes */${size}` } };
  if (range.kind === 'whole') return { status: 200, offset: 0, length: size, headers: { 'content-length': String(size) } };
  const { offset, length } = range;
  return { status: 206, offset, length, headers: { 'content-length': String(length), 'content-range': `bytes ${offset}-${offset + length - 1}/${size}` } };
}

/** Whether an If-None-Match header names `etag` (weak comparison, `*` included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

/** The most ranges one request may ask for (Floe's HttpStorage asks for at most 100). */
export const MAX_RANGES = 100;

/**
 * The intervals of a Range header naming several ranges, in the order asked, those past the end
 * left out; undefined when it names one range or is to be ignored (then {@link rangedAnswer}).
 */
export function resolveRanges(header: string | undefined, size: number): { offset: number; length: number }[] | 'unsatisfiable' | undefined {
  const specs = header?.trim().match(/^bytes=(.*)$/)?.[1]?.split(',');
  if (!specs || specs.length < 2 || specs.length > MAX_RANGES) return undefined;
  const out: { offset: number; length: number }[] = [];
  for (const spec of specs) {
    const match = /^\s*(\d*)-(\d*)\s*$/.exec(spec);
    if (!match) return undefined;
    const range = resolveSpec(match[1] ?? '', match[2] ?? '', size);
    if (range.kind === 'whole') return undefined;
    if (range.kind === 'partial') out.push({ offset: range.offset, length: range.length });
  }
  if (out.length === 0) return 'unsatisfiable';
  const sorted = [...out].sort((a, b) => a.offset - b.offset);
  if (sorted.some((r, i) => i > 0 && r.offset < sorted[i - 1]!.offset + sorted[i - 1]!.length)) return undefined;
  return out;
}

/**
 * A multipart/byteranges answer (RFC 9110 §14.6) of `ranges` of an object of `size` bytes: its
 * length, known before any byte is read, and its pieces once `read` gives each range's bytes.
 */
export function byteranges(ranges: readonly { offset: number; length: number }[], size: number, boundary: string) {
  const text = new TextEncoder();
  const heads = ranges.map(({ offset, length }) =>
    text.encode(`\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${offset}-${offset + length - 1}/${size}\r\n\r\n`),
  );
  const closing = text.encode(`\r\n--${boundary}--\r\n`);
  return {
    length: heads.reduce((n, head, i) => n + head.length + ranges[i]!.length, closing.length),
    pieces: (bodies: readonly Uint8Array[]): Uint8Array[] => [...heads.flatMap((head, i) => [head, bodies[i]!]), closing],
  };
}
