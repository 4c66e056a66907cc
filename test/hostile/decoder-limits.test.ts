// Issue 17, stage 2: fast-check fuzzing of every decoder with declared-size bombs. Each decode is
// told how much it may produce (maxBytes); the property for every codec is the same: it returns at
// most maxBytes, or refuses with LIMIT_EXCEEDED (or CORRUPT_OBJECT for damaged input), and never
// with anything but a FloeError. Where the input's true size is known the verdict is exact: it
// decodes if and only if that size fits. Inputs per kind: FLOE_HOSTILE_RUNS (CI default below);
// the in-process RSS checks live in bomb-rss.test.ts (child processes under a watchdog).
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { bloscCompress } from '../../src/format/codecs/blosc/compress.ts';
import { BLOSC_CNAMES } from '../../src/format/codecs/blosc/block-codecs.ts';
import { bloscV3Codec } from '../../src/format/codecs/blosc.ts';
import { bz2Compressor } from '../../src/format/codecs/bz2.ts';
import { nodeZlibBackend } from '../../src/format/codecs/deflate-backend.ts';
import { fflateBackend } from '../../src/format/codecs/fflate-backend.ts';
import { gzipCodecOn } from '../../src/format/codecs/gzip.ts';
import { lzmaCompressor } from '../../src/format/codecs/lzma.ts';
import { buildCodecChain } from '../../src/format/codecs/pipeline.ts';
import { createZarrV3BytesCodec } from '../../src/format/codecs/registry.ts';
import type { BytesToBytesCodec, CodecMetadata } from '../../src/format/codecs/types.ts';
import { zlibCompressor } from '../../src/format/codecs/zlib.ts';
import { encodeFile } from '../../src/format/icechunk/framing.ts';
import { decodeManifest } from '../../src/format/icechunk/manifest.ts';
import { decodeSnapshot } from '../../src/format/icechunk/snapshot.ts';
import { decodeTransactionLog } from '../../src/format/icechunk/transaction-log.ts';
import { configureLimits, DEFAULT_LIMITS } from '../../src/format/limits.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../src/format/zarr/fill-value.ts';
import { createArray, openStore, slice } from '../../src/index.ts';
import { HOSTILE_SEED, hostileRuns } from '../support/hostile-runs.ts';
import { LZMA_BOMB_BYTES, LZMA_BOMB_OPTS, lzmaBomb, type LzmaBombForm } from '../support/lzma-bombs.ts';
import { describeEachZstdBackend, rleBombFrame } from '../support/zstd.ts';

const MiB = 2 ** 20;
const BLOCK = 128 * 1024;
/** Inputs per kind per run. */
const RUNS = hostileRuns(100);
const options = { numRuns: RUNS, seed: HOSTILE_SEED };
/** Fewer runs for the kinds whose every input decodes megabytes. */
const heavy = { ...options, numRuns: Math.max(1, Math.floor(RUNS / 10)) };

afterEach(() => {
  configureLimits(DEFAULT_LIMITS);
});

/** 'ok:<length>' or the error code; a non-Floe error is marked so the assertion shows it. */
function outcome(run: () => Uint8Array | { length: number }): string {
  try {
    return `ok:${run().length}`;
  } catch (err) {
    return isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
  }
}

/** The exact verdict for an input of known decoded size. */
const verdict = (size: number, maxBytes: number): string => (size <= maxBytes ? `ok:${size}` : 'LIMIT_EXCEEDED');

/** A limit near `size` (either side of it), or anywhere up to twice it. */
const limitAround = (size: number): fc.Arbitrary<number> =>
  fc.oneof(fc.integer({ min: Math.max(0, size - 2), max: size + 2 }), fc.integer({ min: 0, max: 2 * size }));

/** Damage: cut the input, or flip one byte. */
const damage = (data: Uint8Array): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    fc.nat({ max: data.length }).map((n) => data.slice(0, n)),
    fc.tuple(fc.nat({ max: data.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, x]) => {
      const copy = data.slice();
      copy[at]! ^= x;
      return copy;
    }),
  );

