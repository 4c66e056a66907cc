// Issue 17 stage 3: the planner counts chunks, boxes and result bytes by arithmetic before the
// chunk pass and refuses queries over its limits (LIMIT_EXCEEDED), so a metadata-only
// [1e5, 1e5] array of [1, 1] chunks or a 32-dimension array (MAX_RANK) cannot exhaust the heap; two long
// stepped positional selections intersect by arithmetic, not by listing indices.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { query, type QueryBuilder } from '../../src/query/builder.ts';
import { planQuery } from '../../src/query/plan/planner.ts';
import { resolveSource } from '../../src/query/source.ts';
import { intersectSets, setIndices, type IndexRun } from '../../src/query/plan/dim-set.ts';
import { limitExceeded, type PlanEstimate, type QueryLimits } from '../../src/query/plan/plan-limits.ts';
import { shardedCodecs } from './support.ts';

const SIDE = 100_000;

async function hostileStore() {
  const store = new StorageStore(new MemoryStorage());
  // Metadata only: no chunk is ever written.
  await ZarrArray.create(store, '/big', { shape: [SIDE, SIDE], chunkShape: [1, 1], dataType: 'uint8', dimensionNames: ['y', 'x'] });
  await ZarrArray.create(store, '/d32', { shape: Array(32).fill(2), chunkShape: Array(32).fill(1), dataType: 'uint8', dimensionNames: Array.from({ length: 32 }, (_, i) => `d${i}`) });
  await ZarrArray.create(store, '/long', { shape: [2 ** 50], chunkShape: [2 ** 20], dataType: 'uint8', dimensionNames: ['t'] });
  await ZarrArray.create(store, '/sharded', { shape: [40, 40], chunkShape: [20, 20], dataType: 'float32', dimensionNames: ['r', 'c'], codecs: shardedCodecs([2, 5]) });
  await ZarrArray.create(store, '/coord', { shape: [8, 2 ** 40], chunkShape: [8, 2 ** 20], dataType: 'uint8', dimensionNames: ['k', 'c2'] });
  await ZarrArray.create(store, '/c2', { shape: [2 ** 40], chunkShape: [2 ** 20], dataType: 'float64', dimensionNames: ['c2'] });
  return store;
}

/** Plans `q` as the query server does: with limits and an admission hook. */
async function planWith(store: StorageStore, q: QueryBuilder, limits: QueryLimits, admit: (e: PlanEstimate) => void) {
  const { plan } = await planQuery(resolveSource(store, undefined), q.toOperationNode(), { limits, admit });
  return plan;
}

async function refusal(run: () => Promise<unknown>): Promise<FloeError<'LIMIT_EXCEEDED'>> {
  const err = await run().then(() => undefined, (e: unknown) => e);
  if (!isFloeError(err, 'LIMIT_EXCEEDED')) throw new Error(`expected LIMIT_EXCEEDED, got ${String(err)}`);
  return err;
}

