// Blosc's snappy streams through snappy-wasm: any input round-trips, and any damaged or made-up
// stream gives -1 or exactly the expected bytes, never an exception and never more than expected.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snappyCompress, snappyDecompress, snappyStatedLength } from '../../src/format/codecs/blosc/snappy.ts';

const RUNS = Number(process.env['FLOE_SNAPPY_PROPERTY_RUNS'] ?? 150);

/** Random bytes, or runs and repeats that give the encoder matches to find. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 5000 }),
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 600 })), { maxLength: 40 })
    .map((runs) => Uint8Array.from(runs.flatMap(([b, n]) => Array<number>(n).fill(b)))),
);

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 128; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
}

function encode(data: Uint8Array): Uint8Array {
  const room = new Uint8Array(32 + data.length + Math.ceil(data.length / 6));
  return room.slice(0, snappyCompress(data, room));
}

describe('snappy streams (snappy-wasm)', () => {
  it('round-trip any input, stating its length', () => {
    fc.assert(
      fc.property(bytes, (data) => {
        const stream = encode(data);
        expect(snappyStatedLength(stream)).toBe(data.length);
        const out = new Uint8Array(data.length);
        expect(snappyDecompress(stream, out)).toBe(data.length);
        expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('decode damaged streams to -1 or to the expected size, without throwing', () => {
    const damaged = fc
      .tuple(bytes, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.nat())
      .map(([data, edits, cut]) => {
        const stream = encode(data);
        for (const [at, value] of edits) stream[at % stream.length] = value;
        return { stream: stream.subarray(0, stream.length - (cut % 3)), size: data.length };
      });
    fc.assert(
      fc.property(damaged, fc.integer({ min: -2, max: 2 }), ({ stream, size }, slack) => {
        const out = new Uint8Array(Math.max(0, size + slack));
        const produced = snappyDecompress(stream, out);
        expect(produced === -1 || produced === out.length).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('decode made-up streams stating the expected size to -1 or to that size, without throwing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 0, max: 4096 }), (body, size) => {
        const stream = Uint8Array.of(...varint(size), ...body);
        expect(snappyStatedLength(stream)).toBe(size);
        const out = new Uint8Array(size);
        const produced = snappyDecompress(stream, out);
        expect(produced === -1 || produced === size).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
