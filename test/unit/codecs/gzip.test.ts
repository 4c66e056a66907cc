// The gzip and zlib streams of both deflate backends: node:zlib (used on Node) and the fflate
// fallback (forced here). Each must read what the other writes, write the same standard header and
// trailer, and refuse the same damaged streams.
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { deflateBackend, nodeZlibBackend, pickDeflateBackend, type DeflateBackend } from '../../../src/format/codecs/deflate-backend.ts';
import { crc32, fflateBackend } from '../../../src/format/codecs/fflate-backend.ts';
import { gzipCodecOn } from '../../../src/format/codecs/gzip.ts';
import { zlibCompressor } from '../../../src/format/codecs/zlib.ts';

const node = nodeZlibBackend(zlib);
const BACKENDS: readonly DeflateBackend[] = [node, fflateBackend];
const PAIRS = BACKENDS.flatMap((writer) => BACKENDS.map((reader) => [writer.name, reader.name, writer, reader] as const));

const text = new TextEncoder().encode('zarr chunk, '.repeat(500));
const smooth = new Uint8Array(Float32Array.from({ length: 20000 }, (_, i) => Math.sin(i / 40)).buffer);
const noise = Uint8Array.from({ length: 70000 }, (_, i) => (i * 2654435761) >>> 24);
const SAMPLES: readonly [string, Uint8Array][] = [['empty', new Uint8Array(0)], ['one byte', Uint8Array.of(7)], ['text', text], ['floats', smooth], ['noise', noise]];

/** Byte equality without vitest's element-by-element diff (slow on 80 KB arrays). */
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return isFloeError(err) ? err.code : `non-Floe: ${String(err)}`;
  }
  return 'no error';
}

describe('choosing the backend', () => {
  it('uses node:zlib on Node', async () => {
    expect(deflateBackend.name).toBe('node:zlib');
    expect((await pickDeflateBackend((id) => (id === 'node:zlib' ? zlib : undefined))).name).toBe('node:zlib');
  });

  it.each([
    ['finds nothing', () => undefined],
    ['throws', () => { throw new Error('no such module'); }],
    ['finds something else', () => ({ gunzipSync: 'not a function' })],
  ])('falls back to fflate when the loader %s', async (_label, load) => {
    expect((await pickDeflateBackend(load)).name).toBe('fflate');
  });
});

describe('gzip codec on both backends', () => {
  it.each(PAIRS)('%s writes, %s reads, every level and sample', (_w, _r, writer, reader) => {
    for (const level of [0, 1, 6, 9]) {
      for (const [, data] of SAMPLES) {
        const encoded = gzipCodecOn(writer)({ level }, { itemSize: 1 }).encode(data);
        expect(sameBytes(gzipCodecOn(reader)({ level }, { itemSize: 1 }).decode(encoded), data)).toBe(true);
      }
    }
  });

  it('both write the same 10-byte header (mtime 0, XFL by level, OS unix) and the same trailer', () => {
    for (const level of [0, 1, 6, 9]) {
      const a = node.gzip(text, level);
      const b = fflateBackend.gzip(text, level);
      const xfl = level < 2 ? 4 : level === 9 ? 2 : 0;
      expect([...a.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 3]);
      expect([...b.subarray(0, 10)]).toEqual([...a.subarray(0, 10)]);
      const trailer = new DataView(new ArrayBuffer(8));
      trailer.setUint32(0, crc32(text), true);
      trailer.setUint32(4, text.length, true);
      expect([...a.subarray(-8)]).toEqual([...new Uint8Array(trailer.buffer)]);
      expect([...b.subarray(-8)]).toEqual([...new Uint8Array(trailer.buffer)]);
    }
  });

  it('crc32 matches the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it.each(BACKENDS.map((b) => [b.name, b] as const))('%s reads a stream of several members', (_n, reader) => {
    const two = new Uint8Array([...node.gzip(text, 1), ...fflateBackend.gzip(Uint8Array.of(1, 2, 3), 9)]);
    expect(sameBytes(reader.gunzip(two), new Uint8Array([...text, 1, 2, 3]))).toBe(true);
  });

  const good = node.gzip(text, 6);
  const damaged: readonly [string, Uint8Array][] = [
    ['empty', new Uint8Array(0)],
    ['truncated data', good.subarray(0, 30)],
    ['truncated trailer', good.subarray(0, good.length - 3)],
    ['a flipped CRC bit', Uint8Array.from(good, (b, i) => (i === good.length - 8 ? b ^ 1 : b))],
    ['a wrong size', Uint8Array.from(good, (b, i) => (i === good.length - 4 ? b ^ 1 : b))],
    ['bad magic', Uint8Array.from(good, (b, i) => (i === 0 ? 0 : b))],
    ['junk after the member', new Uint8Array([...good, 0x6a, 0x75, 0x6e, 0x6b])],
  ];
  it.each(BACKENDS.flatMap((b) => damaged.map(([label, data]) => [b.name, label, b, data] as const)))('%s refuses %s with CORRUPT_OBJECT', (_n, _l, backend, data) => {
    expect(codeOf(() => gzipCodecOn(backend)({ level: 1 }, { itemSize: 1 }).decode(data))).toBe('CORRUPT_OBJECT');
  });
});

describe('zlib streams (the v1 zlib compressor) on both backends', () => {
  it.each(PAIRS)('%s writes, %s reads', (_w, _r, writer, reader) => {
    for (const level of [-1, 0, 1, 9]) {
      for (const [, data] of SAMPLES) expect(sameBytes(reader.unzip(writer.zlib(data, level)), data)).toBe(true);
    }
  });

  it.each(BACKENDS.map((b) => [b.name, b] as const))('%s unzip also reads gzip (the v1 alias)', (_n, backend) => {
    expect(sameBytes(backend.unzip(node.gzip(smooth, 5)), smooth)).toBe(true);
  });

  it.each(BACKENDS.map((b) => [b.name, b] as const))('%s refuses a wrong Adler-32', (_n, backend) => {
    const stream = node.zlib(text, 6);
    stream[stream.length - 1]! ^= 1;
    expect(() => backend.unzip(stream)).toThrow();
  });

  it('the v1 compressor round-trips through the runtime backend', () => {
    const codec = zlibCompressor('zlib', 9);
    expect(sameBytes(codec.decode(codec.encode(smooth)), smooth)).toBe(true);
  });
});
