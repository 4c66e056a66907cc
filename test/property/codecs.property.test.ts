// Round trips for every bytes->bytes codec over its configuration space, and damaged inputs:
// decoding either throws a FloeError of a decoding kind or (codecs without integrity checks)
// returns something; never a foreign error, never a hang.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { allCodecImplementations, createZarrV3BytesCodec, createZarrV1Compressor } from '../../src/format/codecs/registry.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';
import { zstdDecode, ZstdDataError, type ZstdBackend } from '../../src/format/codecs/zstd-backend.ts';
import { concatBytes, describeEachZstdBackend, withoutContentSize, ZSTD_PAIRS } from '../support/zstd.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const RUNS = 200;

/** Random bytes, or runs and repeats that give the LZ coders matches to find. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 400 })), { maxLength: 40 })
    .map((runs) => Uint8Array.from(runs.flatMap(([b, n]) => Array<number>(n).fill(b)))),
  fc
    .tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 200 }))
    .map(([unit, times]) => Uint8Array.from({ length: unit.length * times }, (_, i) => unit[i % unit.length]!)),
);

const itemSize = fc.constantFrom(1, 2, 4, 8);

const codecs: Record<string, fc.Arbitrary<{ codec: BytesToBytesCodec; checked: boolean }>> = {
  blosc: fc
    .record({
      cname: fc.constantFrom('blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'),
      clevel: fc.integer({ min: 0, max: 9 }),
      shuffle: fc.constantFrom('noshuffle', 'shuffle', 'bitshuffle'),
      typesize: fc.integer({ min: 1, max: 20 }),
      blocksize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4096 })),
    })
    .chain((config) => itemSize.map((n) => ({ codec: createZarrV3BytesCodec('blosc', config, { itemSize: n }), checked: false }))),
  gzip: fc.integer({ min: 0, max: 9 }).map((level) => ({ codec: createZarrV3BytesCodec('gzip', { level }, { itemSize: 1 }), checked: false })),
  zstd: fc
    .record({ level: fc.integer({ min: -5, max: 19 }), checksum: fc.boolean() })
    .map((config) => ({ codec: createZarrV3BytesCodec('zstd', config, { itemSize: 1 }), checked: false })),
  crc32c: fc.constant(null).map(() => ({ codec: createZarrV3BytesCodec('crc32c', undefined, { itemSize: 1 }), checked: true })),
  zlib: fc.integer({ min: -1, max: 9 }).map((level) => ({ codec: createZarrV1Compressor('zlib', level, { itemSize: 1 }), checked: false })),
  bz2: fc.integer({ min: 1, max: 9 }).map((level) => ({ codec: createZarrV1Compressor('bz2', level, { itemSize: 1 }), checked: false })),
  lzma: fc
    .constantFrom<unknown>(null, { format: 1 }, { format: 2 }, { format: 0 }, { format: 3, filters: [{ id: 33, preset: 9 }] })
    .map((opts) => ({ codec: createZarrV1Compressor('lzma', opts, { itemSize: 1 }), checked: false })),
  'v1 blosc': fc
    .record({ cname: fc.constantFrom('blosclz', 'lz4', 'snappy'), clevel: fc.integer({ min: 0, max: 9 }), shuffle: fc.integer({ min: -1, max: 2 }) })
    .chain((opts) => itemSize.map((n) => ({ codec: createZarrV1Compressor('blosc', opts, { itemSize: n }), checked: false }))),
};

/** A damaged copy: truncated, or with 1-3 bytes overwritten. */
const damage = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('flip' as const),
    edits: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }),
  }),
);

type Damage = { kind: 'truncate'; at: number } | { kind: 'flip'; edits: [number, number][] };

function applyDamage(encoded: Uint8Array, d: Damage): Uint8Array {
  if (d.kind === 'truncate') return encoded.slice(0, Math.floor(d.at * encoded.length));
  const copy = encoded.slice();
  for (const [where, xor] of d.edits) {
    const i = Math.floor(where * copy.length);
    if (i < copy.length) copy[i] = copy[i]! ^ xor; // where is in [0, 1): i < length unless the copy is empty
  }
  return copy;
}

/** The properties every codec keeps. */
function codecProperties(name: string): void {
  it('round-trips every configuration', () => {
    fc.assert(
      fc.property(codecs[name]!, bytes, ({ codec }, data) => {
        const decoded = codec.decode(codec.encode(data));
        expect(Buffer.from(decoded).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('damaged input throws a decoding FloeError or, without integrity checks, returns', () => {
    fc.assert(
      fc.property(codecs[name]!, bytes, damage, ({ codec, checked }, data, d) => {
        const encoded = codec.encode(data);
        const bad = applyDamage(encoded, d);
        if (Buffer.from(bad).equals(Buffer.from(encoded))) return;
        try {
          codec.decode(bad);
        } catch (err) {
          if (!isFloeError(err, 'CORRUPT_OBJECT', 'CHECKSUM_MISMATCH', 'UNSUPPORTED')) throw err;
          return;
        }
        expect(checked, 'a checked codec accepted damaged input').toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
}

// zstd and blosc (zstd blocks) run once per zstd backend; the other codecs once.
for (const name of Object.keys(codecs)) {
  if (name === 'zstd' || name === 'blosc') describeEachZstdBackend(name, () => codecProperties(name));
  else describe(name, () => codecProperties(name));
}

describe.skipIf(ZSTD_PAIRS.length === 0)('zstd across backends', () => {
  const pairs = fc.constantFrom(...ZSTD_PAIRS).map(([, encoder, decoder]) => ({ encoder, decoder }));
  const frames = fc.array(
    fc.record({ data: bytes, level: fc.integer({ min: -20, max: 12 }), checksum: fc.boolean(), sized: fc.boolean() }),
    { minLength: 1, maxLength: 3 },
  );

  it('whatever one backend encodes, the other decodes: levels, checksums, several frames, unsized frames', () => {
    fc.assert(
      fc.property(pairs, frames, ({ encoder, decoder }, parts) => {
        const encoded = concatBytes(
          ...parts.map(({ data, level, checksum, sized }) => {
            const frame = encoder.compress(data, level, checksum);
            return sized ? frame : withoutContentSize(frame, data.length);
          }),
        );
        const decoded = zstdDecode(encoded, { maxBytes: 1 << 24, backend: decoder });
        expect(Buffer.from(decoded).equals(Buffer.from(concatBytes(...parts.map((p) => p.data))))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('damage is refused by both backends alike, never with a foreign error', () => {
    fc.assert(
      fc.property(pairs, bytes, fc.boolean(), damage, ({ encoder, decoder }, data, sized, d) => {
        const frame = encoder.compress(data, 3, true);
        const encoded = sized ? frame : withoutContentSize(frame, data.length);
        const bad = applyDamage(encoded, d);
        const outcome = (backend: ZstdBackend): string => {
          try {
            return Buffer.from(zstdDecode(bad, { maxBytes: 1 << 24, backend })).toString('base64');
          } catch (err) {
            if (err instanceof ZstdDataError) return 'refused';
            throw err;
          }
        };
        expect(outcome(decoder)).toBe(outcome(encoder));
      }),
      { numRuns: RUNS },
    );
  });
});
