// Random Zarr v1 arrays from floe/testing's v1ArrayInputArb (every dtype zarr 1.x wrote: b1, i/u
// 1-8, f2/f4/f8, c8/c16 in both byte orders, S/V bytes, U<n> unicode, structured records; C/F
// order; every compressor with its options, lzma raw filter chains included; fill values, null
// too; ragged edges) written with random selections and read back equal to the plain model in
// src/testing/model (raw memory bytes, so floats match bit for bit; strings for U<n>), then
// converted to v3 and read back identical again — through a reopened store each time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV1ToV3 } from '../../src/engine/convert.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V1Array } from '../../src/engine/v1-array.ts';
import { toFloeSelection } from '../../src/testing/adapters/floe-array.ts';
import { bytesOf, toArrayData, type ElementValues } from '../../src/testing/arbitraries/data-types.ts';
import { selectionItemArb } from '../../src/testing/arbitraries/selections.ts';
import { v1ArrayInputArb } from '../../src/testing/arbitraries/v1-metadata.ts';
import { ModelArray, resolveSelection } from '../../src/testing/model/array-model.ts';

const RUNS = 300;

const caseArb = v1ArrayInputArb({ unicode: true }).chain((c) => fc.record({
  c: fc.constant(c),
  writes: fc.array(fc.tuple(fc.tuple(...c.input.shape.map((n) => selectionItemArb(n, { outOfBounds: false }))), fc.nat()), { maxLength: 4 }),
}));

/** Hex for bytes (vitest diffs long typed arrays slowly), the strings themselves for U<n>. */
const comparable = (v: ElementValues): string | readonly string[] => (Array.isArray(v) ? v : Buffer.from(v as Uint8Array).toString('hex'));

describe('Zarr v1 arrays against the model', () => {
  it('random writes read back equal, and convert to v3 with identical values', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, writes }) => {
        const { shape } = c.input;
        const src = new StorageStore(new MemoryStorage());
        const v1 = await V1Array.create(src, c.input);
        const model = new ModelArray(shape, c.dtype.memBytes, c.fill);
        for (const [sel, seed] of writes) {
          const dims = resolveSelection(sel, shape);
          const values = c.values(dims.reduce((a, d) => a * d.indices.length, 1), seed);
          model.write(dims, values, false);
          await v1.set(toFloeSelection(sel), toArrayData(c.dtype, values));
        }
        const expected = comparable(model.read(resolveSelection([], shape)));
        const reopened = await V1Array.open(src);
        expect(comparable(bytesOf((await reopened.get()).data))).toEqual(expected);
        const dst = new StorageStore(new MemoryStorage());
        await convertV1ToV3(src, dst, '/converted');
        const v3 = await ZarrArray.open(dst, '/converted');
        expect(comparable(bytesOf((await v3.get()).data))).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
