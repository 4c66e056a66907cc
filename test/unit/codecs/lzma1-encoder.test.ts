// Raw LZMA1 with lc/lp/pb other than 3/0/2, written by Floe's literal-only encoder
// (src/format/codecs/lzma1-encoder.ts) because @napi-rs/lzma only writes 3/0/2.
//
// Checked against Python 3.11's lzma (liblzma) when these tests were written, not at run time:
// - the golden streams below are Python's: lzma.compress(PATTERN, format=lzma.FORMAT_RAW,
//   filters=[{'id': lzma.FILTER_LZMA1, 'lc': .., 'lp': .., 'pb': .., 'dict_size': 4096}]);
// - Python decodes what Floe writes: for every lc (0-4), lp (lc + lp <= 4) and pb (0-4), on empty,
//   1-byte, 5000 x 0xff, 5000 x 0, 100 KB random and 20 KB patterned inputs (450 streams),
//   d = lzma.LZMADecompressor(format=lzma.FORMAT_RAW, filters=[{'id': lzma.FILTER_LZMA1, 'lc': lc,
//   'lp': lp, 'pb': pb, 'dict_size': 4096}]); d.decompress(stream) == data, d.eof and not d.unused_data
//   (the end marker is read, nothing trails it); and lzma.decompress(FLOE_*, format=lzma.FORMAT_RAW,
//   filters=<the chain named below>) == PATTERN for the two streams pinned here.
// - Python refuses lc + lp > 4 and pb > 4 ("Invalid or unsupported options"), compressing or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { allCodecImplementations, createZarrV1Compressor } from '../../../src/format/codecs/registry.ts';

// These tests build codecs through the registry's synchronous lookups: load the lazy ones first.
await allCodecImplementations();

const DELTA = 3;
const LZMA1 = 0x4000000000000001;
type Filter = Readonly<Record<string, number | undefined>>;
const raw = (...filters: Filter[]) => createZarrV1Compressor('lzma', { format: 3, filters }, { itemSize: 1 });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const PATTERN = Uint8Array.from({ length: 200 }, (_, i) => (i * 37 + (i >> 3)) & 255);

/** Every lc/lp/pb LZMA1 allows (lc + lp <= 4, pb <= 4): 75 combinations. */
const PROPS = [0, 1, 2, 3, 4].flatMap((lc) => [0, 1, 2, 3, 4].filter((lp) => lc + lp <= 4).flatMap((lp) => [0, 1, 2, 3, 4].map((pb) => ({ lc, lp, pb }))));

describe('raw LZMA1 streams Python wrote with non-default properties', () => {
  it.each([
    ['lc 0 lp 4 pb 4', { lc: 0, lp: 4, pb: 4 }, '0000094921cf8713306c24873c1b4c4570600bf3cdf8cb861657a1124939bfe95b3e901638e75b78a77b5a2fcd5093a5592d33b12f171ae8a54f8c606b13c66f7ee117174976b308e5ce5ddc3426a8ba1d814ce2e7bbd926b23c23beeaaf4be56b0f830099919cc9256ed31e7b4cc5d2485efe9987612ccc1ad25acacf573fc573360b588a0cf56215b330e929b723cda02e1783a464581e95e80a3459b48858a5e7d19d47aa0ce5e9442fa535a9c7285af168eb800df6e39ec3f0f265d21ed584a354f950465ff8998d56cea59913b045fffa2fb900'],
    ['lc 4 lp 0 pb 0', { lc: 4, lp: 0, pb: 0 }, '00000a6a804708053432eb5091ff15bd5d6f01befd75bdf376c185a3dee2a58282ec04ebf375d3041ed18b1533c928cca30f78e02053e66b7d47488e39c8d54c9281a81eb6eb78112c5a006b84c98f2b529dd9b3c1c63eae538fdf3aa4084971f490147cce97f7c49004df17bb273bc2ec8e364167621a8dea2614583a1665d6f24fdc952ee17777b8cc60a0d094d9ad12a19c8ef320453c5f1f842e546c2aa1887f5e85928e0bf8ae2487930e01ca3eb9a5e2b5fb0c9c76f139ef31cb99cc458630ffffaf4a0000'],
    ['lc 2 lp 2 pb 3', { lc: 2, lp: 2, pb: 3 }, '0000094921cf8713306c26ea93def766731c491eb2277e565300207293f612b812ab6748b76a14a9a1571c49341e310b28f443f6c498d09ef51e62b2f656ed0ca8de8ebba22720695493599adbe13dda4ebc5f455a1e909421f19c7aa5c62f55106153350f52512576b8f4d1bbd83b526404dc513d8f86624cdad2e1bc5d6db85a4e70c81ab3a1a17dc09ddd36574e12075544e28a83383cb9b830f20d72d20fa6ca0d5b4325141045613a990b42e699892d6094aec28b99d790b6d309ddf46f2a94a4ae4e42e7f28cd37fffe135a400'],
  ])('%s reads back', (_label, props, stream) => {
    expect(hex(raw({ id: LZMA1, ...props, dict_size: 4096 }).decode(Buffer.from(stream, 'hex')))).toBe(hex(PATTERN));
  });

  it('delta 2 + LZMA1 lc 1 lp 3 pb 1 reads back', () => {
    expect(hex(raw({ id: DELTA, dist: 2 }, { id: LZMA1, lc: 1, lp: 3, pb: 1 }).decode(Buffer.from('00000949803b4c65acea145bfffff8424000', 'hex')))).toBe(hex(PATTERN));
  });
});

