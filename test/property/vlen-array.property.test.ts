// vlen-array elements (format/numpy/vlen-array.ts) for every element dtype it types: any stored
// bytes of whole items decode to the values a DataView reads from them in the dtype's byte order
// (float16 by the IEEE 754 formula written out here), and encode back to the same bytes (float16
// NaNs aside: NumPy's payload bits have no float32 form that keeps them); bytes that are no whole
// number of items are CORRUPT_OBJECT. Whole arrays: random elements written through `set` read
// back unchanged from `get`, and their stored frames are numcodecs' layout of the same bytes.
// Runs: FLOE_VLEN_ARRAY_PROPERTY_RUNS (default 200; the array property a quarter of it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { StorageStore } from '../../src/engine/store.ts';
import { V2Array } from '../../src/engine/v2-array.ts';
import { isFloeError } from '../../src/errors.ts';
import { decodeVlenElement, encodeVlenElement, vlenArrayElement } from '../../src/format/numpy/vlen-array-codec.ts';
import type { TypedArray } from '../../src/format/zarr/data-types.ts';

const RUNS = Number(process.env.FLOE_VLEN_ARRAY_PROPERTY_RUNS ?? 200);

type Reader = (view: DataView, offset: number, little: boolean) => number | bigint;
/** Per type code: item size, numbers per item, and how one number reads (the oracle). */
const TYPES: Readonly<Record<string, { size: number; lanes: number; read: Reader }>> = {
  b1: { size: 1, lanes: 1, read: (v, o) => v.getUint8(o) },
  i1: { size: 1, lanes: 1, read: (v, o) => v.getInt8(o) },
  u1: { size: 1, lanes: 1, read: (v, o) => v.getUint8(o) },
  i2: { size: 2, lanes: 1, read: (v, o, l) => v.getInt16(o, l) },
  u2: { size: 2, lanes: 1, read: (v, o, l) => v.getUint16(o, l) },
  i4: { size: 4, lanes: 1, read: (v, o, l) => v.getInt32(o, l) },
  u4: { size: 4, lanes: 1, read: (v, o, l) => v.getUint32(o, l) },
  i8: { size: 8, lanes: 1, read: (v, o, l) => v.getBigInt64(o, l) },
  u8: { size: 8, lanes: 1, read: (v, o, l) => v.getBigUint64(o, l) },
  f2: { size: 2, lanes: 1, read: (v, o, l) => half(v.getUint16(o, l)) },
  f4: { size: 4, lanes: 1, read: (v, o, l) => v.getFloat32(o, l) },
  f8: { size: 8, lanes: 1, read: (v, o, l) => v.getFloat64(o, l) },
  c8: { size: 8, lanes: 2, read: (v, o, l) => v.getFloat32(o, l) },
  c16: { size: 16, lanes: 2, read: (v, o, l) => v.getFloat64(o, l) },
  'M8[ns]': { size: 8, lanes: 1, read: (v, o, l) => v.getBigInt64(o, l) },
  'm8[10s]': { size: 8, lanes: 1, read: (v, o, l) => v.getBigInt64(o, l) },
  S3: { size: 3, lanes: 3, read: (v, o) => v.getUint8(o) },
  V5: { size: 5, lanes: 5, read: (v, o) => v.getUint8(o) },
};

