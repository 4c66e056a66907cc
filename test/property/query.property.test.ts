// Random arrays, chunkings, shardings and predicates: a query's result equals the same selection
// computed by plain loops over an in-memory copy, and every object or byte range it fetched
// belongs to a chunk (inner chunk, for shards) that the selection touches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { query, ReadCaches } from '../../src/query/index.ts';
import { applyPreds, chunkShapeOf, dimArb, layoutArb, modelSelection, writeCase, type Dim } from '../query/query-model.ts';
import { countingStore, type CountedRequest } from '../query/support.ts';

describe('query properties', () => {
  it('equals the in-memory selection and fetches only touched chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(dimArb, { minLength: 1, maxLength: 3 }), layoutArb, fc.boolean(), async (dims, layout, cached) => {
        const { store, log, reset } = countingStore();
        const data = await writeCase(store, dims, layout);
        // With caches, chunks that fit are read unit by unit through the decoded-chunk cache.
        const caches = cached ? new ReadCaches() : undefined;
        const q = applyPreds(query(store, { coalesce: { gapBytes: 0, maxOverread: 0 }, caches }).from('/v', 'int32'), dims);
        reset();
        const result = await q.execute();
        const { picked, values } = modelSelection(dims, data);
        expect(result.shape).toEqual(picked.map((p) => p.length));
        expect(Array.from(result.data)).toEqual(values);
        expect(result.report.fetched.unplanned.requests).toBe(0);
        await checkFetches(store, [...log], dims, picked, chunkShapeOf(dims, layout.sharded), layout.sharded, layout.indexLocation);
        if (!caches) return;
        // Warm (encoded bytes cached, then decoded chunks): the same answer, no data bytes fetched
        // (absent chunks may be asked for again: absence is not cached until decoded as fill).
        for (const round of ['warm', 'hot']) {
          const warm = await q.execute();
          expect(Array.from(warm.data), round).toEqual(values);
          expect(warm.report.fetched.data.bytes + warm.report.fetched.unplanned.requests, round).toBe(0);
        }
      }),
      { numRuns: 150 },
    );
  });
});

type Store = ReturnType<typeof countingStore>['store'];

/** Every data request hits a touched chunk; for shards, only bytes of touched inner chunks (or the index). */
async function checkFetches(store: Store, log: CountedRequest[], dims: Dim[], picked: number[][], chunk: number[], sharded: boolean, indexLocation: 'start' | 'end'): Promise<void> {
  const touchedChunks = picked.map((p, d) => new Set(p.map((i) => Math.floor(i / chunk[d]!))));
  const touchedInner = picked.map((p, d) => new Set(p.map((i) => Math.floor(i / dims[d]!.inner))));
  const perShard = dims.map((d) => d.perShard);
  const nInner = perShard.reduce((a, b) => a * b, 1);
  const indexBytes = nInner * 16 + 4;
  for (const r of log.filter((x) => x.key.startsWith('v/c/'))) {
    const coords = r.key.slice('v/c/'.length).split('/').map(Number);
    expect(coords.every((c, d) => touchedChunks[d]!.has(c))).toBe(true);
    if (!sharded || r.range === undefined || 'suffixLength' in r.range) continue;
    if (indexLocation === 'start' && r.range.offset === 0 && r.range.length === indexBytes) continue;
    // Which inner chunk owns each byte of the range: the shard's index, decoded here by hand.
    const shard = (await store.get(r.key))!;
    const view = new DataView(shard.buffer, shard.byteOffset + (indexLocation === 'end' ? shard.length - indexBytes : 0), nInner * 16);
    const start = r.range.offset;
    const end = start + (r.range.length ?? 0);
    for (let i = 0; i < nInner; i++) {
      const off = view.getBigUint64(i * 16, true);
      if (off === 2n ** 64n - 1n) continue;
      const [o, l] = [Number(off), Number(view.getBigUint64(i * 16 + 8, true))];
      if (o + l <= start || o >= end) continue;
      const innerCoords = perShard.map((_, d) => Math.floor(i / perShard.slice(d + 1).reduce((a, b) => a * b, 1)) % perShard[d]!);
      expect(innerCoords.every((c, d) => touchedInner[d]!.has(coords[d]! * perShard[d]! + c))).toBe(true);
    }
  }
}
