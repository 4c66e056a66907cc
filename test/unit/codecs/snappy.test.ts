// Blosc's snappy streams through snappy-wasm (src/format/codecs/blosc/snappy.ts): the same bytes as
// c-blosc's C++ snappy, the stated size checked before the library sees a stream, library failures as
// -1 (the container's CORRUPT_OBJECT), and no large WebAssembly memory kept between calls.
import { createRequire } from 'node:module';
import Blosc from 'numcodecs/blosc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isFloeError } from '../../../src/errors.ts';
import { bloscCompress } from '../../../src/format/codecs/blosc/compress.ts';
import { bloscDecompress, FLAG_MEMCPYED, HEADER_BYTES, readHeader, streamsPerBlock } from '../../../src/format/codecs/blosc/container.ts';
import {
  RETAINED_MEMORY_LIMIT, snappyCompress, snappyDecompress, snappyRetainedMemory, snappyStatedLength,
} from '../../../src/format/codecs/blosc/snappy.ts';

interface SnappyWasm {
  compress_raw(input: Uint8Array): Uint8Array;
  decompress_raw(input: Uint8Array): Uint8Array;
}
const requireFromTest = createRequire(import.meta.url);
/** The module object Floe's wrapper calls (one require cache for both). */
const loadedLibrary = (): SnappyWasm => requireFromTest('snappy-wasm') as SnappyWasm;

afterEach(() => {
  vi.restoreAllMocks();
});

function field(n: number, seed = 1): Uint8Array {
  const f = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    f[i] = Math.sin(i / 200) * 100 + (s / 2 ** 32) * 0.01;
  }
  return new Uint8Array(f.buffer);
}

const counts = (n: number): Uint8Array => new Uint8Array(Int32Array.from({ length: n }, (_, i) => (i % 7 === 0 ? (i * 31) % 50 : 0)).buffer);

/** A varint, as snappy's preamble writes the decoded length. */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 128; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
}

function encoded(data: Uint8Array): Uint8Array {
  const room = new Uint8Array(32 + data.length + Math.ceil(data.length / 6));
  const n = snappyCompress(data, room);
  expect(n).toBeGreaterThan(0);
  return room.slice(0, n);
}

/** The compressed streams in a c-blosc buffer (noshuffle, typesize 1: one per block), each with its input. */
async function cbloscStreams(input: Uint8Array): Promise<{ stream: Uint8Array; decoded: Uint8Array }[]> {
  const buf = await Blosc.fromConfig({ cname: 'snappy', clevel: 5, shuffle: 0, blocksize: 0 }).encode(input);
  const h = readHeader(buf);
  if (h.flags & FLAG_MEMCPYED) return [];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const found: { stream: Uint8Array; decoded: Uint8Array }[] = [];
  for (let b = 0; b < Math.ceil(h.nbytes / h.blocksize); b++) {
    const size = Math.min(h.blocksize, h.nbytes - b * h.blocksize);
    const streams = streamsPerBlock(h.flags, h.typesize, h.blocksize, size < h.blocksize);
    let ip = view.getInt32(HEADER_BYTES + 4 * b, true);
    for (let s = 0; s < streams; s++) {
      const csize = view.getInt32(ip, true);
      const start = b * h.blocksize + s * (size / streams);
      if (csize !== size / streams) found.push({ stream: buf.slice(ip + 4, ip + 4 + csize), decoded: input.subarray(start, start + size / streams) });
      ip += 4 + csize;
    }
  }
  return found;
}

describe('snappy streams, against c-blosc (numcodecs.js)', () => {
  it("decodes c-blosc's streams exactly and encodes the same inputs to the same bytes", async () => {
    const streams = [
      ...(await cbloscStreams(field(200_000))),
      ...(await cbloscStreams(counts(300_000))),
      ...(await cbloscStreams(new Uint8Array(100_000))),
    ];
    expect(streams.length).toBeGreaterThan(10);
    for (const { stream, decoded } of streams) {
      const out = new Uint8Array(decoded.length);
      expect(snappyDecompress(stream, out)).toBe(decoded.length);
      expect(Buffer.from(out).equals(Buffer.from(decoded))).toBe(true);
      expect(Buffer.from(encoded(decoded)).equals(Buffer.from(stream))).toBe(true);
    }
  });
});

