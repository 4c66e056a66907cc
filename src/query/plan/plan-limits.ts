// Planner preflight, between resolve-dims and the chunk pass: counts what a query will touch from
// the array metadata and the index sets alone (chunks, boxes, result elements and bytes) by
// arithmetic over the selection x chunk grid, and refuses a query over its limits with
// LIMIT_EXCEEDED before anything is enumerated or allocated. Without it, a [1e5, 1e5] array of
// [1, 1] chunks or a 64-dimension array exhausts the heap in the chunk pass.
//
// Products are taken in doubles: below 2^53 they are exact, and a product past a limit (itself a
// safe integer) stays past it however it rounds; past Number.MAX_VALUE it is Infinity, still past.
import type { ZarrArray } from '../../engine/array.ts';
import { floeError, type LimitKind } from '../../errors.ts';
import { limitExceeded as formatLimitExceeded } from '../../format/limits.ts';
import { isVariableLength } from '../../format/zarr/data-types.ts';
import type { DimSet } from './dim-set.ts';

/** What one query may touch; see docs/query.md ("Limits"). Every field is optional. */
export interface QueryLimits {
  /** Chunks (inner chunks of sharded arrays) one query may touch, all arrays together; the boxes a selection splits into count against it too. Default 1,000,000. */
  readonly maxChunks?: number | undefined;
  /** Result size in memory, all arrays (variable-length elements count 16 bytes each). Default 4 GiB. */
  readonly maxResultBytes?: number | undefined;
  /** Labels of one coordinate array read to resolve labels. Default 10,000,000. */
  readonly maxCoordinateLabels?: number | undefined;
}

export const DEFAULT_QUERY_LIMITS = Object.freeze({
  maxChunks: 1_000_000,
  maxResultBytes: 2 ** 32,
  maxCoordinateLabels: 10_000_000,
});

export type ResolvedLimits = Readonly<Record<keyof QueryLimits, number>>;

/** Bytes a variable-length element is counted at: a reference and an empty value, at least. */
export const VARIABLE_LENGTH_ELEMENT_BYTES = 16;

/** One array of a query, counted before the chunk pass. */
export interface ArrayEstimate {
  readonly path: string;
  /** Result elements (exact). */
  readonly elements: number;
  /** Result bytes in memory (variable-length elements at {@link VARIABLE_LENGTH_ELEMENT_BYTES}). */
  readonly resultBytes: number;
  /** False for variable-length types, whose results are JS arrays (JSON only). */
  readonly fixedSize: boolean;
  /** Boxes the selection splits into (exact). */
  readonly boxes: number;
  /** Read units touched: chunks, or inner chunks of a sharded array (boxes may share one: an upper bound). */
  readonly units: number;
  /** Decoded bytes of one read unit. */
  readonly unitBytes: number;
  /** Shard index bytes read while planning (0 unless sharded; an upper bound). */
  readonly indexBytes: number;
  /** Bytes CF decoding holds beside the stored result (decoded values, dates): 0 unless the query decodes and the array changes. */
  readonly decodedBytes: number;
}

/** A query counted before the chunk pass: what the limits were checked against. */
export interface PlanEstimate {
  readonly arrays: readonly ArrayEstimate[];
  readonly units: number;
  readonly boxes: number;
  readonly resultBytes: number;
}

export function resolveLimits(limits: QueryLimits | undefined): ResolvedLimits {
  const out: Record<keyof QueryLimits, number> = { ...DEFAULT_QUERY_LIMITS };
  for (const name of Object.keys(out) as (keyof QueryLimits)[]) {
    const given = limits?.[name];
    if (given === undefined) continue;
    if (!Number.isSafeInteger(given) || given < 0) {
      throw floeError('INVALID_ARGUMENT', `query limit ${name} must be a whole number of at least 0, got ${String(given)}`);
    }
    out[name] = given;
  }
  return out;
}

