// Zarr v2 property tests. Random v2 arrays (v2ArrayInputArb: every dtype, fill form, order,
// separator, compressor and delta filter Floe implements) written with random selections read
// back equal to the plain model, through a reopened store, and convert to v3 with identical values
// or are refused by compressor name. `.zarray` documents round-trip; NumPy typestrs parse to the
// item size and memory type an independent table gives, and any other text fails as a FloeError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparable, withWrites, writeBoth } from '../support/legacy-model.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { convertV2ToV3 } from '../../src/engine/convert-v2.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { isFloeError } from '../../src/errors.ts';
import { parseNumpyDataType, V2_DIALECT } from '../../src/format/numpy/dtype.ts';
import { createV2ArrayMetadata } from '../../src/format/zarr-v2/create.ts';
import { encodeV2ArrayMetadata, parseV2ArrayMetadata } from '../../src/format/zarr-v2/metadata.ts';
import { bytesOf } from '../../src/testing/arbitraries/data-types.ts';
import { v2ArrayInputArb } from '../../src/testing/arbitraries/v2-metadata.ts';

const RUNS = Number(process.env.FLOE_V2_PROPERTY_RUNS ?? 200);

const caseArb = withWrites(v2ArrayInputArb());

describe('Zarr v2 arrays against the model', () => {
  it('random writes read back equal, and convert to v3 with identical values or are refused by name', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, writes }) => {
        const src = new StorageStore(new MemoryStorage());
        const v2 = await V2Array.createAt(src, '/g/a', c.input);
        const expected = await writeBoth(c, writes, (sel, value) => v2.set(sel, value));
        const reopened = await V2Array.openAt(src, '/g/a');
        expect(comparable(bytesOf((await reopened.get()).data))).toEqual(expected);
        const dst = new StorageStore(new MemoryStorage());
        const converted = convertV2ToV3(src, dst, '/converted', { srcPath: '/g/a' });
        if (!c.convertible) {
          await expect(converted).rejects.toSatisfy((e: unknown) => isFloeError(e, 'UNSUPPORTED') && (e as Error).message.includes(`"${c.input.compressor?.id}"`));
          return;
        }
        await converted;
        const v3 = await ZarrArray.open(dst, '/converted');
        expect(comparable(bytesOf((await v3.get()).data))).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('.zarray documents', () => {
  it('round-trip: parse(encode(m)) encodes to the same bytes and holds the same model', () => {
    fc.assert(
      fc.property(v2ArrayInputArb(), ({ input }) => {
        const meta = createV2ArrayMetadata(input);
        const bytes = encodeV2ArrayMetadata(meta);
        const again = parseV2ArrayMetadata(bytes);
        expect(Buffer.from(encodeV2ArrayMetadata(again)).toString()).toBe(Buffer.from(bytes).toString());
        expect([again.shape, again.chunks, again.dtype.json, again.order, again.dimensionSeparator, again.compressor, again.filters])
          .toEqual([meta.shape, meta.chunks, meta.dtype.json, meta.order, meta.dimensionSeparator, meta.compressor, meta.filters]);
        expect([again.fill.isNull, bytesOf(again.fill.value.memory)]).toEqual([meta.fill.isNull, bytesOf(meta.fill.value.memory)]);
      }),
      { numRuns: RUNS * 5 },
    );
  });
});

/** NumPy's codes with their item sizes and Floe memory types, written out independently of Floe. */
const SCALARS: readonly [string, number, string][] = [
  ['b1', 1, 'bool'], ['i1', 1, 'int8'], ['i2', 2, 'int16'], ['i4', 4, 'int32'], ['i8', 8, 'int64'], ['u1', 1, 'uint8'], ['u2', 2, 'uint16'],
  ['u4', 4, 'uint32'], ['u8', 8, 'uint64'], ['f2', 2, 'float16'], ['f4', 4, 'float32'], ['f8', 8, 'float64'], ['c8', 8, 'complex64'], ['c16', 16, 'complex128'],
];
const UNITS = ['Y', 'M', 'W', 'D', 'h', 'm', 's', 'ms', 'us', 'ns', 'ps', 'fs', 'as'];

const typestrArb = fc.oneof(
  fc.tuple(fc.constantFrom('<', '>'), fc.constantFrom(...SCALARS)).map(([o, [code, size, name]]) => ({ typestr: (size === 1 ? '|' : o) + code, size, name })),
  fc.tuple(fc.constantFrom('S', 'V'), fc.integer({ min: 1, max: 64 })).map(([code, n]) => ({ typestr: `|${code}${n}`, size: n, name: `r${8 * n}` })),
  fc.tuple(fc.constantFrom('<', '>'), fc.integer({ min: 1, max: 64 })).map(([o, n]) => ({ typestr: `${o}U${n}`, size: 4 * n, name: 'string' })),
  fc.tuple(fc.constantFrom('<', '>'), fc.constantFrom('M', 'm'), fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }), fc.constantFrom(...UNITS))
    .map(([o, code, k, unit]) => ({ typestr: `${o}${code}8[${k ?? ''}${unit}]`, size: 8, name: 'int64' })),
);

describe('NumPy typestrs', () => {
  it('parse to the item size and memory type NumPy and Floe define', () => {
    fc.assert(fc.property(typestrArb, ({ typestr, size, name }) => {
      const dt = parseNumpyDataType(typestr, '.zarray', V2_DIALECT);
      expect([dt.itemSize, dt.dataType.name]).toEqual([size, name]);
    }), { numRuns: RUNS * 5 });
  });

  it('records: the item size is the sum of their fields\' sizes times their shapes', () => {
    const field = fc.tuple(typestrArb, fc.option(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 }), { nil: undefined }));
    fc.assert(fc.property(fc.array(field, { minLength: 1, maxLength: 5 }), (fields) => {
      const descr = fields.map(([f, shape], i) => (shape ? [`f${i}`, f.typestr, shape] : [`f${i}`, f.typestr]));
      const total = fields.reduce((n, [f, shape]) => n + f.size * (shape ?? []).reduce((a, b) => a * b, 1), 0);
      const dt = parseNumpyDataType(descr, '.zarray', V2_DIALECT);
      expect([dt.itemSize, dt.dataType.name]).toEqual([total, `r${8 * total}`]);
    }), { numRuns: RUNS * 2 });
  });

  it('any other text is refused with a FloeError, never another error', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[<>|=]?[a-zA-Z]\d{0,3}(\[[a-z0-9]*\])?$/)), (text) => {
      try {
        parseNumpyDataType(text, '.zarray', V2_DIALECT);
      } catch (err) {
        expect(isFloeError(err, 'INVALID_METADATA') || isFloeError(err, 'UNSUPPORTED')).toBe(true);
      }
    }), { numRuns: RUNS * 5 });
  });
});
