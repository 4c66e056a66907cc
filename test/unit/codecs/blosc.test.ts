import Blosc from 'numcodecs/blosc';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { bloscV1Compressor, bloscV3Codec } from '../../../src/format/codecs/blosc.ts';
import { BLOSC_CNAMES } from '../../../src/format/codecs/blosc/block-codecs.ts';
import { copyMatch } from '../../../src/format/codecs/blosc/lz4.ts';
import { bitShuffle, bitUnshuffle, byteShuffle, byteUnshuffle } from '../../../src/format/codecs/blosc/shuffle.ts';

function smoothNoise(n: number, seed = 1): Uint8Array {
  const f = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    f[i] = Math.sin(i / 200) * 100 + (s / 2 ** 32) * 0.01;
  }
  return new Uint8Array(f.buffer);
}

const SHUFFLES = ['noshuffle', 'shuffle', 'bitshuffle'] as const;

describe('blosc v3 codec', () => {
  it('fills defaults and typesize from the data type', () => {
    const codec = bloscV3Codec({ cname: 'lz4', clevel: 5, shuffle: 'shuffle' }, { itemSize: 8 });
    expect(codec.toJSON()).toEqual({
      name: 'blosc',
      configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 8, blocksize: 0 },
    });
  });

  it.each([
    [{ cname: 'lz5' }],
    [{ clevel: 10 }],
    [{ shuffle: 1 }],
    [{ typesize: 0 }],
    [{ blocksize: -1 }],
    [{ colour: 'red' }],
  ])('rejects %j with INVALID_METADATA', (config) => {
    expect(() => bloscV3Codec(config, { itemSize: 4 })).toThrow(expect.objectContaining({ code: 'INVALID_METADATA' }));
  });

  // c-blosc (numcodecs.js WASM build) must read what we write, for every compressor it has.
  describe.each(BLOSC_CNAMES)('%s output decodes in c-blosc', (cname) => {
    it.each(SHUFFLES)('shuffle %s', async (shuffle) => {
      // Rounded values repeat, so every mode compresses; odd length leaves a partial block.
      const values = Float32Array.from({ length: 70_001 }, (_, i) => Math.round(Math.sin(i / 300) * 50));
      const data = new Uint8Array(values.buffer).subarray(0, 280_003);
      const ours = bloscV3Codec({ cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 }, { itemSize: 4 });
      const encoded = ours.encode(data);
      expect(encoded.length).toBeLessThan(data.length);
      const peer = Blosc.fromConfig({ cname: 'lz4', clevel: 5, shuffle: 0 });
      const decoded = await peer.decode(encoded);
      expect(Buffer.from(decoded).equals(Buffer.from(data))).toBe(true);
      expect(Buffer.from(ours.decode(encoded)).equals(Buffer.from(data))).toBe(true);
    });
  });

  it('reads what c-blosc writes, for each compressor and shuffle', async () => {
    const data = smoothNoise(50_000);
    for (const cname of BLOSC_CNAMES) {
      for (const shuffle of [0, 1, 2]) {
        const peer = Blosc.fromConfig({ cname, clevel: 5, shuffle, blocksize: 0 });
        const encoded = await peer.encode(data);
        const decoded = bloscV1Compressor({ cname, clevel: 5, shuffle }, { itemSize: 4 }).decode(encoded);
        expect(Buffer.from(decoded).equals(Buffer.from(data)), `${cname}/${shuffle}`).toBe(true);
      }
    }
  });

  it('writes small or clevel-0 buffers memcpyed', () => {
    const codec = bloscV3Codec({ cname: 'lz4', clevel: 0, shuffle: 'noshuffle', typesize: 1, blocksize: 0 }, { itemSize: 1 });
    const data = smoothNoise(1000);
    const encoded = codec.encode(data);
    expect(encoded.length).toBe(data.length + 16);
    expect(encoded[2]! & 0x02).toBe(0x02);
    expect(Buffer.from(codec.decode(encoded)).equals(Buffer.from(data))).toBe(true);
  });

  it('rejects a damaged header, truncated streams and bad offsets with CORRUPT_OBJECT', () => {
    const codec = bloscV3Codec({ cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 }, { itemSize: 4 });
    const encoded = codec.encode(smoothNoise(100_000));
    const cases: Uint8Array[] = [encoded.subarray(0, 10), encoded.subarray(0, encoded.length - 5)];
    const badVersion = encoded.slice();
    badVersion[0] = 7;
    const badOffset = encoded.slice();
    new DataView(badOffset.buffer).setInt32(16, 1 << 30, true);
    const badSize = encoded.slice();
    new DataView(badSize.buffer).setUint32(4, 100_004, true);
    for (const bad of [...cases, badVersion, badOffset, badSize]) {
      let error: unknown;
      try {
        codec.decode(bad);
      } catch (err) {
        error = err;
      }
      expect(isFloeError(error, 'CORRUPT_OBJECT')).toBe(true);
    }
  });
});