describe('what Floe writes (Python decoded these exact bytes)', () => {
  it('lc 0 lp 4 pb 4: literals, then the end marker', () => {
    const stream = raw({ id: LZMA1, lc: 0, lp: 4, pb: 4 }).encode(PATTERN);
    expect(hex(stream)).toBe('0000094921cf8713306c24873c1b4c4570600bf3cdf8cb861657a1124939bfe95b3e901638e75b78a77b5a2fcd5093a5592d33b12f171ae8a54f8c606b13c66f7ee117174976b308e5ce5ddc3426a8ba1d814ce2e7bbd926b23c23beeaaf4be56b0f830099919cc9256ed31e7b4cc5d2485efe9987612ccc1ad25acacf573fc573360b588a0cf56215b330e929b723cda02e1783a464581e4093a4b53687f8bb991f7c8da67529e4451cc392102569bff468be886113d9095a9461ac752e67c3ca077501a48bacd83ec64b48130526117abb4157811dcf70e569e7c2c00db21f7cffff621c0000');
  });

  it('delta 2 + LZMA1 lc 1 lp 3 pb 1: the delta runs first', () => {
    expect(hex(raw({ id: DELTA, dist: 2 }, { id: LZMA1, lc: 1, lp: 3, pb: 1 }).encode(PATTERN))).toBe('0000094969c39c9cebd99ee3b385bd86c9f562ff34fd387784a65c0604a5189c9a7fbe4eef81be208e136ccd768ffcdeaa5ab83b4f349d789293cf1f28fa69732c6a68aac5bf85a773587c4a2034ec44e972d8aae9502d1e60fea15cbf3fabb14769036a85b8a47f35c4878ac32c49008d2a71e28a42f5a2c4beec32f07be9b619fa5a45a297b510252af1cbffffa8700000');
  });

  it('lc 3 lp 0 pb 2 still goes to the native encoder', () => {
    const codec = raw({ id: LZMA1, lc: 3, lp: 0, pb: 2 });
    expect(hex(codec.decode(codec.encode(PATTERN)))).toBe(hex(PATTERN));
  });
});

describe('round trips through Floe\'s decoder', () => {
  it.each(PROPS.map((p) => [`lc ${p.lc} lp ${p.lp} pb ${p.pb}`, p] as const))('%s: empty, 1 byte, runs of 0xff and 0, 64 KB random', (_label, props) => {
    const codec = raw({ id: LZMA1, ...props, dict_size: 4096 });
    let seed = props.lc * 25 + props.lp * 5 + props.pb + 1;
    const random = Uint8Array.from({ length: 65_536 }, () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 255);
    for (const data of [new Uint8Array(0), Uint8Array.of(0xa5), new Uint8Array(3000).fill(255), new Uint8Array(3000), random]) {
      expect(hex(codec.decode(codec.encode(data)))).toBe(hex(data));
    }
  });

  it('property: random bytes, any allowed lc/lp/pb, with or without a delta filter', () => {
    fc.assert(fc.property(
      fc.uint8Array({ maxLength: 3000 }), fc.constantFrom(...PROPS), fc.option(fc.integer({ min: 1, max: 256 }), { nil: undefined }),
      (data, props, dist) => {
        const lzma1 = { id: LZMA1, ...props };
        const codec = dist === undefined ? raw(lzma1) : raw({ id: DELTA, dist }, lzma1);
        expect(hex(codec.decode(codec.encode(data)))).toBe(hex(data));
      },
    ), { numRuns: 200 });
  });
});

describe('properties LZMA1 refuses (as Python does)', () => {
  it.each([[{ lc: 5, lp: 0 }], [{ lc: 4, lp: 1 }], [{ lc: 0, lp: 5 }], [{ pb: 5 }]])('%o: INVALID_METADATA', (props) => {
    let code: string | undefined;
    try {
      raw({ id: LZMA1, ...props });
    } catch (err) {
      code = isFloeError(err) ? err.code : 'non-Floe';
    }
    expect(code).toBe('INVALID_METADATA');
  });
});
