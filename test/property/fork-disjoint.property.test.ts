// Session.mergeDisjoint (issue 32): forks that each write a random set of chunks (and sometimes an
// attribute, a zarr.json update) merge when the sets are disjoint, with every fork's chunks in the
// result; when two forks share a chunk or a zarr.json, the merge refuses with CONFLICT
// overlapping-forks naming two forks that really share it, and nothing is merged. A plain merge of
// the same forks keeps last-writer-wins.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { isFloeError } from '../../src/errors.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { readArray, setAttribute, writeChunk } from '../txn/conflict-fixtures.ts';

const CHUNKS = 8;

async function repository(): Promise<Repository> {
  const repo = await Repository.create(Storage.newInMemory());
  const s = await repo.writableSession('main');
  await ZarrArray.create(s.store, '/a', { shape: [CHUNKS * 4], chunkShape: [4], dataType: 'int32', fillValue: 0 });
  await s.commit('array');
  return repo;
}

const forkArb = fc.record({ chunks: fc.uniqueArray(fc.integer({ min: 0, max: CHUNKS - 1 }), { maxLength: 4 }), attribute: fc.boolean() });

describe('Session.mergeDisjoint', () => {
  it('merges disjoint forks whole and refuses overlapping ones, naming two that overlap', async () => {
    const repo = await repository();
    await fc.assert(
      fc.asyncProperty(fc.array(forkArb, { minLength: 1, maxLength: 4 }), async (plans) => {
        const session = await repo.writableSession('main');
        const forks = plans.map(() => session.fork());
        for (const [i, plan] of plans.entries()) {
          for (const c of plan.chunks) await writeChunk(forks[i]!.store, '/a', c, i + 1);
          if (plan.attribute) await setAttribute(forks[i]!.store, '/a', `fork ${i}`);
        }
        const owned = forks.map((fork, i) => ({ owner: `f${i}`, fork }));
        const shares = (i: number, j: number) => plans[i]!.chunks.some((c) => plans[j]!.chunks.includes(c)) || (plans[i]!.attribute && plans[j]!.attribute);
        const overlapping = plans.some((_, j) => plans.slice(0, j).some((__, i) => shares(i, j)));
        try {
          await session.mergeDisjoint(owned);
        } catch (err) {
          expect(overlapping).toBe(true);
          if (!isFloeError(err, 'CONFLICT') || err.details.kind !== 'overlapping-forks') throw err;
          const [a, b] = err.details.owners.map((o) => Number(o.slice(1)));
          expect(a).toBeLessThan(b!);
          const chunk = err.details.chunk;
          if (chunk === null) expect(plans[a!]!.attribute && plans[b!]!.attribute).toBe(true);
          else expect(plans[a!]!.chunks.includes(chunk[0]!) && plans[b!]!.chunks.includes(chunk[0]!)).toBe(true);
          expect(err.details.path).toBe('/a');
          expect(session.hasUncommittedChanges).toBe(false); // nothing merged
          // A plain merge of the same forks still lets the later one win.
          await session.merge(...forks);
          const expected = new Array<number>(CHUNKS).fill(0);
          plans.forEach((p, i) => p.chunks.forEach((c) => (expected[c] = i + 1)));
          expect((await readArray(session, '/a')).filter((_, k) => k % 4 === 0)).toEqual(expected);
          return;
        }
        expect(overlapping).toBe(false);
        const expected = new Array<number>(CHUNKS).fill(0);
        plans.forEach((p, i) => p.chunks.forEach((c) => (expected[c] = i + 1)));
        expect((await readArray(session, '/a')).filter((_, k) => k % 4 === 0)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
