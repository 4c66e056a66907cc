import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';
import { WhereNode } from '../../src/query/nodes/where-node.ts';
import { countingStore } from './support.ts';

const base = () => query(countingStore().store).from('/temperature');

describe('query builder', () => {
  it('returns a new builder per call and never changes the one it came from', () => {
    const a = base().where('lat', '>', 0);
    const b = a.where('lon', '<', 10);
    const c = a.whereIndex('time', 0, 5);
    expect(a.toOperationNode().operations).toHaveLength(1);
    expect(b.toOperationNode().operations.map((o) => o.kind)).toEqual(['WhereNode', 'WhereNode']);
    expect(c.toOperationNode().operations.map((o) => o.kind)).toEqual(['WhereNode', 'WhereIndexNode']);
    expect(b.toString()).toBe(`query(...).from("/temperature").where("lat", '>', 0).where("lon", '<', 10)`);
    expect(c.toString()).toBe(`query(...).from("/temperature").where("lat", '>', 0).whereIndex("time", 0, 5)`);
  });

  it('freezes every node, and copies Dates so later mutation cannot leak in', () => {
    const when = new Date(Date.UTC(2001, 0, 1));
    const node = base().where('time', 'in', [when, 3]).select('lat').toOperationNode();
    when.setUTCFullYear(1999);
    expect(Object.isFrozen(node)).toBe(true);
    expect(Object.isFrozen(node.operations)).toBe(true);
    const where = node.operations[0]!;
    expect(Object.isFrozen(where)).toBe(true);
    expect(where.kind === 'WhereNode' && (where.value as Date[])[0]!.toISOString()).toBe('2001-01-01T00:00:00.000Z');
    expect(node.select?.paths).toEqual(['lat']);
    expect(() => (node.operations as unknown as unknown[]).push(1)).toThrow();
  });

  it('prints every node kind', () => {
    const q = base().select('lat', 'lon').where('lat', 'between', [1, 2]).nearest('time', 5, { tolerance: 1 }).whereIndex('lon', -3, null, 2).stride('lat', 2).limit('lat', 4);
    expect(q.toString()).toBe(
      `query(...).from("/temperature").select("lat", "lon").where("lat", 'between', [1, 2]).nearest("time", 5, { tolerance: 1 }).whereIndex("lon", -3, null, 2).stride("lat", 2).limit("lat", 4)`,
    );
  });

  it.each([
    ['between with one value', () => base().where('lat', 'between', [1] as unknown as [number, number]), /between takes \[low, high\]/],
    ['in with no labels', () => base().where('lat', 'in', []), /non-empty list/],
    ['a list for =', () => base().where('lat', '=', [1, 2] as unknown as number), /use "in" or "between"/],
    ['an unknown operator', () => WhereNode.create('lat', '!=' as never, 1), /unknown operator "!="/],
    ['NaN', () => base().where('lat', '<', NaN), /NaN is not a label/],
    ['an object label', () => base().where('lat', '=', {} as never), /dimension "lat": a label must be/],
    ['step 0', () => base().whereIndex('lon', 0, 4, 0), /step must be a positive integer/],
    ['negative tolerance', () => base().nearest('lat', 3, { tolerance: -1 }), /tolerance must be a number >= 0/],
    ['a negative limit', () => base().limit('lat', -1), /limit must be an integer >= 0/],
    ['an empty from', () => query(countingStore().store).from(''), /from\(\) needs an array path/],
  ])('rejects %s at build time', (_, build, message) => {
    let caught: unknown;
    try {
      build();
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught, 'INVALID_ARGUMENT', 'INVALID_SELECTION')).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});
