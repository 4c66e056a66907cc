// A greedy LZ77 match finder shared by the LZ4, BloscLZ and Snappy encoders: a hash table of
// 4-byte sequences, one candidate per slot. Each format only differs in how it writes the
// sequences, which it does through a `MatchSink`.

export interface MatchSink {
  /**
   * Literals `src[literalStart, matchStart)` then a match of `length` bytes at `distance`.
   * Returns false when the output is full (the block is then stored uncompressed).
   */
  sequence(literalStart: number, matchStart: number, length: number, distance: number): boolean;
}

export interface MatchLimits {
  /** Largest distance the format can encode. */
  maxDistance: number;
  /** Matches must start before this offset (format end-of-block rules). */
  lastMatchStart: number;
  /** Matches must end at or before this offset. */
  lastMatchEnd: number;
  /** 0 = try every position; k > 0 = skip faster through incompressible data. */
  skipShift: number;
}

const HASH_LOG = 14;
const table = new Int32Array(1 << HASH_LOG);

/** The table slot of a 4-byte sequence: the top HASH_LOG bits of its multiplicative hash. */
function slot(seq: number): number {
  return Math.imul(seq, 2654435761) >>> (32 - HASH_LOG); // < 2 ** HASH_LOG = table.length
}

/**
 * Finds matches in `src[start, end)` and feeds them to `sink`. Returns the offset where the
 * trailing literals begin, or -1 when the sink reported a full output.
 */
export function findMatches(src: Uint8Array, start: number, limits: MatchLimits, sink: MatchSink): number {
  table.fill(-1);
  let anchor = start;
  let ip = start;
  const { maxDistance, lastMatchStart, lastMatchEnd, skipShift } = limits;
  // Sequences are read through a DataView: ip < lastMatchStart <= src.length - 4, and the view
  // would throw rather than return undefined if that ever broke.
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  while (ip < lastMatchStart) {
    const seq = view.getInt32(ip, true);
    const h = slot(seq);
    const ref = table[h];
    table[h] = ip;
    // ref is never undefined (h = slot(...) < table.length); the test costs nothing measurable:
    // the optimizer knows an in-range Int32Array load is a number.
    if (ref === undefined || ref < start || ip - ref > maxDistance || view.getInt32(ref, true) !== seq) {
      ip += skipShift === 0 ? 1 : 1 + ((ip - anchor) >> skipShift);
      continue;
    }
    let matchStart = ip;
    let refStart = ref;
    while (matchStart > anchor && refStart > start && src[matchStart - 1] === src[refStart - 1]) {
      matchStart--;
      refStart--;
    }
    let end = ip + 4;
    let refEnd = ref + 4;
    while (end < lastMatchEnd && src[end] === src[refEnd]) {
      end++;
      refEnd++;
    }
    if (!sink.sequence(anchor, matchStart, end - matchStart, ip - ref)) return -1;
    ip = end;
    anchor = end;
    if (ip - 2 >= start && ip < lastMatchStart) {
      table[slot(view.getInt32(ip - 2, true))] = ip - 2;
    }
  }
  return anchor;
}