/** Counts each array's selection on its chunk grid and refuses the query when over a limit. */
export function estimatePlan(arrays: readonly { readonly array: ZarrArray; readonly sets: readonly DimSet[]; readonly decodedElementBytes?: number }[], limits: ResolvedLimits): PlanEstimate {
  const estimates: ArrayEstimate[] = [];
  let units = 0;
  let boxes = 0;
  let resultBytes = 0;
  for (const { array, sets, decodedElementBytes } of arrays) {
    const e = estimateArray(array, sets, decodedElementBytes ?? 0);
    estimates.push(e);
    units += e.units;
    boxes += e.boxes;
    resultBytes += e.resultBytes;
    check('maxChunks', Math.max(units, boxes), limits);
    check('maxResultBytes', resultBytes, limits);
  }
  return { arrays: estimates, units, boxes, resultBytes };
}

function estimateArray(array: ZarrArray, sets: readonly DimSet[], decodedElementBytes: number): ArrayEstimate {
  const sharding = array.chain.sharding;
  const unitShape = sharding?.innerChunkShape ?? array.chunkShape;
  const dt = array.dataType;
  const fixedSize = !isVariableLength(dt);
  const elementBytes = fixedSize ? dt.lanes * dt.laneBytes : VARIABLE_LENGTH_ELEMENT_BYTES;
  const elements = productOver(sets, countSelected);
  const boxes = productOver(sets, (set) => set.length);
  const units = productOver(sets, (set, d) => chunksTouched(set, unitShape[d] ?? 1));
  const shards = sharding ? productOver(sets, (set, d) => chunksTouched(set, array.chunkShape[d] ?? 1)) : 0;
  return {
    path: array.path, elements, resultBytes: elements * elementBytes, fixedSize, boxes, units,
    unitBytes: unitShape.reduce((n, s) => n * s, 1) * elementBytes,
    indexBytes: sharding ? shards * sharding.indexByteLength : 0,
    decodedBytes: elements * decodedElementBytes,
  };
}

/** The product over dimensions of `count(set)`; 0 when a set is empty (never 0 x Infinity). */
function productOver(sets: readonly DimSet[], count: (set: DimSet, dim: number) => number): number {
  let n = 1;
  let d = 0;
  for (const set of sets) {
    if (set.length === 0) return 0;
    n *= count(set, d++);
  }
  return n;
}

function countSelected(set: DimSet): number {
  let n = 0;
  for (const r of set) n += r.count;
  return n;
}

/**
 * Chunks of size `chunk` a set's runs touch, summed over runs (each run is one box side). A run
 * whose step is at least the chunk size touches one chunk per index; a denser one touches every
 * chunk between its first and last index. Either way: the smaller of the two counts.
 */
function chunksTouched(set: DimSet, chunk: number): number {
  let n = 0;
  for (const r of set) {
    const span = Math.floor((r.start + (r.count - 1) * r.step) / chunk) - Math.floor(r.start / chunk) + 1;
    n += Math.min(r.count, span);
  }
  return n;
}

function check(option: keyof QueryLimits, requested: number, limits: ResolvedLimits): void {
  if (requested > limits[option]) throw limitExceeded(option, requested, limits[option]);
}

/** Each option's LIMIT_EXCEEDED kind and what it counts, for the message. */
const KINDS: Record<keyof QueryLimits | 'memoryBudgetBytes', { readonly kind: LimitKind; readonly what: string }> = {
  maxChunks: { kind: 'chunks', what: 'chunks (or boxes)' },
  maxResultBytes: { kind: 'result-bytes', what: 'result bytes' },
  maxCoordinateLabels: { kind: 'coordinate-labels', what: 'coordinate labels' },
  memoryBudgetBytes: { kind: 'memory-budget', what: 'bytes of memory' },
};

/** LIMIT_EXCEEDED for the limit `option` sets, saying what was asked for and how to narrow it. */
export function limitExceeded(option: keyof typeof KINDS, requested: number, max: number, where?: string) {
  const { kind, what } = KINDS[option];
  const amount = requested > Number.MAX_SAFE_INTEGER ? `more than ${Number.MAX_SAFE_INTEGER}` : String(requested);
  return formatLimitExceeded(kind, max, `the query needs ${amount} ${what}, over the ${option} limit of ${max}; narrow it with whereIndex(), limit() or stride(), or raise ${option}`, {
    where, actual: Math.min(requested, Number.MAX_VALUE),
  });
}