describe('shuffle filters', () => {
  it.each([1, 2, 3, 4, 8, 16, 24])('byte and bit shuffle invert for typesize %i', (typesize) => {
    for (const length of [0, 5, 64, 1000, 4099]) {
      const src = smoothNoise(Math.ceil(length / 4) + 1).subarray(0, length);
      const tmp = new Uint8Array(length);
      const back = new Uint8Array(length);
      byteShuffle(src, tmp, typesize);
      byteUnshuffle(tmp, back, typesize);
      expect(back).toEqual(src);
      bitShuffle(src, tmp, typesize);
      bitUnshuffle(tmp, back, typesize);
      expect(back).toEqual(src);
    }
  });

  // Word-at-a-time paths serve typesize 2 and multiples of 4, four elements per step; the counts
  // below leave 0-3 elements and a partial element over for the byte path.
  it.each([2, 3, 4, 8, 12, 16])('byte shuffle puts byte j of element i at j * n + i (typesize %i)', (typesize) => {
    for (const elements of [0, 1, 3, 4, 5, 7, 8, 13, 1026]) {
      for (const extra of [0, 1]) {
        const length = elements * typesize + (typesize > 1 ? extra : 0);
        const src = Uint8Array.from({ length }, (_, k) => (k * 37 + 11) & 255);
        const expected = new Uint8Array(length);
        for (let i = 0; i < elements; i++) for (let j = 0; j < typesize; j++) expected[j * elements + i] = src[i * typesize + j] ?? -1;
        expected.set(src.subarray(elements * typesize), elements * typesize);
        const shuffled = new Uint8Array(length);
        byteShuffle(src, shuffled, typesize);
        expect(shuffled, `${elements} elements + ${extra}`).toEqual(expected);
        const back = new Uint8Array(length);
        byteUnshuffle(expected, back, typesize);
        expect(back, `${elements} elements + ${extra}`).toEqual(src);
      }
    }
  });

  it('bit shuffle puts bit b of byte j of element e at row 8j+b, bit e', () => {
    const src = new Uint8Array(16); // 8 elements of 2 bytes
    src[2 * 3 + 1] = 0b100; // element 3, byte 1, bit 2
    const out = new Uint8Array(16);
    bitShuffle(src, out, 2);
    const expected = new Uint8Array(16);
    expected[8 + 2] = 1 << 3; // row (8*1 + 2), one byte per row, bit 3
    expect(out).toEqual(expected);
  });
});

describe('LZ77 match copy', () => {
  // An overlapping match repeats the `distance` bytes before it: byte k of the match is byte
  // (k mod distance) of that period. Lengths past 32 take the native-copy path.
  it('repeats the period for every distance and length, overlapping or not', () => {
    for (const distance of [1, 2, 3, 4, 7, 8, 31, 33, 64, 100]) {
      for (const length of [4, 31, 32, 33, 64, 65, 99, 257, 1000]) {
        const start = 120;
        const dst = Uint8Array.from({ length: start + length + 8 }, (_, k) => (k < start ? (k * 29 + 3) & 255 : 0xee));
        copyMatch(dst, start, distance, length);
        const period = Array.from({ length: distance }, (_, k) => (((start - distance + k) * 29 + 3) & 255));
        const expected = Array.from({ length }, (_, k) => period[k % distance]);
        expect(Array.from(dst.subarray(start, start + length)), `distance ${distance}, length ${length}`).toEqual(expected);
        expect(Array.from(dst.subarray(start + length)), 'bytes after the match are untouched').toEqual(new Array(8).fill(0xee));
      }
    }
  });
});