/** IEEE 754 binary16, from its definition. */
function half(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
const isHalfNaN = (bits: number) => (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;

const ORDERED = (code: string) => TYPES[code]!.size > 1 && !/^[SV]/.test(code);
const dtypeArb = fc.constantFrom(...Object.keys(TYPES)).chain((code) =>
  (ORDERED(code) ? fc.constantFrom('<', '>') : fc.constant('|')).map((order) => ({ code, typestr: order + code })),
);

/** Stored bytes of `items` whole items (float16 NaNs excluded, see above). */
const bytesArb = (code: string) => fc.nat({ max: 6 }).chain((items) => fc.uint8Array({ minLength: items * TYPES[code]!.size, maxLength: items * TYPES[code]!.size }))
  .filter((b) => code !== 'f2' || !halves(b).some(isHalfNaN));
const halves = (b: Uint8Array) => Array.from({ length: b.length / 2 }, (_, i) => b[2 * i]! | (b[2 * i + 1]! << 8)).concat(Array.from({ length: b.length / 2 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!));

/** What the oracle reads from stored bytes: every number of every item, in order. */
function expected(code: string, little: boolean, bytes: Uint8Array): (number | bigint)[] {
  const { size, lanes, read } = TYPES[code]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: (number | bigint)[] = [];
  for (let at = 0; at < bytes.length; at += size) for (let k = 0; k < lanes; k++) out.push(read(view, at + (k * size) / lanes, little));
  return out;
}

const place = () => ({ index: '[0]', where: 'test' });

describe('vlen-array elements', () => {
  it('stored bytes decode to what the dtype\'s byte order says and encode back to the same bytes', () => {
    fc.assert(
      fc.property(dtypeArb.chain((d) => bytesArb(d.code).map((bytes) => ({ ...d, bytes }))), ({ code, typestr, bytes }) => {
        const element = vlenArrayElement(typestr);
        const values = decodeVlenElement(element, bytes, place);
        expect(Array.from(values as ArrayLike<number | bigint>)).toEqual(expected(code, !typestr.startsWith('>'), bytes));
        expect(encodeVlenElement(element, values, '[0]', 'test')).toEqual(bytes);
      }),
      { numRuns: RUNS },
    );
  });

  it('bytes that are no whole number of items are CORRUPT_OBJECT', () => {
    fc.assert(
      fc.property(dtypeArb.filter((d) => TYPES[d.code]!.size > 1), fc.uint8Array({ maxLength: 40 }), ({ typestr, code }, bytes) => {
        fc.pre(bytes.length % TYPES[code]!.size !== 0);
        let error: unknown;
        try {
          decodeVlenElement(vlenArrayElement(typestr), bytes, place);
        } catch (err) {
          error = err;
        }
        expect(isFloeError(error, 'CORRUPT_OBJECT')).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('random arrays of elements written with set read back unchanged; the chunks hold numcodecs frames of their bytes', async () => {
    const caseArb = dtypeArb.chain((d) => fc.record({
      length: fc.integer({ min: 1, max: 9 }),
      chunk: fc.integer({ min: 1, max: 4 }),
      stored: fc.array(bytesArb(d.code), { minLength: 9, maxLength: 9 }),
    }).map((c) => ({ ...d, ...c })));
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ typestr, length, chunk, stored }) => {
        const store = new StorageStore(new MemoryStorage());
        const array = await V2Array.createAt(store, '/a', { zarrFormat: 2, shape: [length], chunks: [chunk], dtype: '|O', filters: [{ id: 'vlen-array', dtype: typestr }], compressor: null, fillValue: null });
        const element = vlenArrayElement(typestr);
        const values = stored.slice(0, length).map((b) => decodeVlenElement(element, b, place));
        await array.set(undefined, values);
        const back = (await array.get()).data as TypedArray[];
        expect(back.map(memory)).toEqual(values.map(memory));
        expect(back.map((e) => e.constructor)).toEqual(values.map((e) => e.constructor));
        expect(await store.get('a/0')).toEqual(frames(stored.slice(0, Math.min(chunk, length)), chunk));
      }),
      { numRuns: Math.max(1, Math.floor(RUNS / 4)) },
    );
  });
});

const memory = (t: TypedArray) => Buffer.from(t.buffer, t.byteOffset, t.byteLength).toString('hex');

/** numcodecs' framing of a chunk of `n` elements (an edge chunk's missing ones are empty). */
function frames(parts: readonly Uint8Array[], n: number): Uint8Array {
  const all = Array.from({ length: n }, (_, i) => parts[i] ?? new Uint8Array(0));
  const out: number[] = [...u32(n)];
  for (const p of all) out.push(...u32(p.length), ...p);
  return Uint8Array.from(out);
}
const u32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
