// What the Zarr v1 and v2 property tests share: random writes for a generated case, applied to the
// array and to the plain model, and values in a form vitest compares quickly.
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import type { WriteValue } from '../../src/engine/array.ts';
import type { Selection } from '../../src/engine/selection.ts';
import { toFloeSelection } from '../../src/testing/adapters/floe-array.ts';
import { toArrayData, type ElementValues, type TestDataType } from '../../src/testing/arbitraries/data-types.ts';
import { selectionItemArb } from '../../src/testing/arbitraries/selections.ts';
import { ModelArray, resolveSelection, type ModelItem } from '../../src/testing/model/array-model.ts';

/** A generated v1 or v2 array case (V1Case, V2Case). */
export interface ModelCase {
  readonly input: { readonly shape: readonly number[] };
  readonly dtype: TestDataType;
  readonly fill: Uint8Array | readonly string[];
  values(n: number, seed: number): ElementValues;
}

export type Writes = readonly (readonly [readonly ModelItem[], number])[];

/** A case with up to four random in-bounds selections to write, each with a value seed. */
export function withWrites<C extends ModelCase>(cases: Arbitrary<C>): Arbitrary<{ c: C; writes: Writes }> {
  return cases.chain((c) => fc.record({
    c: fc.constant(c),
    writes: fc.array(fc.tuple(fc.tuple(...c.input.shape.map((n) => selectionItemArb(n, { outOfBounds: false }))), fc.nat()), { maxLength: 4 }),
  }));
}

/** Hex for bytes (vitest diffs long typed arrays slowly), the strings themselves for strings. */
export const comparable = (v: ElementValues): string | readonly string[] => (Array.isArray(v) ? v : Buffer.from(v as Uint8Array).toString('hex'));

/** Applies `writes` to the array (through `set`) and to the model; what the whole array should then read. */
export async function writeBoth(c: ModelCase, writes: Writes, set: (selection: Selection, value: WriteValue) => Promise<void>): Promise<string | readonly string[]> {
  const { shape } = c.input;
  const model = new ModelArray(shape, c.dtype.memBytes, c.fill);
  for (const [sel, seed] of writes) {
    const dims = resolveSelection(sel, shape);
    const values = c.values(dims.reduce((a, d) => a * d.indices.length, 1), seed);
    model.write(dims, values, false);
    await set(toFloeSelection(sel), toArrayData(c.dtype, values));
  }
  return comparable(model.read(resolveSelection([], shape)));
}