describeEachZstdBackend('zstd bombs', () => {
  const codec = createZarrV3BytesCodec('zstd', { level: 1, checksum: false }, { itemSize: 1 });

  it('without a content size: decoded streaming if and only if it fits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }).chain((blocks) => fc.tuple(fc.constant(blocks), limitAround(blocks * BLOCK))), ([blocks, maxBytes]) => {
        expect(outcome(() => codec.decode(rleBombFrame(blocks, { contentSize: false }), { maxBytes }))).toBe(verdict(blocks * BLOCK, maxBytes));
      }),
      options,
    );
  });

  it('declaring a size, true or a lie: refused from the header past maxBytes, a lie below it is corrupt', () => {
    const claim = fc.oneof(fc.nat({ max: 64 * BLOCK }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 32 }), claim, fc.nat({ max: 8 * MiB }), fc.boolean(), (blocks, lie, maxBytes, honest) => {
        const size = blocks * BLOCK;
        const frame = rleBombFrame(blocks, { contentSize: true, claim: honest ? size : lie });
        const result = outcome(() => codec.decode(frame, { maxBytes }));
        const stated = honest ? size : lie;
        if (stated > frame.length * 32768) expect(result).toBe('CORRUPT_OBJECT'); // no frame that small holds it
        else if (stated > maxBytes) expect(result).toBe('LIMIT_EXCEEDED');
        else expect(result).toBe(stated === size ? `ok:${size}` : 'CORRUPT_OBJECT');
      }),
      options,
    );
  });

  it('damaged bombs are refused with a FloeError, never more than maxBytes', () => {
    const frame = rleBombFrame(16, { contentSize: false });
    fc.assert(
      fc.property(damage(frame), fc.nat({ max: 4 * MiB }), (data, maxBytes) => {
        const result = outcome(() => codec.decode(data, { maxBytes }));
        expect(result).toMatch(/^(ok:\d+|LIMIT_EXCEEDED|CORRUPT_OBJECT|CHECKSUM_MISMATCH)$/);
        if (result.startsWith('ok:')) expect(Number(result.slice(3))).toBeLessThanOrEqual(maxBytes);
      }),
      options,
    );
  });
});

describe('deflate and bz2 bombs', () => {
  const SIZE = 2 * MiB;
  const zeros = Buffer.alloc(SIZE);
  const gzipBomb = zlib.gzipSync(zeros, { level: 9 });
  const zlibBomb = zlib.deflateSync(zeros, { level: 9 });
  const bz2 = bz2Compressor(9);
  const bz2Bomb = bz2.encode(zeros);
  const cases: readonly (readonly [string, BytesToBytesCodec, Uint8Array])[] = [
    ['gzip (node:zlib)', gzipCodecOn(nodeZlibBackend(zlib))({ level: 1 }, { itemSize: 1 }), gzipBomb],
    ['gzip (fflate)', gzipCodecOn(fflateBackend)({ level: 1 }, { itemSize: 1 }), gzipBomb],
    ['zlib (node:zlib)', zlibCompressor('zlib', 1, nodeZlibBackend(zlib)), zlibBomb],
    ['zlib (fflate)', zlibCompressor('zlib', 1, fflateBackend), zlibBomb],
    ['bz2', bz2, bz2Bomb],
  ];

  it.each(cases)('%s: decoded if and only if its 2 MiB fit', (_label, codec, bomb) => {
    expect(bomb.length).toBeLessThan(SIZE / 500);
    fc.assert(
      fc.property(limitAround(SIZE), (maxBytes) => {
        expect(outcome(() => codec.decode(bomb, { maxBytes }))).toBe(verdict(SIZE, maxBytes));
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 5)) },
    );
  });

  it.each(cases)('%s: damaged bombs are refused with a FloeError, never more than maxBytes', (_label, codec, bomb) => {
    fc.assert(
      fc.property(damage(bomb), fc.nat({ max: 2 * MiB }), (data, maxBytes) => {
        const result = outcome(() => codec.decode(data, { maxBytes }));
        expect(result).toMatch(/^(ok:\d+|LIMIT_EXCEEDED|CORRUPT_OBJECT)$/);
        if (result.startsWith('ok:')) expect(Number(result.slice(3))).toBeLessThanOrEqual(maxBytes);
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 5)) },
    );
  });
});

