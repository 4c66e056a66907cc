// The zstd backends (native zstd-napi, Node's node:zlib where it has zstd, WASM fallback): each
// on its own through Floe's zstd users, and across each other (one encodes, another decodes),
// over the frame shapes stored data has: several frames, frames without a content size,
// checksums, dictionaries, damage. node:zlib's blocks run on Node 22.15+ (the CI matrix's newer
// Node); on Node 20 its detection is tested here and its logic through a simulated zlib
// (zstd-zlib.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isFloeError, type ErrorCode } from '../../../src/errors.ts';
import { allCodecImplementations, createZarrV3BytesCodec } from '../../../src/format/codecs/registry.ts';
import { knownContentSize, xxh64 } from '../../../src/format/codecs/zstd-frames.ts';
import * as zlib from 'node:zlib';
import { backendAvailable, clampLevel, DecodedSizeLimitError, DEFAULT_ORDER, loadZstdBackend, selectZstdBackend, zstdBackend, zstdDecode, zstdImplementation, ZstdDataError, type ZstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { zstdDecompress } from '../../../src/format/icechunk/zstd.ts';
import { concatBytes, describeEachZstdBackend, rawFrame, sameBytes, withoutContentSize, ZSTD_BACKENDS, ZSTD_PAIRS } from '../../support/zstd.ts';

// blosc loads on first use (registry.ts); these tests build codecs synchronously.
await allCodecImplementations();

const DICTIONARY = new Uint8Array(readFileSync(new URL('../icechunk/fixtures/locations.zdict', import.meta.url)));
const utf8 = (s: string) => new TextEncoder().encode(s);

function codeOf(run: () => unknown): ErrorCode | 'none' | 'foreign' {
  try {
    run();
    return 'none';
  } catch (err) {
    return isFloeError(err) ? err.code : 'foreign';
  }
}

/** Smooth float32 (like a temperature field) followed by noisy small integers. */
function arrayLike(n: number): Uint8Array {
  const f = new Float32Array(n);
  for (let i = 0; i < n / 2; i++) f[i] = 280 + 10 * Math.sin(i / 300);
  const ints = new Int32Array(f.buffer, (n / 2) * 4);
  for (let i = 0; i < ints.length; i++) ints[i] = (i * 2654435761) % 1000;
  return new Uint8Array(f.buffer);
}

const DATA = arrayLike(200_000); // 800 KB: several 128 KiB blocks
const zstdCodec = (level: number, checksum: boolean) => createZarrV3BytesCodec('zstd', { level, checksum }, { itemSize: 4 });

describeEachZstdBackend('zstd backend', (backend) => {
  it('is the one Floe uses inside this block', () => {
    expect(zstdImplementation().name).toBe(backend.name);
    expect(zstdImplementation().version).toMatch(/\d+\.\d+\.\d+/);
  });

  it('round-trips the Zarr codec at negative, default, high and out-of-range levels, with and without checksums', () => {
    for (const level of [-50, -1, 0, 1, 3, 9, 19, 100]) {
      const input = level >= 19 ? DATA.subarray(0, 100_000) : DATA; // the top levels run at a few MB/s
      for (const checksum of [false, true]) {
        const codec = zstdCodec(level, checksum);
        const encoded = codec.encode(input);
        expect((encoded[4]! >> 2) & 1).toBe(checksum ? 1 : 0);
        expect(knownContentSize(encoded)).toBe(input.length);
        expect(sameBytes(codec.decode(encoded), input)).toBe(true);
        const out = new Uint8Array(input.length);
        expect(codec.decodeInto!(encoded, out)).toBe(input.length);
        expect(sameBytes(out, input)).toBe(true);
      }
    }
  });

  it('writes a checksum that is XXH64 of the content, and refuses a frame whose checksum does not match', () => {
    const encoded = zstdCodec(3, true).encode(DATA);
    const stored = new DataView(encoded.buffer, encoded.byteOffset + encoded.length - 4).getUint32(0, true);
    expect(stored).toBe(Number(xxh64(DATA) & 0xffffffffn));
    const bad = encoded.slice();
    bad[bad.length - 1]! ^= 0xff;
    expect(codeOf(() => zstdCodec(3, true).decode(bad))).toBe('CORRUPT_OBJECT');
  });

  it('decodes frames without a content size, several frames, and skippable frames', () => {
    const codec = zstdCodec(3, false);
    const a = DATA.subarray(0, 300_000);
    const b = DATA.subarray(300_000);
    const unsized = withoutContentSize(backend.compress(a, 3, true), a.length);
    expect(knownContentSize(unsized)).toBeNull();
    expect(sameBytes(codec.decode(unsized), a)).toBe(true);
    const skippable = Uint8Array.from([0x5a, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]);
    const several = concatBytes(backend.compress(a, 1, false), skippable, unsized, rawFrame(b, { contentSize: false }));
    expect(sameBytes(codec.decode(several), concatBytes(a, a, b))).toBe(true);
    const sized = concatBytes(backend.compress(a, 1, false), rawFrame(b, { contentSize: true }));
    const out = new Uint8Array(DATA.length);
    expect(codec.decodeInto!(sized, out)).toBe(DATA.length);
    expect(sameBytes(out, DATA)).toBe(true);
    expect(codec.decodeInto!(several, out)).toBe(-1); // no stated size: the caller falls back to decode
  });

  it('refuses empty, truncated and garbage input with CORRUPT_OBJECT, in the codec, Icechunk and Blosc', () => {
    const codec = zstdCodec(3, false);
    const sized = backend.compress(DATA, 3, false);
    const unsized = withoutContentSize(sized, DATA.length);
    const garbage = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff);
    for (const bad of [new Uint8Array(0), sized.subarray(0, sized.length - 5), unsized.subarray(0, unsized.length - 5), sized.subarray(0, 3), garbage, concatBytes(sized, sized.subarray(0, 20))]) {
      expect(codeOf(() => codec.decode(bad))).toBe('CORRUPT_OBJECT');
      expect(codeOf(() => zstdDecompress(bad))).toBe('CORRUPT_OBJECT');
    }
    const corrupted = sized.slice();
    for (let i = 20; i < corrupted.length; i += 97) corrupted[i]! ^= 0x5a;
    expect(codeOf(() => codec.decode(corrupted))).toBe('CORRUPT_OBJECT');
    const blosc = createZarrV3BytesCodec('blosc', { cname: 'zstd', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 }, { itemSize: 4 });
    const packed = blosc.encode(DATA);
    expect(sameBytes(blosc.decode(packed), DATA)).toBe(true);
    expect(codeOf(() => blosc.decode(packed.subarray(0, packed.length - 7)))).toBe('CORRUPT_OBJECT');
  });

  it('refuses an absurd claimed content size before allocating, and output past the bomb limit', () => {
    // A raw frame claiming 2^40 bytes of content but holding 10.
    const claim = rawFrame(new Uint8Array(10), { contentSize: true });
    claim[6 + 5] = 1; // byte 5 of the 8-byte content size: 2^40 + 10
    expect(codeOf(() => zstdCodec(3, false).decode(claim))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => zstdDecompress(claim))).toBe('CORRUPT_OBJECT');
    // 1 GiB claimed: under Icechunk's 2 GiB limit, but no 27-byte frame can hold it.
    const gib = rawFrame(new Uint8Array(10), { contentSize: true });
    gib[6 + 3] = 0x40;
    expect(() => zstdDecompress(gib)).toThrow(/claims 1073741834 bytes from 27 encoded bytes/);
    // 4 MB of zeros in about 200 bytes: over a 1 MiB limit, streamed or stated.
    const zeros = new Uint8Array(4 << 20);
    const sized = backend.compress(zeros, 3, false);
    const unsized = withoutContentSize(sized, zeros.length);
    for (const frame of [sized, unsized]) {
      expect(() => zstdDecompress(frame, { maxBytes: 1 << 20 })).toThrow(/1048576-byte limit/);
      expect(codeOf(() => zstdDecompress(frame, { maxBytes: 1 << 20 }))).toBe('LIMIT_EXCEEDED');
      expect(() => zstdDecode(frame, { maxBytes: 1 << 20, backend })).toThrow(DecodedSizeLimitError);
      expect(sameBytes(zstdDecompress(frame, { maxBytes: zeros.length }), zeros)).toBe(true);
    }
  });

  it('decodes dictionary-compressed data and refuses it without the dictionary', () => {
    const text = utf8('s3://earthmover-sample-data/netcdf/oisst/avhrr-only-v2.19810101.nc');
    const frame = backend.compress(text, 3, false, DICTIONARY);
    expect(sameBytes(zstdDecompress(frame, { dictionary: DICTIONARY, maxBytes: 1 << 20 }), text)).toBe(true);
    expect(sameBytes(zstdDecompress(withoutContentSize(frame, text.length), { dictionary: DICTIONARY, maxBytes: 1 << 20 }), text)).toBe(true);
    expect(codeOf(() => zstdDecompress(frame, { maxBytes: 1 << 20 }))).toBe('CORRUPT_OBJECT');
    // A dictionary call leaves no dictionary behind for the next plain one.
    expect(sameBytes(zstdDecompress(backend.compress(text, 3, false)), text)).toBe(true);
  });

  it('clamps levels to libzstd\'s range', () => {
    expect(clampLevel(100)).toBe(22);
    expect(clampLevel(-1e9)).toBe(-131072);
    expect(sameBytes(zstdCodec(Number.MAX_SAFE_INTEGER, false).decode(zstdCodec(Number.MAX_SAFE_INTEGER, false).encode(DATA.subarray(0, 5000))), DATA.subarray(0, 5000))).toBe(true);
  });
});

