// Random Zarr v1 arrays from floe/testing's v1ArrayInputArb (every dtype zarr 1.x wrote: b1, i/u
// 1-8, f2/f4/f8, c8/c16 in both byte orders, S/V bytes, U<n> unicode, structured records; C/F
// order; every compressor with its options, lzma raw filter chains included; fill values, null
// too; ragged edges) written with random selections and read back equal to the plain model in
// src/testing/model (raw memory bytes, so floats match bit for bit; strings for U<n>), then
// converted to v3 and read back identical again — through a reopened store each time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparable, withWrites, writeBoth } from '../support/legacy-model.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV1ToV3 } from '../../src/engine/convert.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V1Array } from '../../src/engine/v1-array.ts';
import { bytesOf } from '../../src/testing/arbitraries/data-types.ts';
import { v1ArrayInputArb } from '../../src/testing/arbitraries/v1-metadata.ts';

const RUNS = 300;

const caseArb = withWrites(v1ArrayInputArb({ unicode: true }));

describe('Zarr v1 arrays against the model', () => {
  it('random writes read back equal, and convert to v3 with identical values', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, writes }) => {
        const src = new StorageStore(new MemoryStorage());
        const v1 = await V1Array.create(src, c.input);
        const expected = await writeBoth(c, writes, (sel, value) => v1.set(sel, value));
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
