// Random Zarr v1 arrays (dtype, byte order, C/F order, compressor, fill incl. null, ragged
// edges) written with random selections, read back equal to the plain model in
// test/support/model-array.ts (compared as raw memory bytes, so floats match bit for bit), then
// converted to v3 and read back identical again — through a reopened store each time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV1ToV3 } from '../../src/engine/convert.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { toFloeSelection } from '../../src/testing/adapters/floe-array.ts';
import { selectionItemArb } from '../../src/testing/arbitraries/selections.ts';
import { V1Array } from '../../src/engine/v1-array.ts';
import type { ArrayData } from '../../src/format/zarr/data-types.ts';
import { ModelArray, resolveSelection, type ModelItem } from '../support/model-array.ts';

interface Dt {
  code: string;
  /** Bytes per element in memory (float16 lives in float32 lanes). */
  mem: number;
  make: (bytes: Uint8Array) => ArrayData;
  fill: fc.Arbitrary<number | boolean | string | null>;
}
const view = <T>(C: new (b: ArrayBuffer) => T) => (b: Uint8Array) => new C(b.slice().buffer);
const DTYPES: Dt[] = [
  { code: 'b1', mem: 1, make: (b) => b.map((x) => x & 1), fill: fc.option(fc.boolean()) },
  { code: 'i1', mem: 1, make: view(Int8Array), fill: fc.option(fc.integer({ min: -128, max: 127 })) },
  { code: 'u2', mem: 2, make: view(Uint16Array), fill: fc.option(fc.integer({ min: 0, max: 65535 })) },
  { code: 'i4', mem: 4, make: view(Int32Array), fill: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })) },
  { code: 'f4', mem: 4, make: (b) => new Float32Array(b.slice().buffer).map((x) => (Number.isNaN(x) ? 1 : x)), fill: fc.option(fc.constantFrom(0, 1.5, -2.25, 'NaN')) },
  { code: 'f8', mem: 8, make: (b) => new Float64Array(b.slice().buffer).map((x) => (Number.isNaN(x) ? 1 : x)), fill: fc.option(fc.constantFrom(0, 0.1, 1e-300, 'Infinity')) },
  { code: 'S3', mem: 3, make: (b) => b.slice(), fill: fc.option(fc.constantFrom('', 'ab', 'xyz')) },
];
const COMPRESSORS: [string, unknown][] = [['none', null], ['zlib', 1], ['gzip', 5], ['bz2', 1], ['lzma', null], ['blosc', { cname: 'lz4', clevel: 5, shuffle: 1 }], ['blosc', { cname: 'zstd', clevel: 1, shuffle: 2 }]];


const caseArb = fc
  .record({
    dt: fc.constantFrom(...DTYPES),
    big: fc.boolean(),
    order: fc.constantFrom('C' as const, 'F' as const),
    compressor: fc.constantFrom(...COMPRESSORS),
    shape: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 3 }),
    chunks: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 3 }),
    seed: fc.integer(),
  })
  .chain((c) => fc.record({
    c: fc.constant(c),
    fill: c.dt.fill,
    writes: fc.array(fc.tuple(...c.shape.map((n) => selectionItemArb(n, { outOfBounds: false }))), { maxLength: 4 }),
  }));


function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const bytesOf = (d: ArrayData) => new Uint8Array((d as Uint8Array).buffer, (d as Uint8Array).byteOffset, (d as Uint8Array).byteLength).slice();

describe('Zarr v1 arrays against the model', () => {
  it('random writes read back equal, and convert to v3 with identical values', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, fill, writes }) => {
        const { dt } = c;
        const order = dt.mem === 1 || dt.code.startsWith('S') ? '|' : c.big ? '>' : '<';
        const src = new StorageStore(new MemoryStorage());
        const chunks = c.chunks.slice(0, c.shape.length);
        const v1 = await V1Array.create(src, {
          shape: c.shape, chunks, dtype: order + dt.code, order: c.order,
          compression: c.compressor[0], compressionOpts: c.compressor[1] as never, fillValue: fill,
        });
        // The model's fill: the bytes a missing chunk reads as (zeros for a null fill).
        const fillBytes = bytesOf(v1.inner.chain.spec.fillValue.memory);
        const model = new ModelArray(c.shape, dt.mem, fillBytes);
        let seed = c.seed;
        for (const sel of writes) {
          const dims = resolveSelection(sel, c.shape);
          const n = dims.reduce((a, d) => a * d.indices.length, 1);
          const data = dt.make(randomBytes(n * dt.mem, seed++));
          model.write(dims, bytesOf(data), false);
          await v1.set(toFloeSelection(sel), data);
        }
        const expected = model.read(resolveSelection([], c.shape));
        const reopened = await V1Array.open(src);
        expect(bytesOf((await reopened.get()).data)).toEqual(expected);
        const dst = new StorageStore(new MemoryStorage());
        await convertV1ToV3(src, dst, '/converted');
        const v3 = await ZarrArray.open(dst, '/converted');
        expect(bytesOf((await v3.get()).data)).toEqual(expected);
      }),
      { numRuns: 120 },
    );
  });
});
