// numcodecs codecs that numcodecs 0.11 (the test-time peer) lacks or cannot show: fletcher32 and
// jenkins_lookup3 against published vectors (numcodecs' own tests, from HDF5 and Bob Jenkins'
// lookup3.c), checksum placement, and each decoder's refusals of damaged or oversized input.
import { describe, expect, it } from 'vitest';
import { buildCodecChain } from '../../../src/format/codecs/pipeline.ts';
import { allCodecImplementations, createZarrV3BytesCodec } from '../../../src/format/codecs/registry.ts';
import { jenkinsLookup3 } from '../../../src/format/codecs/numcodecs/jenkins-lookup3.ts';
import { fletcher32 } from '../../../src/format/codecs/numcodecs/fletcher32.ts';
import { crc32Js, crc32 } from '../../../src/format/codecs/numcodecs/crc32.ts';
import { parseDataType } from '../../../src/format/zarr/data-types.ts';
import { defaultFillValue } from '../../../src/format/zarr/fill-value.ts';
import { codeOf, failureOf } from '../../support/error-code.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const ctx = { itemSize: 1 };
const text = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('fletcher32 (HDF5 / netCDF variant)', () => {
  // numcodecs' test_fletcher32.py "test_known": ten int64 values and the checksum HDF5 computes.
  const stream = Buffer.from(
    '7707000000000000' + '85f6ffffffffffff' + '6907000000000000' + '94f6ffffffffffff' + '8809000000000000' +
      '6903000000000000' + '93fdffffffffffff' + 'c3fcffffffffffff' + '2702000000000000' + 'baf7ffffffffffff' + 'fd258664',
    'hex',
  );
  const values = [1911n, -2427n, 1897n, -2412n, 2440n, 873n, -621n, -829n, 551n, -2118n];

  it('decodes the known stream and writes it back byte for byte', () => {
    const codec = createZarrV3BytesCodec('numcodecs.fletcher32', undefined, ctx);
    const payload = codec.decode(new Uint8Array(stream));
    expect([...new BigInt64Array(payload.slice().buffer)]).toEqual(values);
    expect(hex(codec.encode(payload))).toBe(stream.toString('hex'));
  });

  it('folds an odd last byte as a high half word', () => {
    // "abcde": big-endian words 0x6162 and 0x6364, then 0x6500; sums small enough that the
    // end-around-carry folds equal plain remainders modulo 0xffff.
    const sum1 = (0x6162 + 0x6364 + 0x6500) % 0xffff;
    const sum2 = (0x6162 + (0x6162 + 0x6364) + sum1) % 0xffff;
    expect(fletcher32(text('abcde'))).toBe(((sum2 << 16) | sum1) >>> 0);
  });

  it('refuses a changed payload', () => {
    const codec = createZarrV3BytesCodec('numcodecs.fletcher32', undefined, ctx);
    const damaged = new Uint8Array(stream);
    damaged.set([stream[0] === 0x77 ? 0x78 : 0x77], 0);
    expect(codeOf(() => codec.decode(damaged))).toBe('CHECKSUM_MISMATCH');
  });
});

describe('jenkins_lookup3', () => {
  it.each([
    ['', 0, 0xdeadbeef],
    ['', 0xdeadbeef, 0xbd5b7dde],
    ['Four score and seven years ago', 0, 0x17770551],
    ['Four score and seven years ago', 1, 0xcd628161],
    ['jenkins', 0, 202276345],
  ])('hashes %j with seed %d as lookup3.c does', (input, seed, expected) => {
    expect(jenkinsLookup3(text(input), seed)).toBe(expected);
  });

  it('appends the hash little-endian, with the configured seed and prefix', () => {
    const plain = createZarrV3BytesCodec('numcodecs.jenkins_lookup3', undefined, ctx).encode(text('Four score and seven years ago'));
    expect(hex(plain.subarray(-4))).toBe('51057717');
    const seeded = createZarrV3BytesCodec('numcodecs.jenkins_lookup3', { initval: 1 }, ctx);
    expect(hex(seeded.encode(text('Four score and seven years ago')).subarray(-4))).toBe('618162cd');
    const prefixed = createZarrV3BytesCodec('numcodecs.jenkins_lookup3', { prefix: [...text('Four score')] }, ctx);
    const encoded = prefixed.encode(text(' and seven years ago'));
    expect(hex(encoded.subarray(-4))).toBe('51057717');
    expect(new TextDecoder().decode(prefixed.decode(encoded))).toBe(' and seven years ago');
  });
});

