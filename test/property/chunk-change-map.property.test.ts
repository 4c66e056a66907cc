// ChunkChangeMap (src/txn/change-set.ts) against a plain Map as the model: the same operations on
// both, with parts as small as one entry so that every sequence crosses part boundaries the way
// 2^24 changes would. Size, lookups and iteration order (insertion order) must agree throughout.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeSet, ChunkChangeMap, type ChunkChange } from '../../src/txn/change-set.ts';
import { newNodeId } from '../../src/format/icechunk/ids.ts';

const RUNS = Number(process.env.FLOE_CHUNK_MAP_PROPERTY_RUNS ?? 300);

type Op =
  | { kind: 'set'; key: string; change: ChunkChange }
  | { kind: 'delete'; key: string }
  | { kind: 'clear' };

// Few distinct keys, so sets overwrite and deletes hit often.
const keyArb = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 })).map(([a, b]) => `${a},${b}`);
const changeArb: fc.Arbitrary<ChunkChange> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 255 }).map((v): ChunkChange => ({ kind: 'inline', index: [v], data: Uint8Array.of(v) })),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: keyArb, change: changeArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: keyArb }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

function apply(op: Op, map: { set(k: string, v: ChunkChange): unknown; delete(k: string): boolean; clear(): void }): boolean | undefined {
  if (op.kind === 'set') map.set(op.key, op.change);
  else if (op.kind === 'delete') return map.delete(op.key);
  else map.clear();
  return undefined;
}

function expectSame(map: ChunkChangeMap, model: Map<string, ChunkChange>): void {
  expect(map.size).toBe(model.size);
  expect([...map]).toEqual([...model]);
  expect([...map.keys()]).toEqual([...model.keys()]);
  expect([...map.values()]).toEqual([...model.values()]);
  const visited: [string, ChunkChange][] = [];
  map.forEach((change, key) => visited.push([key, change]));
  expect(visited).toEqual([...model.entries()]);
  for (let a = 0; a <= 5; a++) {
    for (let b = 0; b <= 3; b++) {
      const key = `${a},${b}`;
      expect(map.has(key)).toBe(model.has(key));
      expect(map.get(key)).toBe(model.get(key));
    }
  }
}

describe('ChunkChangeMap', () => {
  it('behaves as one Map across parts of any capacity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(opArb, { maxLength: 60 }), (capacity, ops) => {
        const map = new ChunkChangeMap(capacity);
        const model = new Map<string, ChunkChange>();
        for (const op of ops) {
          expect(apply(op, map)).toBe(apply(op, model));
          expectSame(map, model);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('holds more entries than one part takes, each part at most its capacity', () => {
    const map = new ChunkChangeMap(3);
    for (let i = 0; i < 10; i++) map.set(`${i}`, null);
    expect(map.size).toBe(10);
    expect([...map.keys()]).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    // A key deleted from a full first part and set again goes to the end, as in a Map.
    map.delete('1');
    map.set('1', null);
    expect([...map.keys()].at(-1)).toBe('1');
    expect(map.size).toBe(10);
  });

  it('is what a ChangeSet keeps per node', () => {
    const changes = new ChangeSet();
    const id = newNodeId();
    changes.setChunk(id, [0, 1], null);
    expect(changes.chunkChangesOf(id)).toBeInstanceOf(ChunkChangeMap);
    expect(changes.chunkChange(id, [0, 1])).toBeNull();
  });
});
