// The NetCDF-3 header parser (src/format/netcdf3/header.ts) on headers built here by a separate
// writer (test/support/netcdf3-writer.ts): random valid headers of every version round-trip,
// read from any prefix (asking for more until complete); random byte mutations and truncations
// never throw anything but a FloeError, and never ask for an ever-longer prefix. Contiguous
// splitting puts every element of every chunk where the file holds it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { parseNetcdf3Header, type Netcdf3Type, type Netcdf3Version } from '../../src/format/netcdf3/header.ts';
import { netcdf3Layout, splitContiguous } from '../../src/format/netcdf3/layout.ts';
import { encodeHeader, type AttrModel, type HeaderModel } from '../support/netcdf3-writer.ts';

const RUNS = Number(process.env.FLOE_NETCDF3_PROPERTY_RUNS ?? 200);

const nameArb = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);

function attrArb(version: Netcdf3Version): fc.Arbitrary<AttrModel> {
  const types: Netcdf3Type[] = version === 5 ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] : [1, 2, 3, 4, 5, 6];
  return fc.record({ name: nameArb, type: fc.constantFrom(...types) }).chain(({ name, type }) => {
    const values: fc.Arbitrary<string | (number | bigint)[]> =
      type === 2 ? fc.stringMatching(/^[ -~]{0,9}$/).map((s) => s.replace(/\0+$/, ''))
      : type === 1 ? fc.array(fc.integer({ min: -128, max: 127 }), { maxLength: 5 })
      : type === 7 ? fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 5 })
      : type === 3 ? fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 5 })
      : type === 8 ? fc.array(fc.integer({ min: 0, max: 65535 }), { maxLength: 5 })
      : type === 4 ? fc.array(fc.integer(), { maxLength: 5 })
      : type === 9 ? fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 5 })
      : type === 5 ? fc.array(fc.float({ noNaN: true }), { maxLength: 5 })
      : type === 6 ? fc.array(fc.double({ noNaN: true }), { maxLength: 5 })
      : type === 10 ? fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 5 })
      : fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxLength: 5 });
    return values.map((value) => ({ name, type, value }));
  });
}

const headerArb: fc.Arbitrary<HeaderModel> = fc.constantFrom<Netcdf3Version>(1, 2, 5).chain((version) =>
  fc.record({
    numRecords: fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }),
    dimensions: fc.uniqueArray(fc.record({ name: nameArb, length: fc.integer({ min: 1, max: 9 }) }), { maxLength: 4, selector: (d) => d.name }),
    hasRecord: fc.boolean(),
    attributes: fc.uniqueArray(attrArb(version), { maxLength: 4, selector: (a) => a.name }),
    variables: fc.uniqueArray(fc.record({ name: nameArb, dims: fc.array(fc.nat(), { maxLength: 3 }), record: fc.boolean(), attributes: fc.uniqueArray(attrArb(version), { maxLength: 3, selector: (a) => a.name }), type: fc.constantFrom<Netcdf3Type>(...(version === 5 ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] as const : [1, 2, 3, 4, 5, 6] as const)) }), { maxLength: 5, selector: (v) => v.name }),
  }).map(({ numRecords, dimensions, hasRecord, attributes, variables }) => {
    const dims = hasRecord ? [{ name: 'rec_dim', length: 0 }, ...dimensions.filter((d) => d.name !== 'rec_dim')] : dimensions;
    const fixedIds = dims.map((_, i) => i).filter((i) => dims[i]?.length !== 0);
    const model: HeaderModel = {
      version, numRecords, dimensions: dims, attributes,
      variables: variables.map((v) => {
        const ids = fixedIds.length === 0 ? [] : v.dims.map((d) => fixedIds[d % fixedIds.length] ?? 0);
        return { name: v.name, dimensionIds: hasRecord && v.record ? [0, ...ids] : ids, attributes: v.attributes, type: v.type, vsize: 4, begin: 0 };
      }),
    };
    // Offsets after the header (its length does not depend on their values).
    const length = encodeHeader(model).length;
    model.variables.forEach((v, i) => (v.begin = length + i * 16));
    return model;
  }),
);

