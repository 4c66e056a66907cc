// GC's delete batching, its cap on deletes in flight, and a sweep budgeted by time. Batches are
// 1,000 keys in production; the internal `deleteBatchSize` option makes them small so a few
// dozen garbage objects give many batches.
import { describe, expect, it } from 'vitest';
import type { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { GcSummary } from '../../../src/txn/index.ts';
import type { FakeClock } from '../../../src/testing/fake-clock.ts';
import { expiredHistory, keysUnder, readValues } from './helpers.ts';

/** Six commits, the first five expired: their snapshots, logs, manifests and chunks are garbage. */
const garbageHistory = () => expiredHistory(5);
const ones = (v: number) => Array.from({ length: 8 }, () => v);

interface DeleteStats {
  calls: number;
  inFlight: number;
  maxInFlight: number;
  batchSizes: number[];
}

/** Counts delete requests and how many overlap; each one takes `holdMs` (a slow object store). */
function countDeletes(backend: MemoryStorage, holdMs: number): DeleteStats {
  const stats: DeleteStats = { calls: 0, inFlight: 0, maxInFlight: 0, batchSizes: [] };
  const inner = backend.delete.bind(backend);
  backend.delete = async (keys) => {
    stats.calls++;
    stats.batchSizes.push(keys.length);
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      await inner(keys);
    } finally {
      stats.inFlight--;
    }
  };
  return stats;
}

/** Every listed object costs `msPerObject` of the repository's (virtual) clock: a slow listing. */
function slowListing(backend: MemoryStorage, clock: FakeClock, msPerObject: number): void {
  const inner = backend.list.bind(backend);
  backend.list = async function* (prefix, options) {
    for await (const object of inner(prefix, options)) {
      clock.advance(msPerObject);
      yield object;
    }
  };
}

const totals = (summary: GcSummary) => Object.fromEntries(Object.entries(summary.deleted).map(([kind, t]) => [kind, t.objects]));
const sum = (summary: GcSummary) => Object.values(summary.deleted).reduce((n, t) => n + t.objects, 0);

describe('GC delete batches', () => {
  for (const maxConcurrentDeletes of [1, 2, 3]) {
    it(`keeps at most ${maxConcurrentDeletes} batch(es) of 3 keys in flight and deletes the same as one big batch`, async () => {
      const reference = await garbageHistory();
      const expected = await reference.repo.garbageCollect(new Date(reference.clock.nowMs()), { allowShortGrace: true });
      const { repo, backend, clock } = await garbageHistory();
      const stats = countDeletes(backend, 5);
      const summary = await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true, maxConcurrentDeletes, deleteBatchSize: 3 });
      expect(totals(summary)).toEqual(totals(expected));
      expect(sum(summary)).toBeGreaterThanOrEqual(20); // 5 commits x (snapshot, log, manifest, >= 1 chunk object)
      expect(stats.batchSizes.every((n) => n >= 1 && n <= 3)).toBe(true);
      expect(stats.batchSizes.reduce((a, b) => a + b, 0)).toBe(sum(summary));
      expect(stats.calls).toBeGreaterThan(maxConcurrentDeletes);
      // The cap holds and is reached: deletes are slow, so the sweep always has more ready.
      expect(stats.maxInFlight).toBe(maxConcurrentDeletes);
      expect(stats.inFlight).toBe(0); // run() returns only once every delete has settled
      expect(await readValues(repo, { branch: 'main' })).toEqual(ones(9));
      expect(await keysUnder(backend, 'snapshots/')).toHaveLength(2);
    });
  }

  it('a dry run sends no delete request', async () => {
    const { repo, backend, clock } = await garbageHistory();
    const stats = countDeletes(backend, 0);
    const summary = await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true, dryRun: true, deleteBatchSize: 2 });
    expect(summary.wouldDelete!.length).toBe(sum(summary));
    expect(stats.calls).toBe(0);
    await expect(repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true, deleteBatchSize: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('GC budgeted by time', () => {
  it('maxMs ends each step early; the cursor resumes, in another handle, to the same result', async () => {
    const reference = await garbageHistory();
    const expected = await reference.repo.garbageCollect(new Date(reference.clock.nowMs()), { allowShortGrace: true });
    const { repo, backend, clock } = await garbageHistory();
    const cutoff = new Date(clock.nowMs());
    slowListing(backend, clock, 10);
    let gc = await repo.garbageCollector(cutoff, { allowShortGrace: true, deleteBatchSize: 2 });
    let step = await gc.run({ maxMs: 25 }); // the third object takes the step to 30 ms
    const scannedPerStep = [step.summary.scanned];
    while (!step.done && scannedPerStep.length < 200) {
      // Each step resumes from the JSON cursor alone, as a new process would.
      gc = await repo.garbageCollector(new Date(0), { allowShortGrace: true, cursor: JSON.parse(JSON.stringify(step.cursor)), deleteBatchSize: 2 });
      const before = step.summary.scanned;
      step = await gc.run({ maxMs: 25 });
      scannedPerStep.push(step.summary.scanned - before);
    }
    expect(step.done).toBe(true);
    expect(scannedPerStep.length).toBeGreaterThan(5);
    // Every step but the last stopped on the budget, after exactly three objects.
    expect(scannedPerStep.slice(0, -1).every((n) => n === 3)).toBe(true);
    expect(scannedPerStep.at(-1)).toBeLessThanOrEqual(3);
    // (Each resume marks again and writes a gcRan entry, so more backups are scanned, none deleted.)
    expect(totals(step.summary)).toEqual(totals(expected));
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(9));
    expect(await keysUnder(backend, 'snapshots/')).toHaveLength(2);
  });
});
