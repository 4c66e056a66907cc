// Zarr v1 arrays as `V1Array.create` takes them: NumPy typestrs of every byte order, shapes of rank
// 1-3 (v1 has no 0-d arrays), the compressors zarr 1.x wrote, C or F order, and fill values (null
// is zarr 1.x's default). The typestr decides the element's memory form, so the model's `dtype` is
// given beside it.
import fc from 'fast-check';
import type { V1ArrayInput } from '../../engine/v1-array.ts';
import { dataTypeNamed, type TestDataType } from './data-types.ts';

export interface V1Case {
  readonly input: V1ArrayInput;
  readonly dtype: TestDataType;
}

const NUMERIC: readonly [string, string][] = [
  ['i1', 'int8'], ['i2', 'int16'], ['i4', 'int32'], ['i8', 'int64'],
  ['u1', 'uint8'], ['u2', 'uint16'], ['u4', 'uint32'], ['u8', 'uint64'], ['f4', 'float32'], ['f8', 'float64'],
];

const compression = fc.oneof(
  fc.constant({ compression: 'none', compressionOpts: null }),
  fc.integer({ min: 1, max: 9 }).map((level) => ({ compression: 'zlib', compressionOpts: level })),
  fc.record({ cname: fc.constantFrom('lz4', 'zlib', 'blosclz'), clevel: fc.integer({ min: 1, max: 9 }), shuffle: fc.constantFrom(0, 1) })
    .map((opts) => ({ compression: 'blosc', compressionOpts: opts })),
);

export function v1ArrayInputArb(): fc.Arbitrary<V1Case> {
  return fc
    .record({
      type: fc.constantFrom(...NUMERIC),
      order: fc.constantFrom('<', '>'),
      dims: fc.array(fc.record({ chunk: fc.integer({ min: 1, max: 4 }), extra: fc.nat(5) }), { minLength: 1, maxLength: 3 }),
      compression,
      layout: fc.constantFrom('C' as const, 'F' as const),
      fill: fc.option(fc.integer({ min: 0, max: 100 }), { freq: 3 }),
    })
    .map(({ type: [code, name], order, dims, compression: c, layout, fill }) => {
      const width = Number(code.slice(1));
      return {
        dtype: dataTypeNamed(name),
        input: {
          shape: dims.map((d) => d.chunk + d.extra), chunks: dims.map((d) => d.chunk),
          dtype: `${width === 1 ? '|' : order}${code}`, compression: c.compression, compressionOpts: c.compressionOpts,
          order: layout, fillValue: fill,
        },
      };
    });
}