describe('lzma bombs (xz and raw)', () => {
  const forms = Object.keys(LZMA_BOMB_OPTS) as LzmaBombForm[];

  it.each(forms)('%s: decoded if and only if its 16 MiB fit', (form) => {
    const codec = lzmaCompressor(LZMA_BOMB_OPTS[form]);
    const bomb = lzmaBomb(form);
    fc.assert(
      fc.property(fc.oneof(limitAround(LZMA_BOMB_BYTES), fc.nat({ max: MiB })), (maxBytes) => {
        expect(outcome(() => codec.decode(bomb, { maxBytes }))).toBe(verdict(LZMA_BOMB_BYTES, maxBytes));
      }),
      heavy,
    );
  });

  it('an .lzma header stating a size is held to it, true or a lie', () => {
    const codec = lzmaCompressor(LZMA_BOMB_OPTS.alone);
    const bomb = lzmaBomb('alone');
    fc.assert(
      fc.property(fc.oneof(fc.constant(LZMA_BOMB_BYTES), fc.nat({ max: 2 * LZMA_BOMB_BYTES }), fc.bigInt({ min: 0n, max: 2n ** 63n })), fc.nat({ max: 2 * LZMA_BOMB_BYTES }), (stated, maxBytes) => {
        const data = Buffer.from(bomb);
        data.writeBigUInt64LE(BigInt(stated), 5);
        const result = outcome(() => codec.decode(data, { maxBytes }));
        if (BigInt(stated) > BigInt(maxBytes)) expect(result).toBe('LIMIT_EXCEEDED');
        else expect(result).toMatch(/^(ok:\d+|CORRUPT_OBJECT)$/);
        if (result.startsWith('ok:')) expect(Number(result.slice(3))).toBe(Number(stated));
      }),
      heavy,
    );
  });

  it.each(forms)('%s: damaged bombs are refused with a FloeError, never more than maxBytes', (form) => {
    const codec = lzmaCompressor(LZMA_BOMB_OPTS[form]);
    fc.assert(
      fc.property(damage(lzmaBomb(form)), fc.nat({ max: 2 * MiB }), (data, maxBytes) => {
        const result = outcome(() => codec.decode(data, { maxBytes }));
        expect(result).toMatch(/^(ok:\d+|LIMIT_EXCEEDED|CORRUPT_OBJECT|CHECKSUM_MISMATCH)$/);
        if (result.startsWith('ok:')) expect(Number(result.slice(3))).toBeLessThanOrEqual(maxBytes);
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 5)) },
    );
  });
});

describe('blosc bombs, with each inner compressor', () => {
  it.each([...BLOSC_CNAMES])('%s: a header stating more than maxBytes is refused before allocating', (cname) => {
    const codec = bloscV3Codec({ cname, clevel: 9, shuffle: 'shuffle', typesize: 4 }, { itemSize: 4 });
    const size = MiB;
    const packed = codec.encode(new Uint8Array(size));
    fc.assert(
      fc.property(limitAround(size), fc.oneof(fc.constant(size), fc.nat({ max: 0x7fffffef })), (maxBytes, nbytes) => {
        const data = Buffer.from(packed);
        data.writeUInt32LE(nbytes, 4); // the header's decoded size, true or a lie
        const result = outcome(() => codec.decode(data, { maxBytes }));
        if (nbytes > maxBytes) expect(result).toBe('LIMIT_EXCEEDED');
        else if (nbytes === size) expect(result).toBe(`ok:${size}`);
        else expect(result).toMatch(/^(ok:\d+|CORRUPT_OBJECT)$/);
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 2)) },
    );
  });

  it('blosc buffers made by each compressor decode within their limit', () => {
    for (const cname of BLOSC_CNAMES) {
      const data = bloscCompress(new Uint8Array(4096).fill(7), { cname, clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 });
      const codec = bloscV3Codec({ cname }, { itemSize: 4 });
      expect(outcome(() => codec.decode(data, { maxBytes: 4096 })), cname).toBe('ok:4096');
      expect(outcome(() => codec.decode(data, { maxBytes: 4095 })), cname).toBe('LIMIT_EXCEEDED');
    }
  });
});

