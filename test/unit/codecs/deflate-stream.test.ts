// Issue 31 stage 3a: gzip and zlib decoding through DecompressionStream (deflate-stream.ts), the
// browser build's async decode, run here on Node's own DecompressionStream. decodeAsync must give
// exactly what the synchronous fflate decode gives (bytes, or the same typed error): every
// level, concatenated gzip members (which Chromium's stream refuses), a bomb past the limit
// (refused without inflating it whole), truncated and damaged streams.
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { MIN_STREAM_BYTES, withDecompressionStream, type DecompressionStreamClass } from '../../../src/format/codecs/deflate-stream.ts';
import { fflateBackend } from '../../../src/format/codecs/fflate-backend.ts';
import { pickDeflateBackend } from '../../../src/format/codecs/deflate-backend.ts';
import { gzipCodecOn } from '../../../src/format/codecs/gzip.ts';
import { zlibCompressor } from '../../../src/format/codecs/zlib.ts';
import type { BytesToBytesCodec } from '../../../src/format/codecs/types.ts';
import { compressibleBytes } from '../../support/compressible-bytes.ts';

const Native = DecompressionStream as unknown as DecompressionStreamClass;
const made: string[] = [];
/** Node's stream, counting what it is asked to decode (so the tests know it was used). */
class Counted extends Native {
  constructor(format: 'gzip' | 'deflate') {
    super(format);
    made.push(format);
  }
}
// Every stream through DecompressionStream here, however small (the browser's default leaves
// streams under MIN_STREAM_BYTES to fflate: checked below).
const backend = withDecompressionStream(fflateBackend, Counted, 0);

const CODECS: readonly [string, (level: number) => BytesToBytesCodec][] = [
  ['gzip', (level) => gzipCodecOn(backend)({ level }, { itemSize: 1 })],
  ['zlib', (level) => zlibCompressor('zlib', level, backend)],
];

/** The outcome of a decode as comparable data: the bytes, or the error's code (never a raw error). */
async function outcome(run: () => Uint8Array | Promise<Uint8Array>): Promise<{ bytes: number[] } | { code: string }> {
  try {
    return { bytes: Array.from(await run()) };
  } catch (err) {
    if (!isFloeError(err)) throw err;
    return { code: err.code };
  }
}

describe('gzip and zlib decodeAsync on DecompressionStream', () => {
  it('is what a runtime without node:zlib gets, with decodeAsync on its codecs', async () => {
    const picked = await pickDeflateBackend(() => undefined, Counted);
    expect(picked.streams).toBe('DecompressionStream');
    expect(await pickDeflateBackend(() => undefined, null)).toBe(fflateBackend);
    for (const [, make] of CODECS) expect(make(1).decodeAsync).toBeTypeOf('function');
    expect(gzipCodecOn(fflateBackend)({ level: 1 }, { itemSize: 1 }).decodeAsync).toBeUndefined();
  });

  it('leaves streams under MIN_STREAM_BYTES to the sync decoder, by default', async () => {
    const small = withDecompressionStream(fflateBackend, Counted);
    const before = made.length;
    const tiny = zlib.gzipSync(Buffer.from('tiny'));
    expect(Buffer.from(await small.gunzipAsync!(tiny)).toString()).toBe('tiny');
    expect(made.length).toBe(before);
    const big = new Uint8Array(zlib.deflateSync(randomBytes(4 * MIN_STREAM_BYTES)));
    expect(big.length).toBeGreaterThanOrEqual(MIN_STREAM_BYTES);
    expect((await small.unzipAsync!(big)).length).toBe(4 * MIN_STREAM_BYTES);
    expect(made.length).toBe(before + 1);
  });

  it.each(CODECS)('%s: decodeAsync(encode(x)) equals x and the sync decode, through the stream (property)', async (_name, make) => {
    await fc.assert(
      fc.asyncProperty(compressibleBytes({ maxParts: 12, maxRun: 5000, maxRepeats: 200 }), fc.constantFrom(0, 1, 6, 9), async (x, level) => {
        const codec = make(level);
        const encoded = codec.encode(x);
        const before = made.length;
        const decoded = await codec.decodeAsync!(encoded, { maxBytes: x.length });
        expect(made.length).toBe(before + 1);
        expect(Buffer.from(decoded).equals(Buffer.from(x))).toBe(true);
        expect(Buffer.from(codec.decode(encoded, { maxBytes: x.length })).equals(Buffer.from(decoded))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('reads concatenated gzip members (and a zlib-alias gzip stream) as the sync path does', async () => {
    const a = zlib.gzipSync(Buffer.from('hello ')), b = zlib.gzipSync(Buffer.from('members'));
    const both = new Uint8Array(Buffer.concat([a, b]));
    for (const [, make] of CODECS) {
      const codec = make(1);
      expect(Buffer.from(await codec.decodeAsync!(both)).toString()).toBe('hello members');
      expect(await outcome(() => codec.decodeAsync!(both, { maxBytes: 12 }))).toEqual(await outcome(() => codec.decode(both, { maxBytes: 12 })));
    }
  });

  // Trailing junk after a zlib stream is left to Chromium's test (codecs-chromium): Node's
  // DecompressionStream('deflate') ignores it where Chromium's (and fflate) refuse it.
  it.each(CODECS)('%s: truncated, damaged, empty and trailing-junk streams give the sync path\'s CORRUPT_OBJECT', async (name, make) => {
    const codec = make(6);
    const good = codec.encode(new Uint8Array(Buffer.from('x'.repeat(5000) + 'the end')));
    const flipped = good.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0x55;
    const checksum = good.slice();
    checksum[checksum.length - 6]! ^= 1;
    const junk = name === 'gzip' ? [new Uint8Array([...good, 1, 2, 3, 4])] : [];
    for (const bad of [good.subarray(0, good.length - 3), good.subarray(0, 5), flipped, checksum, new Uint8Array(0), ...junk]) {
      const sync = await outcome(() => codec.decode(bad, { maxBytes: 1 << 20 }));
      expect(sync).toHaveProperty('code');
      expect(await outcome(() => codec.decodeAsync!(bad, { maxBytes: 1 << 20 }))).toEqual(sync);
    }
  });

  it.each(CODECS)('%s: a bomb past maxBytes is refused with the sync path\'s LIMIT_EXCEEDED, quickly', async (name, make) => {
    const codec = make(9);
    // ~64 KB that inflates to 64 MiB (written by node:zlib: fflate takes a second for it).
    const bomb = new Uint8Array((name === 'gzip' ? zlib.gzipSync : zlib.deflateSync)(new Uint8Array(64 << 20), { level: 9 }));
    const started = performance.now();
    const err = await codec.decodeAsync!(bomb, { maxBytes: 1 << 20 }).then(() => undefined, (e: unknown) => e);
    const ms = performance.now() - started;
    expect(isFloeError(err) && err.code).toBe('LIMIT_EXCEEDED');
    expect(isFloeError(err) && err.details).toMatchObject({ kind: 'decoded-bytes', limit: 1 << 20 });
    expect(await outcome(() => codec.decode(bomb, { maxBytes: 1 << 20 }))).toEqual({ code: 'LIMIT_EXCEEDED' });
    expect(ms).toBeLessThan(2000); // stopped at the limit, not after inflating all 64 MiB
  });
});
