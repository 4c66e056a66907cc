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
