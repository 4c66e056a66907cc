// The worked example of docs/CONFORMANCE.md ("test your own writer against Floe in 20 lines"),
// run for real. The "writer under test" wraps Floe and gets the last element of every write of
// more than one element wrong, so the harness must read back a wrong value (not an exception),
// shrink the case and give a replay that reproduces it.
import { describe, expect, it } from 'vitest';
// --- example starts (imports from 'floe/testing' in a user's project) ---
import { compareArrays, floeArrayAdapter, formatDivergence, type ArrayAdapter, type ArrayHandle } from '../../src/testing/index.ts';

const floe = floeArrayAdapter();
const withMyWriter = (h: ArrayHandle): ArrayHandle => ({
  read: (selection) => h.read(selection),
  // Replace this with your writer. This one is off by one in the last element of every write.
  write: (selection, values) => {
    const elements = new Int32Array((values as Uint8Array).slice().buffer); // values are raw int32 bytes
    if (elements.length > 1) elements[elements.length - 1]! += 1;
    return h.write(selection, new Uint8Array(elements.buffer));
  },
});
const myWriter: ArrayAdapter = {
  name: 'my-writer',
  canWrite: (c) => c.dtype.name === 'int32',
  createArray: async (store, path, c) => withMyWriter(await floe.createArray(store, path, c)),
  openArray: (store, path) => floe.openArray(store, path),
};

async function testMyWriter() {
  const result = await compareArrays(floe, myWriter, { runs: 200, seed: 1, cases: { dataTypes: ['int32'], maxRank: 1 } });
  console.log(result.divergence ? formatDivergence(result.divergence) : 'no divergence');
  return result;
}
// --- example ends ---

type Read = { shape: number[]; values: Uint8Array };
const int32s = (r: Read) => Array.from(new Int32Array(r.values.slice().buffer));

describe('docs/CONFORMANCE.md worked example', () => {
  it('finds the broken writer: a wrong value read back, shrunk, with a replay that reproduces it', async () => {
    const { divergence } = await testMyWriter();
    expect(divergence).toBeDefined();
    const { mismatch, seed, path, counterexample } = divergence!;
    expect(mismatch.adapter).toBe('my-writer');
    expect(counterexample).toContain('"data_type":"int32"');
    // A mismatch of values read back, not an error from a write or a read.
    expect(mismatch.what).toMatch(/^read /);
    const [expected, actual] = [mismatch.expected as Read, mismatch.actual as Read];
    expect(actual).toMatchObject({ shape: expected.shape });
    const [want, got] = [int32s(expected), int32s(actual)];
    expect(got).toHaveLength(want.length);
    expect(got.filter((v, i) => v !== want[i])).toHaveLength(1);
    // The replay (seed and path of the report) runs that one case and finds the same divergence.
    const again = await compareArrays(floe, myWriter, { runs: 200, seed, path, cases: { dataTypes: ['int32'], maxRank: 1 } });
    expect(again.runs).toBe(1);
    expect(again.divergence?.counterexample).toBe(counterexample);
    expect(again.divergence?.mismatch).toEqual(mismatch);
    expect(formatDivergence(again.divergence!)).toContain(`replay: seed ${seed}, path "${path}"`);
  }, 60_000);
});
