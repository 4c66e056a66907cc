import { describe, expect, it } from 'vitest';
import { decodeMsgpack, encodeMsgpack } from '../../../src/format/icechunk/msgpack.ts';
import { compareNodePaths } from '../../../src/format/icechunk/node-path.ts';
import { decodeFlexbuffer, encodeFlexbuffer, compareUtf8 } from '../../../src/format/icechunk/metadata-value.ts';
import { isFloeError } from '../../../src/errors.ts';

describe('MessagePack metadata', () => {
  it('decodes what rmp-serde wrote and encodes compactly', () => {
    expect(decodeMsgpack(Uint8Array.of(0xc3))).toBe(true);
    const value = { a: [1, -1, 300, -300, 70000, 2 ** 40, 1.5, 'x'.repeat(40), null, false], nested: { k: 'v' } };
    expect(decodeMsgpack(encodeMsgpack(value))).toEqual(value);
    expect(Array.from(encodeMsgpack(300))).toEqual([0xcd, 0x01, 0x2c]);
    expect(decodeMsgpack(Uint8Array.of(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))).toBe(2n ** 64n - 1n);
  });

  it('fails truncated or non-JSON input with typed errors', () => {
    for (const bad of [Uint8Array.of(0xda, 0x00), Uint8Array.of(0x92, 0x01), Uint8Array.of(0xc4, 0x01, 0x00), Uint8Array.of(0x01, 0x02)]) {
      try {
        decodeMsgpack(bad);
        expect.fail('should throw');
      } catch (err) {
        expect(isFloeError(err, 'CORRUPT_OBJECT', 'UNSUPPORTED')).toBe(true);
      }
    }
  });
});

describe('FlexBuffers metadata', () => {
  it('writes {is_root: true} exactly as the reference does', () => {
    expect(Buffer.from(encodeFlexbuffer({ is_root: true })).toString('hex')).toBe('69735f726f6f740001090101010168022401');
    expect(decodeFlexbuffer(encodeFlexbuffer({ a: [1, 'b', null, 2.5] }))).toEqual({ a: [1, 'b', null, 2.5] });
  });
});

describe('orderings', () => {
  it('sorts node paths component-wise', () => {
    const paths = ['/b', '/a-b', '/ab', '/a/b', '/a', '/'];
    expect([...paths].sort(compareNodePaths)).toEqual(['/', '/a', '/a/b', '/a-b', '/ab', '/b']);
  });
  it('sorts names in UTF-8 byte order', () => {
    expect(['\u{1F9CA}', '\uFFFF', 'a'].sort(compareUtf8)).toEqual(['a', '\uFFFF', '\u{1F9CA}']);
  });
});
