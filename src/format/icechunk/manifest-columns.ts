// Decoded chunk refs held column-wise. A manifest can hold millions of refs; building an object,
// an index array and an id view per ref dominated decoding (2.9 s for 1M refs). Native refs are
// read straight from the flatbuffer into typed arrays; inline and virtual refs (rare) are kept
// as objects by position. `refs` objects are built only when a caller asks for the whole list;
// a lookup by index is a binary search over the columns that builds one ref.
import type { ChunkRef, NativeChunkRef } from './chunk-ref.ts';
import { floeError } from '../../errors.ts';
import type { ChunkId } from './ids.ts';

export interface RefColumns {
  count: number;
  /** Ref i's index is coords[coordStart[i] .. coordStart[i + 1]). */
  coordStart: Uint32Array;
  coords: Uint32Array;
  /** 12 bytes per ref; zero for refs held in `other`. */
  chunkIds: Uint8Array;
  offsets: Float64Array;
  lengths: Float64Array;
  /** Inline and virtual refs by position. */
  other: Map<number, ChunkRef>;
}

/** Grows the coordinate column as refs are appended (ndim is usually constant). */
export class RefColumnsBuilder {
  private coords: Uint32Array;
  private coordCount = 0;
  readonly coordStart: Uint32Array;
  readonly chunkIds: Uint8Array;
  readonly offsets: Float64Array;
  readonly lengths: Float64Array;
  readonly other = new Map<number, ChunkRef>();

  constructor(readonly count: number) {
    this.coordStart = new Uint32Array(count + 1);
    this.coords = new Uint32Array(Math.max(16, count * 2));
    this.chunkIds = new Uint8Array(count * 12);
    this.offsets = new Float64Array(count);
    this.lengths = new Float64Array(count);
  }

  /** Reserves room for `n` coordinates of ref `i` and returns where they go. */
  coordSlot(i: number, n: number): number {
    const at = this.coordCount;
    if (at + n > this.coords.length) {
      const grown = new Uint32Array(Math.max(this.coords.length * 2, at + n));
      grown.set(this.coords.subarray(0, at));
      this.coords = grown;
    }
    this.coordCount += n;
    this.coordStart[i + 1] = this.coordCount;
    return at;
  }

  get coordinates(): Uint32Array {
    return this.coords;
  }

  finish(): RefColumns {
    const { count, coordStart, chunkIds, offsets, lengths, other } = this;
    return { count, coordStart, coords: this.coords.subarray(0, this.coordCount), chunkIds, offsets, lengths, other };
  }
}

/** Builds ref `i` as an object. */
export function refAt(c: RefColumns, i: number): ChunkRef {
  const other = c.other.get(i);
  if (other) return other;
  const start = c.coordStart[i];
  const end = c.coordStart[i + 1];
  const offset = c.offsets[i];
  const length = c.lengths[i];
  // Callers pass i < count; every column covers count refs (coordStart one more).
  if (start === undefined || end === undefined || offset === undefined || length === undefined) throw missingEntry(c, i);
  const ref: NativeChunkRef = {
    kind: 'native',
    index: Array.from(c.coords.subarray(start, end)),
    // A view into the shared id column: one allocation instead of a copy per ref.
    chunkId: c.chunkIds.subarray(i * 12, i * 12 + 12) as ChunkId,
    offset,
    length,
  };
  return ref;
}

export function materializeRefs(c: RefColumns): ChunkRef[] {
  const out = new Array<ChunkRef>(c.count);
  for (let i = 0; i < c.count; i++) out[i] = refAt(c, i);
  return out;
}

/** Position of the ref with this index, or -1; refs are sorted by index. */
export function searchColumns(c: RefColumns, index: readonly number[]): number {
  let lo = 0;
  let hi = c.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = compareAt(c, mid, index);
    if (d === 0) return mid;
    if (d < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** compareSequences(ref i's index, index), without building the ref's index array. */
function compareAt(c: RefColumns, i: number, index: readonly number[]): number {
  const start = c.coordStart[i];
  const end = c.coordStart[i + 1];
  // Searches pass i < count, and coordStart holds count + 1 entries.
  if (start === undefined || end === undefined) throw missingEntry(c, i);
  const n = end - start;
  const m = Math.min(n, index.length);
  for (let k = 0; k < m; k++) {
    const a = c.coords[start + k];
    const b = index[k];
    // Ref i's coordinates end at coordStart[i + 1] <= coords.length, and k < index.length.
    if (a === undefined || b === undefined) throw missingEntry(c, i);
    const d = a - b;
    if (d !== 0) return d;
  }
  return n - index.length;
}

// Kept out of compareAt so that it stays small enough to inline into the search.
function missingEntry(c: RefColumns, i: number): Error {
  return floeError('INVALID_ARGUMENT', `chunk ref ${i} of ${c.count}: its columns have no entry for it`);
}