/** The parser's view of a model's values (floats through float32, text as written). */
function expected(model: HeaderModel) {
  const attr = (a: AttrModel) => ({ name: a.name, type: a.type, value: typeof a.value === 'string' ? a.value : a.value.map((v) => (a.type === 5 ? Math.fround(Number(v)) : v)) });
  return {
    version: model.version, numRecords: model.numRecords, dimensions: model.dimensions, attributes: model.attributes.map(attr),
    variables: model.variables.map((v) => ({ ...v, attributes: v.attributes.map(attr) })),
  };
}

describe('NetCDF-3 headers (property)', () => {
  it('random valid headers of every version round-trip, from any prefix length', () => {
    fc.assert(fc.property(headerArb, fc.integer({ min: 4, max: 64 }), (model, first) => {
      const bytes = encodeHeader(model);
      const fileSize = bytes.length + 4096;
      const file = new Uint8Array(fileSize);
      file.set(bytes);
      let want = Math.min(first, fileSize);
      for (let rounds = 0; ; rounds++) {
        const result = parseNetcdf3Header(file.subarray(0, want), fileSize, 'model.nc');
        if (result.kind === 'header') {
          expect({ ...result.header, length: undefined }).toEqual({ ...expected(model), length: undefined });
          expect(result.header.length).toBe(bytes.length);
          return;
        }
        expect(result.needBytes).toBeGreaterThan(want);
        expect(rounds).toBeLessThan(40);
        want = result.needBytes;
      }
    }), { numRuns: RUNS });
  });

  it('mutated and truncated headers fail only with a FloeError, and their layouts too', () => {
    fc.assert(fc.property(headerArb, fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 6 }), fc.nat(), (model, edits, cut) => {
      const bytes = encodeHeader(model);
      for (const e of edits) bytes[e.at % bytes.length] = e.value;
      const size = cut % 3 === 0 ? cut % (bytes.length + 1) : bytes.length + 64;
      const file = new Uint8Array(Math.max(size, 0));
      file.set(bytes.subarray(0, file.length));
      try {
        const result = parseNetcdf3Header(file, file.length, 'mutated.nc');
        if (result.kind === 'header') netcdf3Layout(result.header, file.length, 'mutated.nc', 64);
        else expect(result.needBytes).toBeLessThanOrEqual(file.length); // it has the whole file: never asks beyond it
      } catch (err) {
        if (!isFloeError(err)) throw err;
        expect(err.message).toContain('mutated.nc');
      }
    }), { numRuns: RUNS * 2 });
  });
});

describe('NetCDF-3 contiguous splitting (property)', () => {
  it('every element of every chunk lies where the file holds it, and every element is in one chunk', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 4 }), fc.constantFrom(1, 2, 4, 8), fc.integer({ min: 1, max: 600 }), (dims, size, maxBytes) => {
      const split = splitContiguous(dims, size, maxBytes);
      const total = dims.reduce((a, b) => a * b, 1);
      const seen = new Uint8Array(total);
      for (const chunk of split.chunks()) {
        expect(split.chunkBytes <= Math.max(maxBytes, size) || split.chunkShape.every((c, d) => c === 1 || d === dims.length - 1)).toBe(true);
        // Each element of the chunk, in the chunk's C order, at chunk.offset + position * size.
        const local = split.chunkShape.map(() => 0);
        const count = split.chunkShape.reduce((a, b) => a * b, 1);
        for (let position = 0; position < count; position++) {
          const global = local.map((l, d) => chunk.index[d]! * split.chunkShape[d]! + l);
          if (global.every((g, d) => g < dims[d]!)) {
            const flat = global.reduce((acc, g, d) => acc * dims[d]! + g, 0);
            expect(chunk.offset + position * size).toBe(flat * size);
            seen[flat]! += 1;
          }
          for (let d = local.length - 1; d >= 0; d--) {
            local[d]! += 1;
            if (local[d]! < split.chunkShape[d]!) break;
            local[d] = 0;
          }
        }
      }
      expect([...seen].every((n) => n === 1)).toBe(true);
    }), { numRuns: RUNS });
  });
});