describe('plan limits', () => {
  it('refuses a [1e5, 1e5] grid of [1, 1] chunks from the metadata, quickly and without growing the heap', async () => {
    const store = await hostileStore();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const err = await refusal(() => query(store).from('/big').explain());
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 2 ** 20);
    expect(err.details).toEqual({ kind: 'chunks', limit: 1_000_000, actual: SIDE * SIDE });
    expect(err.message).toMatch(/10000000000 chunks .*maxChunks limit of 1000000/);
    await refusal(() => query(store).from('/big').execute());
  });

  it('refuses a 32-dimension query of 2^32 chunks, and plans a small slice of it', async () => {
    const store = await hostileStore();
    const err = await refusal(() => query(store).from('/d32').explain());
    expect(err.details).toEqual({ kind: 'chunks', limit: 1_000_000, actual: 2 ** 32 });
    // MAX_ELEMENTS keeps an array's counts below 2^53; a count past it would still be named so.
    const past = limitExceeded('maxChunks', 2 ** 64, 100);
    expect([past.message, past.details.actual]).toEqual([expect.stringContaining(`more than ${Number.MAX_SAFE_INTEGER}`), 2 ** 64]);
    let narrow = query(store).from('/d32');
    for (let d = 0; d < 28; d++) narrow = narrow.whereIndex(`d${d}`, 0, 1);
    const { plan } = await narrow.explain();
    expect(plan.arrays[0]!.resultBytes).toBe(16);
    expect(plan.arrays[0]!.chunks).toBe(16);
  });

  it('checks each limit and hands the counts to admit() before the chunk pass', async () => {
    const store = await hostileStore();
    const seen: PlanEstimate[] = [];
    const admit = (e: PlanEstimate) => void seen.push(e);
    const limits = { maxChunks: 100, maxResultBytes: 400 };
    const big = query(store).from('/big');
    const plan = await planWith(store, big.whereIndex('y', 0, 10).whereIndex('x', 0, 40, 4), limits, admit);
    expect(plan.arrays[0]!.chunks).toBe(100);
    expect(seen).toEqual([{ arrays: [expect.objectContaining({ elements: 100, resultBytes: 100, units: 100, boxes: 1, unitBytes: 1, fixedSize: true })], units: 100, boxes: 1, resultBytes: 100 }]);
    expect((await refusal(() => planWith(store, big.whereIndex('y', 0, 11).whereIndex('x', 0, 40, 4), limits, admit))).details).toMatchObject({ kind: 'chunks', actual: 110 });
    expect((await refusal(() => planWith(store, big.whereIndex('y', 0, 20).whereIndex('x', 0, 21), limits, admit))).details).toMatchObject({ kind: 'chunks', actual: 420 });
    const bytes = query(store, { limits: { maxResultBytes: 399 } }).from('/sharded').whereIndex('r', 0, 10).whereIndex('c', 0, 10);
    expect((await refusal(() => bytes.explain())).details).toEqual({ kind: 'result-bytes', limit: 399, actual: 400 });
    expect(seen).toHaveLength(1); // refused before admit
  });

  it('counts inner chunks of shards and the shard indexes planning reads', async () => {
    const store = await hostileStore();
    let estimate: PlanEstimate | undefined;
    const q = query(store).from('/sharded').whereIndex('r', 0, 21).whereIndex('c', 3, 7);
    const plan = await planWith(store, q, {}, (e) => void (estimate = e));
    // rows 0..20 touch inner rows 0..10 (11 of 2); columns 3..6 touch inner columns 0..1 (2 of 5).
    expect(estimate!.arrays[0]).toMatchObject({ units: 22, unitBytes: 40, elements: 84, resultBytes: 336, boxes: 1 });
    expect(estimate!.arrays[0]!.indexBytes).toBe(2 * plan.arrays[0]!.sharding!.indexBytes);
  });

  it('refuses an oversized coordinate before reading it', async () => {
    const store = await hostileStore();
    const err = await refusal(() => query(store).from('/coord').where('c2', '>', 5).explain());
    expect(err.details).toEqual({ kind: 'coordinate-labels', limit: 10_000_000, actual: 2 ** 40 });
    expect(err.message).toContain('/c2');
  });

  it('refuses limits that are not whole numbers', async () => {
    await expect(query(new StorageStore(new MemoryStorage()), { limits: { maxChunks: 1.5 } }).from('/a').explain()).rejects.toThrow(/maxChunks must be a whole number/);
  });

  it('intersects two stepped positional selections of a 2^50-long dimension by arithmetic', async () => {
    const store = await hostileStore();
    const started = performance.now();
    const M = 2 ** 20;
    const q = query(store).from('/long').whereIndex('t', 0, null, 6 * M).whereIndex('t', 4 * M, null, 10 * M);
    const { plan } = await q.limit('t', 3).explain();
    expect(performance.now() - started).toBeLessThan(1_000);
    // x = 0 (mod 6M) and x = 4M (mod 10M): 24M, then every 30M (the filter keeps ~3.6e7 of them).
    expect(plan.dims[0]!.lookups.map((l) => l.selected)).toEqual([Math.floor((2 ** 50 - 1) / (6 * M)) + 1, Math.floor((2 ** 50 - 1 - 24 * M) / (30 * M)) + 1, 3]);
    expect(plan.dims[0]!.set).toEqual([{ start: 24 * M, step: 30 * M, count: 3 }]);
    expect((await refusal(() => q.explain())).details.kind).toBe('chunks');
  });
});

describe('run intersection', () => {
  const run = fc.record({ start: fc.integer({ min: 0, max: 60 }), step: fc.integer({ min: 2, max: 12 }), count: fc.integer({ min: 2, max: 12 }) });
  it('equals intersecting the listed indices', () => {
    fc.assert(
      fc.property(run, run, (a: IndexRun, b: IndexRun) => {
        const inB = new Set(setIndices([b]));
        expect(setIndices(intersectSets([a], [b]))).toEqual(setIndices([a]).filter((i) => inB.has(i)));
      }),
      { numRuns: Number(process.env.FLOE_RUN_INTERSECTION_RUNS ?? 500), seed: 17 },
    );
  });
});
