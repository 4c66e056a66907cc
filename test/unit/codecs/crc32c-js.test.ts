import fc from 'fast-check';
import { crc32c } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import { crc32cJs } from '../../../src/format/codecs/crc32c-js.ts';

describe('plain-JS CRC-32C (the fallback without @node-rs/crc32)', () => {
  it('gives the check values of RFC 3720 (iSCSI) and the CRC catalogue', () => {
    expect(crc32cJs(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32cJs(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32cJs(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32cJs(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32cJs(new Uint8Array(0))).toBe(0);
  });

  it('equals the native CRC-32C on any bytes, at any length and offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 7 }), (bytes, skip) => {
        const view = bytes.subarray(Math.min(skip, bytes.length));
        expect(crc32cJs(view)).toBe(crc32c(view) >>> 0);
      }),
      { numRuns: 500 },
    );
  });
});
