import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { decodeFlexValue } from '../../../src/format/icechunk/flexbuffers-reader.ts';
import { FlexType } from '../../../src/format/icechunk/flexbuffers-types.ts';
import { encodeFlexValue } from '../../../src/format/icechunk/flexbuffers-writer.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (...xs: number[]) => Uint8Array.from(xs);
/** The packed type byte of the root (second to last byte). */
const rootType = (b: Uint8Array) => b[b.length - 2]! >> 2;

describe('FlexBuffers writer', () => {
  it('lays out a map as the reference does', () => {
    // key, keys vector (len 1, offset 9), map (keys offset, key width, len, true, Bool type), root.
    expect(hex(encodeFlexValue({ is_root: true }))).toBe('69735f726f6f740001090101010168022401');
  });

  it('writes 64-bit integers and doubles inside vectors and maps', () => {
    const value = { big: 2n ** 63n + 5n, neg: -(2n ** 62n), float: 0.1, list: [1, 2 ** 40, -3, 0.5], nested: { x: [Number.MAX_SAFE_INTEGER, -1e300] } };
    expect(decodeFlexValue(encodeFlexValue(value))).toEqual(value);
  });

  it('keeps non-negative integers unsigned and narrows only exact floats', () => {
    expect(rootType(encodeFlexValue(7))).toBe(FlexType.UInt);
    expect(rootType(encodeFlexValue(-7))).toBe(FlexType.Int);
    expect(encodeFlexValue(1.5).at(-1)).toBe(4);
    expect(encodeFlexValue(0.1).at(-1)).toBe(8);
    expect(decodeFlexValue(encodeFlexValue(1e-30))).toBe(1e-30);
    expect(Object.is(decodeFlexValue(encodeFlexValue(-0)), -0)).toBe(true);
  });

  it('chooses typed, fixed typed and untyped vectors', () => {
    const typeOf = (v: unknown[]) => encodeFlexValue(v as never).at(-2)! >> 2;
    expect(typeOf([1, 2])).toBe(FlexType.VectorUInt2);
    expect(typeOf([-1, 2, 3])).toBe(FlexType.Vector);
    expect(typeOf([-1, -2, -3])).toBe(FlexType.VectorInt3);
    expect(typeOf([0.5, 1.5, 2.5, 3.5])).toBe(FlexType.VectorFloat4);
    expect(typeOf([1, 2, 3, 4, 5])).toBe(FlexType.VectorUInt);
    expect(typeOf([true, false])).toBe(FlexType.VectorBool);
    expect(typeOf(['a', 'b'])).toBe(FlexType.Vector);
    expect(typeOf([])).toBe(FlexType.Vector);
    for (const v of [[1, 2], [-1, -2, -3], [0.5, 1.5, 2.5, 3.5], [1, 2, 3, 4, 5], [true, false], ['a', 'b'], [], [null, null]]) {
      expect(decodeFlexValue(encodeFlexValue(v))).toEqual(v);
    }
  });

  it('writes blobs, pools keys, sorts map keys by bytes and refuses NUL in keys', () => {
    expect(decodeFlexValue(encodeFlexValue({ b: bytes(1, 2, 3) }))).toEqual({ b: bytes(1, 2, 3) });
    const shared = encodeFlexValue([{ name: 1 }, { name: 2 }]);
    expect(Buffer.from(shared).toString('latin1').split('name').length - 1).toBe(1);
    expect(Object.keys(decodeFlexValue(encodeFlexValue({ b: 1, a: 2 }, { sortKeys: true })) as object)).toEqual(['a', 'b']);
    expect(() => encodeFlexValue({ 'a\0b': 1 })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }) as Error);
    expect(() => encodeFlexValue(2n ** 64n)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }) as Error);
  });

  it('decodes map keys in the order the writer pushed them', () => {
    const value = { z: 'later', a: { y: 1 }, m: null };
    expect(Object.keys(decodeFlexValue(encodeFlexValue(value)) as object)).toEqual(['z', 'a', 'm']);
    expect(decodeFlexValue(encodeFlexValue({ ['__proto__']: 1 } as never))).toEqual(JSON.parse('{"__proto__":1}'));
  });

  it('keeps the order of an empty map, vector or blob before a key that sorts first', () => {
    // The empty value ends where the next key starts: the two anchors tie.
    for (const empty of [{}, [], new Uint8Array(0)]) {
      const value = { z: empty, a: null, y: 1 };
      const decoded = decodeFlexValue(encodeFlexValue(value));
      expect(Object.keys(decoded as object)).toEqual(['z', 'a', 'y']);
      expect(hex(encodeFlexValue(decoded))).toBe(hex(encodeFlexValue(value)));
    }
  });
});

describe('FlexBuffers reader', () => {
  it('reads indirect scalars and keys that writers other than ours produce', () => {
    // int16 1000, then a root offset 2 with type IndirectInt/16-bit.
    expect(decodeFlexValue(bytes(0xe8, 0x03, 0x02, (FlexType.IndirectInt << 2) | 1, 1))).toBe(1000);
    expect(decodeFlexValue(bytes(0x00, 0x00, 0xc0, 0x3f, 0x04, (FlexType.IndirectFloat << 2) | 2, 1))).toBe(1.5);
    expect(decodeFlexValue(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x08, (FlexType.IndirectUInt << 2) | 3, 1))).toBe(2n ** 64n - 1n);
    expect(decodeFlexValue(bytes(0x6b, 0x00, 0x02, FlexType.Key << 2, 1))).toBe('k');
    // A deprecated VectorString of one string "s" (length 1), offsets 8-bit.
    expect(decodeFlexValue(bytes(0x01, 0x73, 0x00, 0x01, 0x03, 0x01, (FlexType.VectorString << 2) | 0, 1))).toEqual(['s']);
  });

  it('fails damaged input with CORRUPT_OBJECT', () => {
    const forgedLength = bytes(0xff, 0x01, 0x02, FlexType.Vector << 2, 1);
    // A one-element vector whose element (offset 0) is the vector itself.
    const selfLoop = bytes(0x01, 0x00, FlexType.Vector << 2, 0x02, FlexType.Vector << 2, 1);
    for (const bad of [bytes(), bytes(1, 2), bytes(0, 0, 3), bytes(0x09, 0x01, 0x03), forgedLength, selfLoop, bytes(0x05, FlexType.Float << 2, 1)]) {
      let error: unknown;
      try {
        decodeFlexValue(bad);
      } catch (err) {
        error = err;
      }
      expect(isFloeError(error, 'CORRUPT_OBJECT'), `${hex(bad)} → ${String(error)}`).toBe(true);
    }
  });
});
