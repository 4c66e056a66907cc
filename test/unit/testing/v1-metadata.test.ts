// Every generated v1 array is one V1Array.create accepts, and what is written reads back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { V1Array } from '../../../src/engine/v1-array.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { randomElements, toArrayData, bytesOf, v1ArrayInputArb } from '../../../src/testing/index.ts';

describe('v1ArrayInputArb', () => {
  it('creates valid v1 arrays whose data round-trips', async () => {
    await fc.assert(fc.asyncProperty(v1ArrayInputArb(), fc.nat(), async ({ input, dtype }, seed) => {
      const array = await V1Array.create(new StorageStore(new MemoryStorage()), input);
      const n = input.shape.reduce((a, b) => a * b, 1);
      const values = randomElements(dtype, new Uint8Array(dtype.memBytes), n, seed);
      await array.set(undefined, toArrayData(dtype, values));
      expect(bytesOf((await array.get()).data)).toEqual(values);
    }), { numRuns: 100 });
  });
});
