// Fill values in every JSON form the spec allows (numbers, "NaN"/"Infinity"/"-Infinity", hex bit
// patterns "0x7fc00001", [re, im] pairs, byte arrays, strings, bigint-exact 64-bit integers), each
// with the model's memory bytes so a reader can be checked bit for bit.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { FillValueInput } from '../../format/zarr/fill-value.ts';
import { floatFromBits, halfBitsToFloatBits, quietHalf } from '../model/float-bits.ts';
import { F32_SPECIAL, F64_SPECIAL, STRINGS } from './chunk-data.ts';
import { intBounds, intMemory, type TestDataType } from './data-types.ts';

/** A generated fill value: as written in zarr.json, and one element's memory bytes. */
export interface Fill {
  /** The fill value as written in zarr.json (bigint where a 64-bit integer needs it). */
  readonly json: FillValueInput;
  /** One element's memory bytes, or a one-string array. */
  readonly memory: Uint8Array | readonly string[];
}

/** Options of {@link fillValueArb}: which JSON forms to draw. */
export interface FillOptions {
  /** Hex bit-pattern strings for floats ("0x7fc00001"); default true. */
  readonly hexFloats?: boolean;
  /** Integer fills only within ±2^53 (readers that parse JSON into doubles); default false. */
  readonly safeIntegers?: boolean;
}

const hex = (v: bigint, digits: number): string => '0x' + v.toString(16).padStart(digits, '0');

/** One float lane's fill: [json form, memory bytes of the lane]. */
function floatFillLane(width: 2 | 4 | 8, options: FillOptions): Arbitrary<[FillValueInput, Uint8Array]> {
  const lane = (write: (v: DataView) => void): Uint8Array => {
    const out = new Uint8Array(width === 2 ? 4 : width);
    write(new DataView(out.buffer));
    return out;
  };
  const nanBits = width === 2 ? halfBitsToFloatBits(0x7e00) : width === 4 ? 0x7fc00000 : undefined;
  const named = fc.constantFrom('NaN', 'Infinity', '-Infinity').map((s): [FillValueInput, Uint8Array] => [s, lane((v) => {
    if (s === 'NaN' && nanBits !== undefined) v.setUint32(0, nanBits, true);
    else if (s === 'NaN') v.setBigUint64(0, 0x7ff8000000000000n, true);
    else if (width === 8) v.setFloat64(0, Number(s), true);
    else v.setFloat32(0, Number(s), true);
  })]);
  const withHex = (number: Arbitrary<[FillValueInput, Uint8Array]>, hexForm: Arbitrary<[FillValueInput, Uint8Array]>) =>
    options.hexFloats === false ? fc.oneof(number, named) : fc.oneof(number, named, hexForm);
  if (width === 2) {
    // Finite halves: every pattern whose exponent is not all ones (mapped, not filtered, so it shrinks to 0).
    const finite = fc.integer({ min: 0, max: 0xffff - 0x0800 }).map((h) => (h >= 0x7c00 ? h + 0x0400 : h));
    return withHex(
      finite.map((h): [FillValueInput, Uint8Array] => [floatFromBits(halfBitsToFloatBits(h)), lane((v) => v.setUint32(0, halfBitsToFloatBits(h), true))]),
      fc.integer({ min: 0, max: 0xffff }).map((h) => quietHalf(h)).map((h): [FillValueInput, Uint8Array] => [hex(BigInt(h), 4), lane((v) => v.setUint32(0, halfBitsToFloatBits(h), true))]),
    );
  }
  if (width === 4) {
    return withHex(
      fc.double({ noNaN: true }).map((x): [FillValueInput, Uint8Array] => [x, lane((v) => v.setFloat32(0, x, true))]),
      fc.oneof(fc.constantFrom(...F32_SPECIAL), fc.integer({ min: 0, max: 0xffffffff })).map((b): [FillValueInput, Uint8Array] => [hex(BigInt(b), 8), lane((v) => v.setUint32(0, b, true))]),
    );
  }
  return withHex(
    fc.double({ noNaN: true }).map((x): [FillValueInput, Uint8Array] => [x, lane((v) => v.setFloat64(0, x, true))]),
    fc.oneof(fc.constantFrom(...F64_SPECIAL), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })).map((b): [FillValueInput, Uint8Array] => [hex(b, 16), lane((v) => v.setBigUint64(0, b, true))]),
  );
}

/** A fill value of data type `d` in any of its JSON forms, with its memory bytes. */
export function fillValueArb(d: TestDataType, options: FillOptions = {}): Arbitrary<Fill> {
  switch (d.kind) {
    case 'bool':
      return fc.boolean().map((b) => ({ json: b, memory: Uint8Array.of(b ? 1 : 0) }));
    case 'int':
    case 'uint': {
      const [lo, hi] = intBounds(d.name);
      const safe = BigInt(Number.MAX_SAFE_INTEGER);
      const [min, max] = options.safeIntegers ? [lo < -safe ? -safe : lo, hi > safe ? safe : hi] : [lo, hi];
      return fc.oneof(fc.bigInt({ min, max }), fc.constantFrom(min, max, 0n)).map((v) => ({
        json: Number.isSafeInteger(Number(v)) ? Number(v) : v,
        memory: intMemory(d.name, v),
      }));
    }
    case 'float': {
      const width = d.name === 'float16' ? 2 : (d.laneBytes as 4 | 8);
      return floatFillLane(width, options).map(([json, memory]) => ({ json, memory }));
    }
    case 'complex':
      return fc.tuple(floatFillLane(d.laneBytes as 4 | 8, options), floatFillLane(d.laneBytes as 4 | 8, options)).map(([a, b]) => {
        const memory = new Uint8Array(d.memBytes);
        memory.set(a[1], 0);
        memory.set(b[1], d.laneBytes);
        return { json: [a[0], b[0]] as FillValueInput, memory };
      });
    case 'raw':
      return fc.uint8Array({ minLength: d.memBytes, maxLength: d.memBytes }).map((b) => ({ json: Array.from(b), memory: b }));
    case 'string':
      return fc.oneof(fc.constantFrom(...STRINGS), fc.string({ maxLength: 5 })).map((s) => ({ json: s, memory: [s] }));
  }
}
