// Both LZ4 backends (lz4-napi, Floe's TypeScript) against each other and against the format's
// limits: what one encodes the other decodes to the input, in numcodecs' framing and inside Blosc;
// a damaged block or a size field that lies never yields more than the expected size.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { compressibleBytes } from '../support/compressible-bytes.ts';
import { isFloeError } from '../../src/errors.ts';
import { loadLz4Backend, lz4NapiAvailable } from '../../src/format/codecs/lz4-backend.ts';
import { allCodecImplementations, createZarrV3BytesCodec } from '../../src/format/codecs/registry.ts';
import { LZ4_BACKENDS, describeEachLz4Backend } from '../support/lz4.ts';

// numcodecs.lz4 loads on first use (registry.ts); this test builds codecs synchronously.
await allCodecImplementations();

const RUNS = Number(process.env['FLOE_LZ4_PROPERTY_RUNS'] ?? 60);

/** Bytes with runs and repeats (what the coder finds matches in) as well as noise. */
const data = compressibleBytes({ maxParts: 12, maxRun: 2000, maxRepeats: 200 });

const available = LZ4_BACKENDS.filter((b) => b.available).map((b) => loadLz4Backend(b.which));

it('every available backend decodes what every backend encodes, framed and as a bare block', () => {
  fc.assert(fc.property(data, (input) => {
    for (const enc of available) {
      const framed = enc.encodeFramed(input);
      expect(new DataView(framed.buffer, framed.byteOffset).getUint32(0, true)).toBe(input.length);
      for (const dec of available) {
        const out = new Uint8Array(input.length);
        expect(dec.decodeFramed(framed, out), `${enc.name} -> ${dec.name}`).toBe(input.length);
        expect(Buffer.from(out).equals(Buffer.from(input))).toBe(true);
        expect(dec.decodeBlock(framed.subarray(4), new Uint8Array(input.length))).toBe(input.length);
        const fresh = dec.decodeFramedNew(framed, input.length);
        expect(fresh && Buffer.from(fresh).equals(Buffer.from(input))).toBe(true);
      }
    }
  }), { numRuns: RUNS });
});

// A backend reports the bytes it wrote (or -1); callers compare that with the size they expect.
it('a block decoded into the wrong size never reports filling it', () => {
  fc.assert(fc.property(data.filter((d) => d.length > 0), fc.integer({ min: 1, max: 64 }), (input, delta) => {
    for (const enc of available) {
      const block = enc.encodeFramed(input).subarray(4);
      for (const dec of available) {
        const larger = input.length + delta;
        expect(dec.decodeBlock(block, new Uint8Array(larger)), `${dec.name} larger`).not.toBe(larger);
        const smaller = Math.max(0, input.length - delta);
        expect(dec.decodeBlock(block, new Uint8Array(smaller)), `${dec.name} smaller`).not.toBe(smaller);
      }
    }
  }), { numRuns: RUNS });
});

it('damaged blocks decode to -1 or to at most the expected size, never past it', () => {
  fc.assert(fc.property(data.filter((d) => d.length > 8), fc.integer({ min: 0, max: 1 << 30 }), fc.integer({ min: 1, max: 255 }), (input, at, x) => {
    const block = Uint8Array.from(loadLz4Backend('js').encodeFramed(input).subarray(4));
    const i = at % block.length;
    block[i] = (block[i] ?? 0) ^ x;
    for (const dec of available) {
      const out = new Uint8Array(input.length);
      const n = dec.decodeBlock(block, out);
      expect(n >= -1 && n <= input.length, `${dec.name} gave ${n}`).toBe(true);
    }
  }), { numRuns: RUNS });
});

describeEachLz4Backend('numcodecs.lz4 and blosc-lz4 through the registry', () => {
  it('round-trip and refuse a size past maxBytes before decoding', () => {
    const lz4 = createZarrV3BytesCodec('numcodecs.lz4', { acceleration: 1 }, { itemSize: 1 });
    const blosc = createZarrV3BytesCodec('blosc', { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 }, { itemSize: 4 });
    fc.assert(fc.property(data, (input) => {
      for (const codec of [lz4, blosc]) {
        const encoded = codec.encode(input);
        expect(Buffer.from(codec.decode(encoded, { maxBytes: input.length })).equals(Buffer.from(input))).toBe(true);
        if (input.length > 0) {
          let error: unknown;
          try {
            codec.decode(encoded, { maxBytes: input.length - 1 });
          } catch (err) {
            error = err;
          }
          expect(isFloeError(error) && error.code, codec.name).toBe('LIMIT_EXCEEDED');
        }
      }
    }), { numRuns: RUNS });
  });
});

it.runIf(lz4NapiAvailable())('lz4-napi stops at a size field that understates the block (a bomb)', () => {
  const napi = loadLz4Backend('napi');
  const framed = Uint8Array.from(napi.encodeFramed(new Uint8Array(8 << 20)));
  new DataView(framed.buffer).setUint32(0, 1 << 20, true);
  expect(napi.decodeFramedNew(framed, 1 << 20)).toBeUndefined();
  expect(napi.decodeFramed(framed, new Uint8Array(1 << 20))).toBe(-1);
});