describe('sharding index lies', () => {
  const dataType = parseDataType('uint8');
  const INDEX: CodecMetadata[] = [{ name: 'bytes', configuration: { endian: 'little' } }];
  const INNER: CodecMetadata[] = [{ name: 'bytes' }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
  const shardCodecs = (location: 'start' | 'end'): CodecMetadata[] => [
    { name: 'sharding_indexed', configuration: { chunk_shape: [4096], codecs: INNER, index_codecs: INDEX, index_location: location } },
  ];
  /** A lie about inner chunk i (of 8): small values, the empty marker 2^64 - 1, or anything. */
  const word = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 20n }), fc.constant(2n ** 64n - 1n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));
  const entry = fc.tuple(fc.nat({ max: 7 }), word, word);
  /** Writes the lies into the index that starts at `index`. */
  const lie = (bytes: Buffer, index: number, lies: readonly (readonly [number, bigint, bigint])[]): void => {
    for (const [i, offset, length] of lies) {
      bytes.writeBigUInt64LE(offset, index + 16 * i);
      bytes.writeBigUInt64LE(length, index + 16 * i + 8);
    }
  };

  it('whole-shard decodes: lying entries and inner bombs are refused with a FloeError', () => {
    for (const location of ['start', 'end'] as const) {
      const chain = buildCodecChain(shardCodecs(location), { shape: [8 * 4096], dataType, fillValue: defaultFillValue(dataType) });
      const shard = chain.encode({ data: new Uint8Array(8 * 4096).map((_, i) => i % 251), shape: [8 * 4096], stride: [1] });
      // An inner chunk replaced by a 4 KB bomb (125 MiB unsized), small enough to pass the index's
      // length check (a 4 KB inner chunk's bound), so the inner decode's limit must stop it.
      const bomb = rleBombFrame(1000, { contentSize: false });
      fc.assert(
        fc.property(fc.array(entry, { maxLength: 4 }), fc.boolean(), (lies, withBomb) => {
          const extra = withBomb ? bomb : new Uint8Array();
          const bytes = Buffer.concat(location === 'start' ? [shard, extra] : [extra, shard]);
          const index = location === 'start' ? 0 : bytes.length - 8 * 16;
          // With the bomb, inner chunk 0 points at it (offsets of the rest shift with it at 'end').
          if (withBomb) lie(bytes, index, [[0, BigInt(location === 'start' ? shard.length : 0), BigInt(bomb.length)]]);
          lie(bytes, index, lies);
          const result = outcome(() => chain.decode(bytes).data as Uint8Array);
          expect(result).toMatch(/^(ok:32768|LIMIT_EXCEEDED|CORRUPT_OBJECT)$/);
          if (withBomb && lies.length === 0) expect(result).toBe('LIMIT_EXCEEDED');
        }),
        { ...options, numRuns: Math.max(1, Math.floor(RUNS / 2)) },
      );
    }
  });

  it('partial reads through the public API: lying entries are refused with a FloeError', async () => {
    const store = openStore(':memory:');
    const array = await createArray(store, '/s', { shape: [8 * 4096], chunkShape: [8 * 4096], dataType: 'uint8', codecs: shardCodecs('end') });
    await array.set(undefined, 3);
    const good = (await store.get('s/c/0'))!;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), fc.nat({ max: 8 * 4096 - 10 }), async (lies, start) => {
        const bytes = Buffer.from(good);
        lie(bytes, bytes.length - 8 * 16, lies);
        await store.set('s/c/0', bytes);
        let result: string;
        try {
          result = `ok:${(await array.get([slice(start, start + 10)])).data.length}`;
        } catch (err) {
          result = isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
        }
        expect(result).toMatch(/^(ok:10|LIMIT_EXCEEDED|CORRUPT_OBJECT)$/);
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 2)) },
    );
  });
});

describe('Icechunk metadata file bombs', () => {
  const readers = [
    ['manifest', decodeManifest, 'manifestBytes'],
    ['snapshot', decodeSnapshot, 'snapshotBytes'],
    ['transactionLog', decodeTransactionLog, 'transactionLogBytes'],
  ] as const;

  it.each(readers)('a %s payload past its limit is refused, stated or streamed', (fileType, decode, limit) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 48 }), fc.boolean(), fc.integer({ min: 1, max: 8 * MiB }), (blocks, contentSize, maxBytes) => {
        configureLimits({ [limit]: maxBytes });
        // A header naming zstd, then the bomb as the payload (zero bytes: no flatbuffers identifier).
        const header = encodeFile(fileType, 2, new Uint8Array(), { compression: 'none' }).subarray(0, 39);
        header[38] = 1;
        const file = Buffer.concat([header, rleBombFrame(blocks, { contentSize })]);
        const result = outcome(() => decode(file, 'hostile') as unknown as Uint8Array);
        expect(result).toBe(blocks * BLOCK > maxBytes ? 'LIMIT_EXCEEDED' : 'CORRUPT_OBJECT');
      }),
      { ...options, numRuns: Math.max(1, Math.floor(RUNS / 2)) },
    );
  });

  it('the defaults refuse a 96 KB manifest bomb stating 3 GiB without decoding it', () => {
    const header = encodeFile('manifest', 2, new Uint8Array(), { compression: 'none' }).subarray(0, 39);
    header[38] = 1;
    const file = Buffer.concat([header, rleBombFrame(24_000, { contentSize: true })]);
    const before = process.memoryUsage().rss;
    expect(outcome(() => decodeManifest(file) as unknown as Uint8Array)).toBe('LIMIT_EXCEEDED');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
  });
});
