// Issue 17, stage 2: decompression bombs. A ~130 KB gzip or zlib stream of zeros inflates to
// 128 MiB (a bz2 one is ~100 bytes); decoded with maxBytes it must be refused with LIMIT_EXCEEDED
// (naming the codec and the limit), gzip and zlib on both deflate backends, without the process
// first allocating the bomb's output. The
// registry property test checks the limit's exactness on the runtime's backend only, so it is
// checked here for the fflate fallback too (and across gzip member boundaries).
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError, type FloeError } from '../../src/errors.ts';
import { nodeZlibBackend, type DeflateBackend } from '../../src/format/codecs/deflate-backend.ts';
import { bz2Compressor } from '../../src/format/codecs/bz2.ts';
import { fflateBackend } from '../../src/format/codecs/fflate-backend.ts';
import { gzipCodecOn } from '../../src/format/codecs/gzip.ts';
import { zlibCompressor } from '../../src/format/codecs/zlib.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';

const MiB = 2 ** 20;
const BOMB_BYTES = 128 * MiB;
const LIMIT = MiB;
/** RSS growth allowed during a refused decode: far below the bomb's 128 MiB. */
const RSS_ALLOWANCE = 64 * MiB;

const BACKENDS: readonly DeflateBackend[] = [nodeZlibBackend(zlib), fflateBackend];

// Built once at load: the 128 MiB of zeros is garbage long before the RSS measurements (which
// only compare the process with itself around one refused decode).
const zeros = (): Buffer => Buffer.alloc(BOMB_BYTES);
const gzipBomb = zlib.gzipSync(zeros(), { level: 9 });
const zlibBomb = zlib.deflateSync(zeros(), { level: 9 });
const bz2 = bz2Compressor(9);
const bz2Bomb = bz2.encode(zeros());

interface Case {
  readonly label: string;
  readonly codecName: string;
  readonly build: (backend: DeflateBackend) => BytesToBytesCodec;
  readonly bomb: Uint8Array;
}
const CASES: readonly Case[] = [
  { label: 'v3 gzip', codecName: 'gzip', build: (b) => gzipCodecOn(b)({ level: 1 }, { itemSize: 1 }), bomb: gzipBomb },
  { label: 'v1 zlib', codecName: 'zlib', build: (b) => zlibCompressor('zlib', 1, b), bomb: zlibBomb },
  // v1's gzip alias reads gzip headers too (the backend sniffs them).
  { label: 'v1 gzip alias', codecName: 'gzip', build: (b) => zlibCompressor('gzip', 1, b), bomb: gzipBomb },
];

function errorOf(run: () => unknown): FloeError {
  try {
    run();
  } catch (err) {
    if (isFloeError(err)) return err;
    throw new Error(`expected a FloeError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected the decode to be refused');
}

describe('decompression bombs', () => {
  it('are small and inflate past 100 MiB', () => {
    for (const data of [gzipBomb, zlibBomb]) expect(data.length).toBeLessThan(200_000);
    expect(zlib.gunzipSync(gzipBomb).length).toBe(BOMB_BYTES);
    expect(zlib.inflateSync(zlibBomb).length).toBe(BOMB_BYTES);
    expect(bz2Bomb.length).toBeLessThan(1000);
  });

  it('bz2 refuses its bomb at maxBytes = 1 MiB without decoding it', () => {
    const before = process.memoryUsage().rss;
    const err = errorOf(() => bz2.decode(bz2Bomb, { maxBytes: LIMIT }));
    const growth = process.memoryUsage().rss - before;
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect(err.message).toContain('bz2:');
    expect(err.message).toContain(String(LIMIT));
    expect(growth).toBeLessThan(RSS_ALLOWANCE);
  });

  describe.each(BACKENDS.map((b) => [b.name, b] as const))('on %s', (_name, backend) => {
    it.each(CASES.map((c) => [c.label, c] as const))('%s refuses the bomb at maxBytes = 1 MiB without inflating it', (_label, c) => {
      const codec = c.build(backend);
      const before = process.memoryUsage().rss;
      const err = errorOf(() => codec.decode(c.bomb, { maxBytes: LIMIT }));
      const growth = process.memoryUsage().rss - before;
      expect(err.code).toBe('LIMIT_EXCEEDED');
      expect(err.message).toContain(`${c.codecName}:`);
      expect(err.message).toContain(String(LIMIT));
      expect(growth).toBeLessThan(RSS_ALLOWANCE);
    });
  });
});

describe.each(BACKENDS.map((b) => [b.name, b] as const))('bounded decode on %s', (_name, backend) => {
  const chunks = fc.uint8Array({ maxLength: 3000 });
  /** Zeros mixed with bytes: long runs make slices inflate far past their input size. */
  const data = fc.oneof(chunks, fc.integer({ min: 0, max: 3 * MiB }).map((n) => new Uint8Array(n)));

  it.each(CASES.map((c) => [c.label, c] as const))('%s decodes at maxBytes = n and refuses at n - 1', (_label, c) => {
    fc.assert(
      fc.property(data, (bytes) => {
        const codec = c.build(backend);
        const encoded = codec.encode(bytes);
        expect(codec.decode(encoded, { maxBytes: bytes.length }).length).toBe(bytes.length);
        if (bytes.length > 0) expect(() => codec.decode(encoded, { maxBytes: bytes.length - 1 })).toThrow(/limit/);
      }),
      { numRuns: 25 },
    );
  });

  it('counts the output of every gzip member against the limit', () => {
    fc.assert(
      fc.property(fc.array(chunks, { minLength: 2, maxLength: 4 }), (members) => {
        const stream = Buffer.concat(members.map((m) => zlib.gzipSync(m)));
        const total = members.reduce((n, m) => n + m.length, 0);
        const codec = gzipCodecOn(backend)({ level: 1 }, { itemSize: 1 });
        expect(codec.decode(stream, { maxBytes: total }).length).toBe(total);
        if (total > 0) expect(errorOf(() => codec.decode(stream, { maxBytes: total - 1 })).code).toBe('LIMIT_EXCEEDED');
      }),
      { numRuns: 25 },
    );
  });
});