const [napi, zlibCase, wasm] = ZSTD_BACKENDS;

describe.skipIf(ZSTD_PAIRS.length === 0)('zstd across backends', () => {
  const pairs = ZSTD_PAIRS;

  it.each(pairs)('%s: levels, checksums, several frames and frames without a content size', (_, encoder, decoder) => {
    for (const [level, checksum] of [[-5, false], [1, true], [3, false], [19, true]] as const) {
      const frame = encoder.compress(DATA, level, checksum);
      expect(sameBytes(zstdDecode(frame, { maxBytes: 1 << 30, backend: decoder }), DATA)).toBe(true);
      const unsized = withoutContentSize(frame, DATA.length);
      expect(sameBytes(zstdDecode(unsized, { maxBytes: 1 << 30, backend: decoder }), DATA)).toBe(true);
      expect(sameBytes(zstdDecode(concatBytes(frame, unsized, frame), { maxBytes: 1 << 30, backend: decoder }), concatBytes(DATA, DATA, DATA))).toBe(true);
    }
  });

  it.each(pairs)('%s: dictionaries', (_, encoder, decoder) => {
    const text = utf8('gs://some-other-bucket/data/file-with-ünïcødé-名前.nc');
    const frame = encoder.compress(text, 3, false, DICTIONARY);
    expect(sameBytes(zstdDecode(frame, { maxBytes: 1 << 20, dictionary: DICTIONARY, backend: decoder }), text)).toBe(true);
    expect(sameBytes(zstdDecode(withoutContentSize(frame, text.length), { maxBytes: 1 << 20, dictionary: DICTIONARY, backend: decoder }), text)).toBe(true);
  });

  it.each(pairs)('%s: the same damage is refused the same way', (_, encoder, decoder) => {
    const frame = encoder.compress(DATA, 3, true);
    const unsized = withoutContentSize(frame, DATA.length);
    const flipped = frame.slice();
    flipped[frame.length - 2]! ^= 1; // the checksum
    for (const bad of [frame.subarray(0, frame.length - 1), unsized.subarray(0, unsized.length - 9), flipped, new Uint8Array(0)]) {
      const kind = (backend: ZstdBackend) => {
        try {
          zstdDecode(bad, { maxBytes: 1 << 30, backend });
          return 'decoded';
        } catch (err) {
          return err instanceof ZstdDataError ? err.kind : 'foreign';
        }
      };
      expect(kind(decoder)).toBe(kind(encoder));
      expect(kind(decoder)).not.toBe('decoded');
    }
  });
});

