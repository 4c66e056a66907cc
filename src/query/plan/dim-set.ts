// The indices selected along one dimension, as sorted disjoint arithmetic runs. Runs keep the
// common cases (a range, a strided range) O(1) in size however long the dimension is; only a
// stepped whereIndex over an already-fragmented set is walked index by index.
import { checkedAt } from '../../engine/indexing.ts';

/** Indices start, start+step, ..., count of them; step >= 1. */
export interface IndexRun {
  readonly start: number;
  readonly step: number;
  readonly count: number;
}

export type DimSet = readonly IndexRun[];

export function fullSet(length: number): DimSet {
  return length > 0 ? [{ start: 0, step: 1, count: length }] : [];
}

export function setCount(set: DimSet): number {
  let n = 0;
  for (const r of set) n += r.count;
  return n;
}

function last(r: IndexRun): number {
  return r.start + (r.count - 1) * r.step;
}

/** The indices of `set` inside [lo, hi). */
export function clipSet(set: DimSet, lo: number, hi: number): DimSet {
  const out: IndexRun[] = [];
  for (const r of set) {
    const i0 = Math.max(0, Math.ceil((lo - r.start) / r.step));
    const i1 = Math.min(r.count - 1, Math.floor((hi - 1 - r.start) / r.step));
    if (i1 >= i0) out.push({ start: r.start + i0 * r.step, step: r.step, count: i1 - i0 + 1 });
  }
  return out;
}

function contains(set: DimSet, index: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = checkedAt(set, mid, 'INVALID_SELECTION', 'index run out of range'); // lo <= mid <= hi < set.length
    if (index < r.start) hi = mid - 1;
    else if (index > last(r)) lo = mid + 1;
    else return (index - r.start) % r.step === 0;
  }
  return false;
}

/** The indices of `set` that are also in `indices` (any order, duplicates ignored). */
export function keepIndices(set: DimSet, indices: Iterable<number>): DimSet {
  const kept = [...new Set(indices)].filter((i) => contains(set, i)).sort((a, b) => a - b);
  return compressIndices(kept);
}

/** The indices of `set` of the form start + k*step below stop. */
export function keepProgression(set: DimSet, start: number, stop: number, step: number): DimSet {
  const clipped = clipSet(set, start, stop);
  if (step === 1) return clipped;
  const out: IndexRun[] = [];
  for (const r of clipped) {
    if (r.step === 1) {
      // First index >= r.start congruent to start (mod step), then every step-th.
      const first = r.start + ((((start - r.start) % step) + step) % step);
      if (first <= last(r)) out.push({ start: first, step, count: Math.floor((last(r) - first) / step) + 1 });
      continue;
    }
    const hits: number[] = [];
    for (let i = 0; i < r.count; i++) {
      const x = r.start + i * r.step;
      if ((x - start) % step === 0) hits.push(x);
    }
    out.push(...compressIndices(hits));
  }
  return out;
}

/** Every `step`-th selected index, counting positions across runs from the first. */
export function strideSet(set: DimSet, step: number): DimSet {
  const out: IndexRun[] = [];
  let position = 0;
  for (const r of set) {
    const skip = (step - (position % step)) % step;
    if (skip < r.count) out.push({ start: r.start + skip * r.step, step: r.step * step, count: Math.floor((r.count - 1 - skip) / step) + 1 });
    position += r.count;
  }
  return mergeRuns(out);
}

/** The first `n` selected indices. */
export function limitSet(set: DimSet, n: number): DimSet {
  const out: IndexRun[] = [];
  let left = n;
  for (const r of set) {
    if (left <= 0) break;
    out.push(r.count <= left ? r : { ...r, count: left });
    left -= r.count;
  }
  return out;
}

