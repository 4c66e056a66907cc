// The dtype named in from() types the result's data (checked by `tsc --noEmit` over the tests),
// and the data a query returns at run time is of that very class.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import type { ArrayData, TypedArray } from '../../src/format/zarr/data-types.ts';
import { query } from '../../src/query/index.ts';
import { countingStore } from './support.ts';

const store = countingStore().store;
const q = query(store);

describe('dtype-typed results', () => {
  it('types data by the dtype given to from()', () => {
    expectTypeOf(q.from('/a', 'float32').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Float32Array>();
    expectTypeOf(q.from('/a', 'float64').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Float64Array>();
    expectTypeOf(q.from('/a', 'int64').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<BigInt64Array>();
    expectTypeOf(q.from('/a', 'uint64').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<BigUint64Array>();
    expectTypeOf(q.from('/a', 'int16').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Int16Array>();
    expectTypeOf(q.from('/a', 'uint8').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Uint8Array>();
    expectTypeOf(q.from('/a', 'bool').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Uint8Array>();
    expectTypeOf(q.from('/a', 'float16').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Float32Array>();
    expectTypeOf(q.from('/a', 'complex128').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Float64Array>();
    expectTypeOf(q.from('/a', 'string').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<string[]>();
    expectTypeOf(q.from('/a', 'binary').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Uint8Array[] | TypedArray[]>(); // typed elements for vlen-array
    // The type survives further builder calls.
    expectTypeOf(q.from('/a', 'int32').whereIndex('x', 0, 1).stride('x', 2).select('b').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<Int32Array>();
    // Without a dtype: any array data.
    expectTypeOf(q.from('/a').execute).returns.resolves.toHaveProperty('data').toEqualTypeOf<ArrayData>();
    // @ts-expect-error: an unknown data type name is refused.
    expectTypeOf(() => q.from('/a', 'float128')).toBeFunction();
  });

  it('returns data of that class at run time', async () => {
    await ZarrArray.create(store, '/i64', { shape: [3], chunkShape: [2], dataType: 'int64' }).then((a) => a.set(undefined, BigInt64Array.of(1n, -2n, 3n)));
    await ZarrArray.create(store, '/f32', { shape: [3], chunkShape: [2], dataType: 'float32' }).then((a) => a.set(undefined, Float32Array.of(0.5, 1.5, 2.5)));
    const i64 = await query(store).from('/i64', 'int64').whereIndex('#0', 1, 3).execute();
    expect(i64.data).toBeInstanceOf(BigInt64Array);
    expect(Array.from(i64.data)).toEqual([-2n, 3n]);
    const f32 = await query(store).from('/f32', 'float32').execute();
    expect(f32.data).toBeInstanceOf(Float32Array);
    expect(Array.from(f32.data)).toEqual([0.5, 1.5, 2.5]);
  });
});