describe('choosing the zstd backend', () => {
  const withEnv = (value: string | undefined, run: () => void) => {
    const saved = process.env['FLOE_ZSTD'];
    if (value === undefined) delete process.env['FLOE_ZSTD'];
    else process.env['FLOE_ZSTD'] = value;
    try {
      selectZstdBackend('auto');
      run();
    } finally {
      if (saved === undefined) delete process.env['FLOE_ZSTD'];
      else process.env['FLOE_ZSTD'] = saved;
      selectZstdBackend('auto');
    }
  };

  it('takes the first of DEFAULT_ORDER that loads, and FLOE_ZSTD forces each', () => {
    const first = ZSTD_BACKENDS.filter((c) => c.available).sort((a, b) => DEFAULT_ORDER.indexOf(a.which) - DEFAULT_ORDER.indexOf(b.which))[0]!;
    withEnv(undefined, () => {
      expect(zstdImplementation()).toMatchObject({ name: first.backend!.name, version: first.backend!.version });
      expect(zstdImplementation().reason).toMatch(first.which === DEFAULT_ORDER[0] ? /^the first of zstd-napi, node:zlib, @bokuweb\/zstd-wasm that loads$/ : /; using /);
    });
    withEnv(' Fallback ', () => {
      expect(zstdImplementation()).toEqual({ name: 'zstd-wasm', version: wasm!.backend!.version, reason: 'forced by FLOE_ZSTD=fallback' });
      expect(zstdBackend().name).toBe('zstd-wasm');
    });
    withEnv('zlib', () => {
      if (zlibCase!.available) {
        expect(zstdImplementation()).toMatchObject({ name: 'node:zlib', reason: 'forced by FLOE_ZSTD=zlib' });
        expect(zstdBackend().name).toBe('node:zlib');
      } else {
        expect(zstdImplementation()).toMatchObject({ name: 'unavailable' });
        expect(zstdImplementation().reason).toMatch(/^no zstd implementation loads \(node:zlib: node:zlib has no zstd in Node v\d+.*; node:zlib has zstd from Node 22\.15; unset FLOE_ZSTD$/);
        expect(codeOf(() => zstdBackend())).toBe('UNSUPPORTED');
      }
    });
  });

  it('finds node:zlib zstd by what this Node can do: present exactly when zlib has a working zstdCompressSync', () => {
    const zstdInZlib = zlib as unknown as { zstdCompressSync?: unknown; zstdDecompressSync?: unknown };
    const hasZstd = typeof zstdInZlib.zstdCompressSync === 'function' && typeof zstdInZlib.zstdDecompressSync === 'function';
    expect(backendAvailable('zlib')).toBe(hasZstd);
    if (hasZstd) expect(loadZstdBackend('zlib').version).toBe(`node ${process.version}, libzstd ${process.versions['zstd']}`);
    else expect(() => loadZstdBackend('zlib')).toThrow(`node:zlib has no zstd in Node ${process.version}`);
  });

  it('refuses an unknown FLOE_ZSTD value with INVALID_ARGUMENT on first use, and reports it without throwing', () => {
    withEnv('fast', () => {
      expect(zstdImplementation()).toMatchObject({ name: 'unavailable', reason: 'FLOE_ZSTD must be napi, zlib, fallback or auto, got "fast"' });
      expect(codeOf(() => zstdBackend())).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => zstdCodec(3, false).encode(DATA))).toBe('INVALID_ARGUMENT');
    });
  });
});