describe('crc32 and adler32', () => {
  it('put the checksum first by default and last with location "end"', () => {
    const data = text('123456789');
    const start = createZarrV3BytesCodec('numcodecs.crc32', undefined, ctx).encode(data);
    const end = createZarrV3BytesCodec('numcodecs.crc32', { location: 'end' }, ctx).encode(data);
    expect([hex(start.subarray(0, 4)), hex(end.subarray(-4))]).toEqual(['2639f4cb', '2639f4cb']); // CRC-32 check value 0xcbf43926
    const adler = createZarrV3BytesCodec('numcodecs.adler32', undefined, ctx).encode(text('Wikipedia'));
    expect(hex(adler.subarray(0, 4))).toBe('9803e611'); // 0x11e60398
  });

  it('has a JS CRC-32 equal to the native one, and round-trips an empty payload', () => {
    const data = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31) & 255);
    expect(crc32Js(data)).toBe(crc32(data));
    const codec = createZarrV3BytesCodec('numcodecs.crc32', undefined, ctx);
    expect(codec.decode(codec.encode(new Uint8Array(0))).length).toBe(0);
    expect(codeOf(() => codec.decode(new Uint8Array(3)))).toBe('CORRUPT_OBJECT');
  });
});

describe('decoders refuse damaged and oversized input', () => {
  it('lz4 refuses a header claiming more than the limit, before allocating it', () => {
    const bomb = new Uint8Array([0xff, 0xff, 0xff, 0x7f, 0x00]);
    const codec = createZarrV3BytesCodec('numcodecs.lz4', undefined, ctx);
    expect(codeOf(() => codec.decode(bomb, { maxBytes: 1 << 20 }))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(() => codec.decode(new Uint8Array([4, 0, 0, 0, 0x40, 1, 2])))).toBe('CORRUPT_OBJECT');
  });

  it('packbits refuses a chunk of the wrong length or padding', () => {
    const dt = parseDataType('bool');
    const chain = buildCodecChain([{ name: 'numcodecs.packbits' }, { name: 'bytes' }], { shape: [10], dataType: dt, fillValue: defaultFillValue(dt) });
    expect(codeOf(() => chain.decode(new Uint8Array([5, 0xff, 0xc0])))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => chain.decode(new Uint8Array([6, 0xff])))).toBe('CORRUPT_OBJECT');
    expect(Array.from(chain.decode(new Uint8Array([6, 0xff, 0x40])).data as Uint8Array)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 0, 1]);
  });

  it('json2 and msgpack2 refuse malformed chunks and elements that are not strings', () => {
    const dt = parseDataType('string');
    const json = buildCodecChain([{ name: 'numcodecs.json2' }], { shape: [2], dataType: dt, fillValue: defaultFillValue(dt) });
    expect(codeOf(() => json.decode(text('["a", "b", "|O"')))).toBe('CORRUPT_OBJECT');
    expect(codeOf(() => json.decode(text('["a","b","|O",[3]]')))).toBe('CORRUPT_OBJECT');
    expect(failureOf(() => json.decode(text('["a",2,"|O",[2]]'))).message).toMatch(/element 1 of the chunk is number/);
    const msgpack = buildCodecChain([{ name: 'numcodecs.msgpack2' }], { shape: [2], dataType: dt, fillValue: defaultFillValue(dt) });
    expect(codeOf(() => msgpack.decode(new Uint8Array([0x94, 0xa1, 0x61])))).toBe('CORRUPT_OBJECT');
  });
});

describe('codecs Floe does not implement', () => {
  it.each([
    ['numcodecs.pcodec', /"numcodecs.pcodec" is not supported \(no maintained JavaScript implementation of pcodec exists\); Floe implements .*numcodecs.fixedscaleoffset/],
    ['numcodecs.zfpy', /"numcodecs.zfpy" is not supported \(no maintained JavaScript implementation of ZFP exists\)/],
  ])('refuses %s by name, with why and what Floe implements', (name, message) => {
    const dt = parseDataType('float64');
    const err = failureOf(() => buildCodecChain([{ name, configuration: {} }], { shape: [4], dataType: dt, fillValue: defaultFillValue(dt) }));
    expect([err.code, err.message]).toEqual(['UNSUPPORTED', expect.stringMatching(message)]);
  });
});
