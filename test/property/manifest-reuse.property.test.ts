// Issue 18 part 3, as a property: random writes and deletes over a split 2-D array across several
// commits. After each commit the values read back equal a plain model, the array has one manifest
// per region holding chunks (by the model), and the manifests the commit wrote are exactly one per
// region it touched that still holds chunks; every other manifest is the previous one, as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { chunkKey, compareManifests, createArray, manifestsOf, splitConfig, valuesOf, writeChunk } from '../support/split-array.ts';

const RUNS = Number(process.env.FLOE_REUSE_PROPERTY_RUNS ?? 100);
const ROWS = 6;
const COLS = 7;

type Op = { kind: 'write'; row: number; col: number; value: number } | { kind: 'delete'; row: number; col: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), row: fc.nat(ROWS - 1), col: fc.nat(COLS - 1), value: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ kind: fc.constant('delete' as const), row: fc.nat(ROWS - 1), col: fc.nat(COLS - 1) }),
);

const regionOf = (row: number, col: number, size: number) => `${Math.floor(row / size)},${Math.floor(col / size)}`;

describe('split manifest reuse, as a property (issue 18)', () => {
  it('read-back equals the model and each commit writes one manifest per touched region holding chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.array(opArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 5 }), async (size, commits) => {
        const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), splitConfig(size));
        const model = new Map<string, number>(); // "row,col" -> value of the chunks present
        const first = await repo.writableSession('main');
        await createArray(first.store, [ROWS, COLS]);
        await first.commit('empty array');
        let before = await manifestsOf(repo);
        for (const ops of commits) {
          const session = await repo.writableSession('main');
          const touched = new Set<string>();
          for (const op of ops) {
            touched.add(regionOf(op.row, op.col, size));
            if (op.kind === 'write') {
              await writeChunk(session.store, [op.row, op.col], op.value);
              model.set(`${op.row},${op.col}`, op.value);
            } else {
              await session.store.delete(chunkKey([op.row, op.col]));
              model.delete(`${op.row},${op.col}`);
            }
          }
          await session.commit('random changes');
          const after = await manifestsOf(repo);
          const held = new Set([...model.keys()].map((k) => {
            const [row = 0, col = 0] = k.split(',').map(Number);
            return regionOf(row, col, size);
          }));
          const { written, kept, keptUnchanged } = compareManifests(before, after);
          expect(after).toHaveLength(held.size);
          expect(written).toHaveLength([...touched].filter((r) => held.has(r)).length);
          expect(kept).toHaveLength([...held].filter((r) => !touched.has(r)).length);
          expect(keptUnchanged).toBe(true);
          const expected = Array.from({ length: ROWS * COLS }, (_, i) => model.get(`${Math.floor(i / COLS)},${i % COLS}`) ?? 0);
          expect(await valuesOf(repo)).toEqual(expected);
          before = after;
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
