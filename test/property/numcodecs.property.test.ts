// The numcodecs array codecs in Zarr v3 chains (their numcodecs.<id> names), on drawn data:
// lossless ones (delta, widening astype, packbits, categorize of labelled strings, json2,
// msgpack2) give back exactly what they encoded; lossy ones (fixedscaleoffset, quantize,
// bitround, narrowing astype) are idempotent: what they decode encodes to the same bytes again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCodecChain } from '../../src/format/codecs/pipeline.ts';
import type { CodecMetadata } from '../../src/format/codecs/types.ts';
import { parseDataType, type ArrayData } from '../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../src/format/zarr/fill-value.ts';
import { cStrides, product, type NdArray } from '../../src/format/zarr/ndarray.ts';
import { allCodecImplementations } from '../../src/format/codecs/registry.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const RUNS = Number(process.env.FLOE_NUMCODECS_PROPERTY_RUNS ?? 150);
const LE: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };

const shapes = fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 });

function chainOf(codecs: CodecMetadata[], dataType: string, shape: readonly number[]) {
  const dt = parseDataType(dataType);
  return buildCodecChain(codecs, { shape, dataType: dt, fillValue: defaultFillValue(dt) });
}

const arrayOf = (data: ArrayData, shape: readonly number[]): NdArray => ({ data, shape: [...shape], stride: cStrides(shape) });
const bytesOf = (data: ArrayData): Uint8Array => {
  const typed = data as Uint8Array;
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
};

/** Elements of `dataType` drawn as raw bytes (any bit pattern, NaNs included). */
function elements(dataType: string, shape: readonly number[]): fc.Arbitrary<ArrayData> {
  const dt = parseDataType(dataType);
  const n = product(shape);
  return fc.uint8Array({ minLength: n * dt.laneBytes, maxLength: n * dt.laneBytes }).map((raw) => {
    const out = dt.allocate(n);
    bytesOf(out).set(raw);
    if (dataType === 'float16') (out as Float32Array).forEach((v, i, a) => (a[i] = Math.fround(v) % 60000 || 0));
    return out;
  });
}

const sized = <T>(build: (shape: number[]) => fc.Arbitrary<T>) => shapes.chain((shape) => build(shape).map((value) => ({ shape, value })));

describe('lossless numcodecs filters give back what they encode', () => {
  const exact: readonly [string, string, CodecMetadata][] = [
    ['delta int32', 'int32', { name: 'numcodecs.delta', configuration: { dtype: '<i4' } }],
    ['delta uint64', 'uint64', { name: 'numcodecs.delta', configuration: { dtype: '<u8' } }],
    ['delta int8 as int64', 'int8', { name: 'numcodecs.delta', configuration: { dtype: '|i1', astype: '<i8' } }],
    ['astype int16 -> int32', 'int16', { name: 'numcodecs.astype', configuration: { encode_dtype: '<i4', decode_dtype: '<i2' } }],
    ['astype float32 -> float64', 'float32', { name: 'numcodecs.astype', configuration: { encode_dtype: '<f8', decode_dtype: '<f4' } }],
    ['packbits', 'bool', { name: 'numcodecs.packbits' }],
  ];
  it.each(exact)('%s', (_label, dataType, filter) => {
    fc.assert(
      fc.property(sized((shape) => elements(dataType, shape)), ({ shape, value }) => {
        const data = dataType === 'bool' ? (value as Uint8Array).map((b) => b & 1) : value;
        const chain = chainOf([filter, filter.name === 'numcodecs.packbits' ? { name: 'bytes' } : LE], dataType, shape);
        const back = chain.decode(chain.encode(arrayOf(data, shape)));
        // Every NaN is a NaN again, but a cast through another float type may quiet its payload (NumPy's too).
        expect(Array.from(back.data as ArrayLike<unknown>)).toEqual(Array.from(data as ArrayLike<unknown>));
      }),
      { numRuns: RUNS },
    );
  });

  it('categorize: labelled strings come back, others as ""', () => {
    const labels = ['a', 'bb', 'é', '日本', ''];
    const text = fc.oneof(fc.constantFrom(...labels), fc.string({ unit: 'binary', maxLength: 3 }));
    fc.assert(
      fc.property(sized((shape) => fc.array(text, { minLength: product(shape), maxLength: product(shape) })), ({ shape, value }) => {
        const chain = chainOf([{ name: 'numcodecs.categorize', configuration: { labels, dtype: '|O', astype: '|u1' } }, { name: 'bytes' }], 'string', shape);
        const back = chain.decode(chain.encode(arrayOf(value, shape))).data as string[];
        expect(back).toEqual(value.map((s) => (labels.includes(s) ? s : '')));
      }),
      { numRuns: RUNS },
    );
  });

  it.each(['numcodecs.json2', 'numcodecs.msgpack2'])('%s: any strings, any shape', (name) => {
    fc.assert(
      fc.property(sized((shape) => fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: product(shape), maxLength: product(shape) })), ({ shape, value }) => {
        const chain = chainOf([{ name }], 'string', shape);
        expect(chain.decode(chain.encode(arrayOf(value, shape))).data).toEqual(value);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('lossy numcodecs filters are idempotent', () => {
  const lossy: readonly [string, string, CodecMetadata][] = [
    ['fixedscaleoffset float64 -> int32', 'float64', { name: 'numcodecs.fixedscaleoffset', configuration: { offset: 3.5, scale: 8, dtype: '<f8', astype: '<i4' } }],
    ['fixedscaleoffset int32 -> int16', 'int32', { name: 'numcodecs.fixedscaleoffset', configuration: { offset: 7, scale: 2, dtype: '<i4', astype: '<i2' } }],
    ['quantize float32, 2 digits', 'float32', { name: 'numcodecs.quantize', configuration: { digits: 2, dtype: '<f4' } }],
    ['bitround float64, 9 bits', 'float64', { name: 'numcodecs.bitround', configuration: { keepbits: 9 } }],
    ['bitround float16, 3 bits', 'float16', { name: 'numcodecs.bitround', configuration: { keepbits: 3 } }],
    ['astype float64 -> float32', 'float64', { name: 'numcodecs.astype', configuration: { encode_dtype: '<f4', decode_dtype: '<f8' } }],
  ];
  it.each(lossy)('%s', (_label, dataType, filter) => {
    fc.assert(
      fc.property(sized((shape) => elements(dataType, shape)), ({ shape, value }) => {
        const chain = chainOf([filter, LE], dataType, shape);
        const once = chain.encode(arrayOf(value, shape));
        const twice = chain.encode(chain.decode(once));
        expect(Buffer.from(twice).equals(Buffer.from(once))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
