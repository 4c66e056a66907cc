// Shared by the query planner (fetch-pass.ts) and the range batching of remote storages.
// Merges byte ranges of one object into fewer requests. Two ranges merge when the gap between
// them is at most `gapBytes` AND the merged request stays within `maxOverread` of the bytes
// actually wanted, so coalescing trades a few wasted bytes for fewer round trips but never
// more than that fraction (bytes fetched / bytes wanted <= 1 + maxOverread per object).

/**
 * How a query merges nearby byte ranges of one object into fewer requests, bounding the bytes
 * fetched but not wanted.
 */
export interface CoalesceOptions {
  /** Largest gap (bytes) bridged between two wanted ranges. Default 64 KiB; 0 merges only touching ranges. */
  gapBytes?: number;
  /** Most unwanted bytes a merged request may carry, as a fraction of its wanted bytes. Default 0.05. */
  maxOverread?: number;
  /** Longest merged request in bytes (ranges longer than this alone stay whole). Default: no bound. */
  maxSpanBytes?: number;
}

export interface ByteRangeWant {
  readonly offset: number;
  readonly length: number;
}

export interface CoalescedRange {
  readonly offset: number;
  readonly length: number;
  /** The wanted ranges inside, in offset order. */
  readonly pieces: readonly ByteRangeWant[];
  readonly wantedBytes: number;
}

export const DEFAULT_GAP_BYTES = 64 * 1024;
export const DEFAULT_MAX_OVERREAD = 0.05;

export function coalesceRanges(wants: readonly ByteRangeWant[], options: CoalesceOptions = {}): CoalescedRange[] {
  const gapBytes = options.gapBytes ?? DEFAULT_GAP_BYTES;
  const maxOverread = options.maxOverread ?? DEFAULT_MAX_OVERREAD;
  const maxSpan = options.maxSpanBytes ?? Number.POSITIVE_INFINITY;
  const sorted = uniqueSorted(wants);
  const out: CoalescedRange[] = [];
  let cur: { offset: number; end: number; pieces: ByteRangeWant[]; wanted: number } | undefined;
  for (const w of sorted) {
    const end = w.offset + w.length;
    if (cur) {
      const gap = Math.max(0, w.offset - cur.end);
      const waste = cur.end - cur.offset - cur.wanted + gap;
      const wanted = cur.wanted + Math.max(0, end - Math.max(cur.end, w.offset));
      if (gap <= gapBytes && waste <= maxOverread * wanted && Math.max(cur.end, end) - cur.offset <= maxSpan) {
        cur.end = Math.max(cur.end, end);
        cur.wanted = wanted;
        cur.pieces.push(w);
        continue;
      }
      out.push(finish(cur));
    }
    cur = { offset: w.offset, end, pieces: [w], wanted: w.length };
  }
  if (cur) out.push(finish(cur));
  return out;
}

function finish(c: { offset: number; end: number; pieces: ByteRangeWant[]; wanted: number }): CoalescedRange {
  return { offset: c.offset, length: c.end - c.offset, pieces: c.pieces, wantedBytes: c.wanted };
}

function uniqueSorted(wants: readonly ByteRangeWant[]): ByteRangeWant[] {
  const seen = new Set<string>();
  const out: ByteRangeWant[] = [];
  for (const w of [...wants].sort((a, b) => a.offset - b.offset || a.length - b.length)) {
    const k = `${w.offset}+${w.length}`;
    if (w.length > 0 && !seen.has(k)) (seen.add(k), out.push(w));
  }
  return out;
}
