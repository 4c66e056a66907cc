// floe.lzf (h5py's LZF filter, 32000): what Floe encodes decodes to the input (the h5py fixture in
// test/txn/hdf5-scan.test.ts checks decoding what liblzf wrote); damaged or hostile streams are a
// FloeError, never a raw exception, and never decode past the decode's limit.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { compressibleBytes } from '../support/compressible-bytes.ts';
import { isFloeError } from '../../src/errors.ts';
import { lzfCodec, lzfDecode, lzfEncode } from '../../src/format/codecs/lzf.ts';

const RUNS = Number(process.env['FLOE_LZF_PROPERTY_RUNS'] ?? 100);

/** Bytes with runs and repeats (what the coder finds matches in) as well as noise. */
const data = compressibleBytes({ maxParts: 10, maxRun: 3000, maxRepeats: 300 });

it('round-trips, and compresses runs', () => {
  fc.assert(fc.property(data, (input) => {
    const encoded = lzfEncode(input);
    expect(Buffer.from(lzfDecode(encoded)).equals(input)).toBe(true);
    expect(Buffer.from(lzfCodec().decode(encoded, { maxBytes: input.length })).equals(input)).toBe(true);
  }), { numRuns: RUNS });
  expect(lzfEncode(new Uint8Array(10_000).fill(7)).length).toBeLessThan(200);
});

it('known streams: a literal run, a short and a long back reference', () => {
  // "abc" literal, then 5 bytes 3 back ("abcab"), then 12 bytes 1 back (a run of 'b').
  const stream = Uint8Array.of(2, 97, 98, 99, (3 << 5) | 0, 2, (7 << 5) | 0, 12 - 2 - 7, 0);
  expect(new TextDecoder().decode(lzfDecode(stream))).toBe('abcabcab' + 'b'.repeat(12));
});

it('damaged or hostile streams are a FloeError within the limit', () => {
  fc.assert(fc.property(data, fc.uint8Array({ maxLength: 64 }), fc.nat(), (input, noise, at) => {
    const encoded = lzfEncode(input);
    const damaged = Uint8Array.from(encoded);
    noise.forEach((b, i) => { if (damaged.length > 0) damaged[(at + i * 7) % damaged.length] = b; });
    for (const stream of [damaged, encoded.subarray(0, at % (encoded.length + 1)), noise]) {
      try {
        const out = lzfCodec().decode(stream, { maxBytes: 4096 });
        expect(out.length).toBeLessThanOrEqual(4096);
      } catch (err) {
        expect(isFloeError(err), String(err)).toBe(true);
      }
    }
  }), { numRuns: RUNS });
  // A reference before the start of the output.
  expect(() => lzfCodec().decode(Uint8Array.of(0, 1, (1 << 5) | 0, 5))).toThrow(expect.objectContaining({ code: 'CORRUPT_OBJECT' }) as Error);
});