describe('snappy decoding: the stated size first, then the library', () => {
  it('reads the varint preamble, refusing one longer than 5 bytes or past 32 bits', () => {
    expect(snappyStatedLength(Uint8Array.of(...varint(0)))).toBe(0);
    expect(snappyStatedLength(Uint8Array.of(...varint(300), 0))).toBe(300);
    expect(snappyStatedLength(Uint8Array.of(...varint(2 ** 32 - 1)))).toBe(2 ** 32 - 1);
    expect(snappyStatedLength(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x10))).toBe(-1); // 2^32
    expect(snappyStatedLength(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01))).toBe(-1);
    expect(snappyStatedLength(Uint8Array.of(0x80))).toBe(-1);
    expect(snappyStatedLength(new Uint8Array(0))).toBe(-1);
  });

  it.each([
    ['2 GiB', 2 ** 31],
    ['4 GiB - 1 (the library traps on it)', 2 ** 32 - 1],
    ['one byte more than expected', 1025],
    ['one byte less than expected', 1023],
  ])('refuses a stream stating %s for a 1 KiB destination without calling the library', (_label, stated) => {
    snappyDecompress(encoded(new Uint8Array(8)), new Uint8Array(8)); // the library is loaded
    const decode = vi.spyOn(loadedLibrary(), 'decompress_raw');
    const bomb = Uint8Array.of(...varint(stated), 0, 0x41); // then a 1-byte literal
    expect(snappyDecompress(bomb, new Uint8Array(1024))).toBe(-1);
    expect(decode).not.toHaveBeenCalled();
  });

  it('returns -1, never throws, for streams the library rejects', () => {
    const data = counts(20_000);
    const good = encoded(data);
    const out = new Uint8Array(data.length);
    const cases: Uint8Array[] = [
      good.subarray(0, good.length - 3), // truncated
      Uint8Array.of(...varint(10), 0, 0x41), // states 10, holds 1
      Uint8Array.of(...varint(10), (1 << 2) | 1, 5), // a copy before any output
      Uint8Array.of(...varint(1), 4, 0x41, 0x42), // a 2-byte literal where 1 is stated
    ];
    for (const stream of cases) {
      const dst = new Uint8Array(Math.max(0, snappyStatedLength(stream)));
      expect(snappyDecompress(stream, dst)).toBe(-1);
    }
    expect(snappyDecompress(good, out)).toBe(data.length);
    expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
  });

  it('drops an instance that trapped: the next stream decodes in a fresh one', () => {
    const data = field(1000);
    const stream = encoded(data);
    const trapped = loadedLibrary();
    vi.spyOn(trapped, 'decompress_raw').mockImplementationOnce(() => {
      throw Object.assign(new Error('unreachable'), { name: 'RuntimeError' });
    });
    expect(snappyDecompress(stream, new Uint8Array(data.length))).toBe(-1);
    const out = new Uint8Array(data.length);
    expect(snappyDecompress(stream, out)).toBe(data.length);
    expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
    expect(loadedLibrary()).not.toBe(trapped);
  });

  it(`keeps at most ${RETAINED_MEMORY_LIMIT} bytes of WebAssembly memory after a large block`, () => {
    snappyDecompress(encoded(new Uint8Array(8)), new Uint8Array(8));
    expect(snappyRetainedMemory()).toBeGreaterThan(0); // the measure sees the loaded instance
    // 40 MiB in blocks of 36 MiB (a buffer of one block is stored raw): block 0 alone needs more.
    const data = counts(10 * 2 ** 20);
    const buffer = bloscCompress(data, { cname: 'snappy', clevel: 5, shuffle: 0, typesize: 1, blocksize: 36 * 2 ** 20 });
    expect(readHeader(buffer).blocksize).toBe(36 * 2 ** 20);
    expect(readHeader(buffer).flags & FLAG_MEMCPYED).toBe(0);
    expect(Buffer.from(bloscDecompress(buffer)).equals(Buffer.from(data))).toBe(true);
    expect(snappyRetainedMemory()).toBeLessThanOrEqual(RETAINED_MEMORY_LIMIT);
  });
});

describe('blosc buffers with snappy streams', () => {
  const data = counts(100_000); // every stream compresses, so block 0 stream 0 is a snappy stream
  const options = { cname: 'snappy', clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 } as const;

  /** A copy whose block 0 stream 0 states the most its varint's width can (rewritten in place). */
  function withLargestStatedLength(buffer: Uint8Array): { copy: Uint8Array; stated: number; streamSize: number } {
    const copy = buffer.slice();
    const view = new DataView(copy.buffer);
    const start = view.getInt32(HEADER_BYTES, true) + 4;
    const streamSize = snappyStatedLength(copy.subarray(start));
    expect(view.getInt32(start - 4, true)).toBeLessThan(streamSize); // compressed, not stored
    const width = varint(streamSize).length;
    copy.fill(0xff, start, start + width - 1);
    copy[start + width - 1] = 0x7f;
    return { copy, stated: snappyStatedLength(copy.subarray(start)), streamSize };
  }

  it('refuses a stream stating more than its block with CORRUPT_OBJECT, before the library runs', () => {
    const buffer = bloscCompress(data, options);
    expect(Buffer.from(bloscDecompress(buffer)).equals(Buffer.from(data))).toBe(true);
    const decode = vi.spyOn(loadedLibrary(), 'decompress_raw');
    const { copy: bomb, stated, streamSize } = withLargestStatedLength(buffer);
    expect(stated).toBeGreaterThan(streamSize);
    let caught: unknown;
    try {
      bloscDecompress(bomb);
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught) && caught.code).toBe('CORRUPT_OBJECT');
    expect(isFloeError(caught) && caught.message).toMatch(/block 0 stream 0 \(snappy\)/);
    expect(decode).not.toHaveBeenCalled();
  });

  it('refuses a header stating more than maxBytes with LIMIT_EXCEEDED', () => {
    const buffer = bloscCompress(data, options);
    expect(() => bloscDecompress(buffer, data.length - 1)).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', details: expect.objectContaining({ kind: 'decoded-bytes' }) }));
  });
});
