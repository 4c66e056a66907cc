// The zstd codec's encodeInto (the path writes take when a worker encodes into the calling
// thread's memory) writes exactly the bytes encode returns, for any input, level and checksum
// flag; it declines (-1) rather than fail when the room given is under zstd's worst case.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createZarrV3BytesCodec } from '../../src/format/codecs/registry.ts';
import { zstdBackend } from '../../src/format/codecs/zstd-backend.ts';

const RUNS = Number(process.env.FLOE_ZSTD_INTO_PROPERTY_RUNS ?? 150);

const input = fc.oneof(
  fc.uint8Array({ maxLength: 5000 }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 32 }), fc.integer({ min: 1, max: 500 }))
    .map(([unit, times]) => Uint8Array.from({ length: unit.length * times }, (_, i) => unit[i % unit.length] ?? 0)),
);
const config = fc.record({ level: fc.integer({ min: -7, max: 22 }), checksum: fc.boolean() });
/** Room for a compressor's worst case, as codec chains size it (pipeline.ts: n + n/8 + 64 KiB). */
const room = (n: number) => n + Math.ceil(n / 8) + 65536;

describe('zstd encodeInto', () => {
  it('writes the bytes encode returns, at any offset of a buffer with room for the worst case', () => {
    fc.assert(
      fc.property(input, config, fc.integer({ min: 0, max: 64 }), (data, conf, offset) => {
        const codec = createZarrV3BytesCodec('zstd', conf, { itemSize: 1 });
        const out = new Uint8Array(offset + room(data.length)).subarray(offset);
        const n = codec.encodeInto?.(data, out) ?? -1;
        if (zstdBackend().name === 'zstd-napi') expect(n).toBeGreaterThan(0);
        if (n >= 0) expect(Buffer.from(out.subarray(0, n)).equals(Buffer.from(codec.encode(data)))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('declines when the room is under the worst case, leaving the caller to encode', () => {
    fc.assert(
      fc.property(input, (data) => {
        const codec = createZarrV3BytesCodec('zstd', { level: 3, checksum: false }, { itemSize: 1 });
        expect(codec.encodeInto?.(data, new Uint8Array(8)) ?? -1).toBe(-1);
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
});