/** Sorted unique indices as the fewest greedy arithmetic runs. */
export function compressIndices(sorted: readonly number[]): DimSet {
  // Greedy: a run takes the next index as its second (which fixes its step), then every index
  // that continues the step; the first index that does not starts the next run.
  const out: IndexRun[] = [];
  let run: IndexRun | undefined;
  for (const x of sorted) {
    if (run === undefined) run = { start: x, step: 1, count: 1 };
    else if (run.count === 1) run = { start: run.start, step: x - run.start, count: 2 };
    else if (x - last(run) === run.step) run = { ...run, count: run.count + 1 };
    else {
      out.push(run);
      run = { start: x, step: 1, count: 1 };
    }
  }
  if (run !== undefined) out.push(run);
  return out;
}

/** Joins neighbouring runs that continue one another (a stride can make them line up). */
function mergeRuns(runs: readonly IndexRun[]): DimSet {
  const out: IndexRun[] = [];
  for (const r of runs) {
    const prev = out[out.length - 1];
    if (prev) {
      const gap = r.start - last(prev);
      const step = prev.count > 1 ? prev.step : r.count > 1 ? r.step : gap;
      if (gap === step && (prev.count === 1 || prev.step === step) && (r.count === 1 || r.step === step)) {
        out[out.length - 1] = { start: prev.start, step, count: prev.count + r.count };
        continue;
      }
    }
    out.push(r);
  }
  return out;
}

/** Expands a set to its indices; tests and small explain listings only. */
export function setIndices(set: DimSet): number[] {
  const out: number[] = [];
  for (const r of set) for (let i = 0; i < r.count; i++) out.push(r.start + i * r.step);
  return out;
}

/**
 * Indices in both sets. Two single runs (positional selections) meet in one run found by
 * arithmetic, however long they are; otherwise the smaller set is materialised, and one of the
 * two came from a label lookup, so it is never longer than a coordinate array.
 */
export function intersectSets(a: DimSet, b: DimSet): DimSet {
  const rb = singleRun(b);
  if (rb && rb.step === 1) return clipSet(a, rb.start, rb.start + rb.count);
  const ra = singleRun(a);
  if (ra && ra.step === 1) return clipSet(b, ra.start, ra.start + ra.count);
  if (ra && rb) return intersectRuns(ra, rb);
  return setCount(b) <= setCount(a) ? keepIndices(a, setIndices(b)) : keepIndices(b, setIndices(a));
}

/**
 * The common indices of two runs: x = a.start (mod a.step) and x = b.start (mod b.step), solved
 * by the Chinese remainder theorem in BigInt (the combined step can pass 2^53), then clipped to
 * both runs' bounds. A result inside a dimension is a safe integer again.
 */
function intersectRuns(a: IndexRun, b: IndexRun): DimSet {
  const [p, q] = [BigInt(a.step), BigInt(b.step)];
  const g = gcdBig(p, q);
  const diff = BigInt(b.start - a.start);
  if (diff % g !== 0n) return [];
  const m = q / g;
  // k with p*k = diff (mod q): k = (diff/g) * inverse(p/g) mod m.
  const k = (((diff / g) * inverseMod(p / g, m)) % m + m) % m;
  const stepBig = p * m;
  const lo = BigInt(Math.max(a.start, b.start));
  const hi = BigInt(Math.min(last(a), last(b)));
  let first = BigInt(a.start) + p * k;
  if (first < lo) first += ((lo - first + stepBig - 1n) / stepBig) * stepBig;
  if (first > hi) return [];
  const count = Number((hi - first) / stepBig) + 1;
  return [{ start: Number(first), step: count === 1 ? 1 : Number(stepBig), count }];
}

function gcdBig(x: bigint, y: bigint): bigint {
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** x^-1 mod m for coprime x and m (extended Euclid); 0 when m is 1. */
function inverseMod(x: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [x % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const t = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - t * r1, s1, s0 - t * s1];
  }
  return ((s0 % m) + m) % m;
}

/** The set's only run, or undefined when it has none or several. */
function singleRun(set: DimSet): IndexRun | undefined {
  const [only, ...rest] = set;
  return rest.length === 0 ? only : undefined;
}
