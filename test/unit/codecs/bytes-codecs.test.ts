import { describe, expect, it } from 'vitest';
import { allCodecImplementations, createZarrV1Compressor, createZarrV3BytesCodec, ZARR_V1_COMPRESSOR_NAMES, ZARR_V3_CODEC_NAMES, zarrV3Implementation } from '../../../src/format/codecs/registry.ts';
import { zstdBackend } from '../../../src/format/codecs/zstd-backend.ts';
import { concatBytes, describeEachZstdBackend, withoutContentSize } from '../../support/zstd.ts';
import { codeOf } from '../../support/error-code.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const ctx = { itemSize: 4 };
const data = new Uint8Array(Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i / 50)).buffer);

describe('bytes codec registry', () => {
  it('maps the v3 and v1 names', () => {
    const v3Bytes = ZARR_V3_CODEC_NAMES.filter((name) => zarrV3Implementation(name)?.kind === 'bytes_to_bytes');
    const numcodecs = ['adler32', 'blosc', 'bz2', 'crc32', 'fletcher32', 'gzip', 'jenkins_lookup3', 'lz4', 'lzma', 'shuffle', 'zlib', 'zstd'].map((id) => `numcodecs.${id}`);
    expect(v3Bytes.sort()).toEqual(['blosc', 'crc32c', 'floe.hdf5_lz4', 'floe.lzf', 'gzip', ...numcodecs, 'zstd'].sort());
    expect([...ZARR_V1_COMPRESSOR_NAMES].sort()).toEqual(['blosc', 'bz2', 'gzip', 'lzma', 'zlib']);
  });

  it('resolves defaults in toJSON', () => {
    expect(createZarrV3BytesCodec('zstd', { level: 3 }, ctx).toJSON()).toEqual({ name: 'zstd', configuration: { level: 3, checksum: false } });
    expect(createZarrV3BytesCodec('gzip', { level: 5 }, ctx).toJSON()).toEqual({ name: 'gzip', configuration: { level: 5 } });
    expect(createZarrV3BytesCodec('crc32c', undefined, ctx).toJSON()).toEqual({ name: 'crc32c' });
    expect(createZarrV1Compressor('zlib', null, ctx).toJSON()).toEqual({ name: 'zlib', configuration: { level: 1 } });
  });

  it.each([
    ['gzip', { level: 10 }],
    ['gzip', {}],
    ['zstd', { level: 1.5 }],
    ['zstd', { checksum: 'yes' }],
    ['crc32c', { seed: 1 }],
  ])('%s rejects %j', (name, config) => {
    expect(codeOf(() => createZarrV3BytesCodec(name, config, ctx))).toBe('INVALID_METADATA');
  });

  // zarr.json is parsed with exact 64-bit integers: an out-of-range value arrives as a bigint.
  it.each([
    ['gzip', { level: 99999999999999999999n }],
    ['zstd', { level: -99999999999999999999n }],
    ['blosc', { cname: 'lz4', clevel: 99999999999999999999n, shuffle: 'shuffle', typesize: 4, blocksize: 0 }],
  ])('%s refuses a bigint option with INVALID_METADATA, not a TypeError', (name, config) => {
    expect(codeOf(() => createZarrV3BytesCodec(name, config, ctx))).toBe('INVALID_METADATA');
  });

  it.each([['zlib', 99999999999999999999n], ['bz2', 99999999999999999999n], ['blosc', 7n]])('v1 %s refuses compression_opts %s with INVALID_METADATA', (name, opts) => {
    expect(codeOf(() => createZarrV1Compressor(name as string, opts, ctx))).toBe('INVALID_METADATA');
  });

  it('crc32c appends a little-endian CRC32C and detects a flipped bit', () => {
    const codec = createZarrV3BytesCodec('crc32c', undefined, ctx);
    const encoded = codec.encode(new TextEncoder().encode('123456789'));
    expect(Array.from(encoded.subarray(9))).toEqual([0x83, 0x92, 0x06, 0xe3]); // 0xE3069283
    expect(codec.computeEncodedSize!(9)).toBe(13);
    encoded[0] = encoded[0]! ^ 1;
    expect(codeOf(() => codec.decode(encoded))).toBe('CHECKSUM_MISMATCH');
  });

  it('zlib accepts numcodecs-style {level} and gzip is the same zlib stream', () => {
    const zlib = createZarrV1Compressor('zlib', { level: 9 }, ctx);
    const gzip = createZarrV1Compressor('gzip', 9, ctx);
    expect(Buffer.from(gzip.decode(zlib.encode(data))).equals(Buffer.from(data))).toBe(true);
    expect(zlib.encode(data)[0]).toBe(0x78); // zlib header, not gzip's 0x1f
  });

  it('lzma round-trips a raw LZMA2 stream and refuses BCJ filters (raw chains: lzma.test.ts)', () => {
    const raw = createZarrV1Compressor('lzma', { format: 3, filters: [{ id: 33, preset: 1 }] }, ctx);
    expect(Buffer.from(raw.decode(raw.encode(data))).equals(Buffer.from(data))).toBe(true);
    expect(codeOf(() => createZarrV1Compressor('lzma', { format: 3, filters: [{ id: 4 }, { id: 33 }] }, ctx))).toBe('UNSUPPORTED');
  });

  it('bz2 round-trips empty, tiny and run-heavy inputs', () => {
    const codec = createZarrV1Compressor('bz2', 1, ctx);
    for (const input of [new Uint8Array(0), new Uint8Array([42]), new Uint8Array(250_000).fill(7), data]) {
      expect(Buffer.from(codec.decode(codec.encode(input))).equals(Buffer.from(input))).toBe(true);
    }
  });
});

describeEachZstdBackend('zstd codec', () => {
  it('decodes frames without a content size and several frames, and rejects truncated ones', () => {
    const framed = withoutContentSize(zstdBackend().compress(data, 3, false), data.length);
    const codec = createZarrV3BytesCodec('zstd', { level: 3, checksum: false }, ctx);
    expect(Buffer.from(codec.decode(framed)).equals(Buffer.from(data))).toBe(true);
    expect(Buffer.from(codec.decode(concatBytes(framed, codec.encode(data)))).equals(Buffer.concat([data, data]))).toBe(true);
    expect(codeOf(() => codec.decode(framed.subarray(0, framed.length - 10)))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => codec.decode(concatBytes(codec.encode(data), framed.subarray(0, 30))))).toBe('CORRUPT_OBJECT');
  });

  it('round-trips through blosc with zstd blocks at every clevel', () => {
    for (let clevel = 1; clevel <= 9; clevel++) {
      const blosc = createZarrV3BytesCodec('blosc', { cname: 'zstd', clevel, shuffle: 'bitshuffle', typesize: 4, blocksize: 0 }, ctx);
      expect(Buffer.from(blosc.decode(blosc.encode(data))).equals(Buffer.from(data))).toBe(true);
    }
  });
});
