// The worked example of docs/CONFORMANCE.md ("test your own writer against Floe in 20 lines"),
// run for real. The "writer under test" wraps Floe and drops the last element of every write, so
// the harness must find it, shrink it and say how to replay it.
import { describe, expect, it } from 'vitest';
// --- example starts (imports from 'floe/testing' in a user's project) ---
import { compareArrays, floeArrayAdapter, formatDivergence, type ArrayAdapter, type ArrayHandle } from '../../src/testing/index.ts';

const floe = floeArrayAdapter();
const withMyWriter = (h: ArrayHandle): ArrayHandle => ({
  read: (selection) => h.read(selection),
  // Replace this with your writer. This one "forgets" the last element of every write.
  write: (selection, values) => (values.length > 1 && selection.length === 1 ? h.write(selection, values.slice(0, -1) as typeof values) : h.write(selection, values)),
});
const myWriter: ArrayAdapter = {
  name: 'my-writer',
  canWrite: (c) => c.dtype.name === 'int32',
  createArray: async (store, path, c) => withMyWriter(await floe.createArray(store, path, c)),
  openArray: (store, path) => floe.openArray(store, path),
};

async function testMyWriter() {
  const result = await compareArrays(floe, myWriter, { runs: 200, seed: 1, cases: { dataTypes: ['int32'], maxRank: 1 } });
  return result.divergence ? formatDivergence(result.divergence) : 'no divergence';
}
// --- example ends ---

describe('docs/CONFORMANCE.md worked example', () => {
  it('finds the broken writer and prints a small case with its replay', async () => {
    const report = await testMyWriter();
    expect(report).toMatch(/^divergence in my-writer/);
    expect(report).toContain('replay: seed 1, path');
    expect(report).toContain('"data_type":"int32"');
  }, 60_000);
});
