// The HTTP Range header (RFC 9110 §14) for one range of bytes. Several ranges, other units or bad
// syntax are ignored (the whole object is sent, which the RFC allows); a range that starts past
// the end is unsatisfiable (416).
export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; offset: number; length: number } | { kind: 'unsatisfiable' };

export function resolveRange(header: string | undefined, size: number): RangeAnswer {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  // Both groups always take part in a match (each may be empty).
  const [, first, last] = match ?? [];
  if (first === undefined || last === undefined || (first === '' && last === '')) return { kind: 'whole' };
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
