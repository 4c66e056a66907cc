// Blosc decoded straight into a result's rows (BytesToBytesCodec.decodeIntoRuns, used by
// CodecChain.decodeRegion when a chunk's rows are whole in the result): byte for byte what the
// chunk holds, in every row of any selection of whole rows, for every compressor, shuffle,
// typesize and block size, with both LZ4 backends; nothing written outside the rows, and damaged
// buffers end in a FloeError, never a foreign error or a write outside the rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { byteUnshuffleRange } from '../../src/format/codecs/blosc/shuffle.ts';
import { buildCodecChain } from '../../src/format/codecs/pipeline.ts';
import type { BytesToBytesCodec } from '../../src/format/codecs/types.ts';
import { allCodecImplementations } from '../../src/format/codecs/registry.ts';
import { parseDataType } from '../../src/format/zarr/data-types.ts';
import { parseFillValue } from '../../src/format/zarr/fill-value.ts';
import { rowRuns } from '../../src/format/zarr/row-runs.ts';
import type { StridedView } from '../../src/format/zarr/ndarray.ts';
import { HOSTILE_SEED, hostileRuns } from '../support/hostile-runs.ts';
import { describeEachLz4Backend } from '../support/lz4.ts';

await allCodecImplementations();

const RUNS = Number(process.env['FLOE_BLOSC_RUNS_PROPERTY_RUNS'] ?? 80);
const SENTINEL = 0xa5;
const DTYPES = { uint8: 1, int16: 2, float32: 4, float64: 8 } as const;
type DtypeName = keyof typeof DTYPES;

interface Case {
  dtype: DtypeName;
  /** Chunk shape; the last dimension is a row of at least 512 bytes. */
  shape: number[];
  /** Selected range of dimension 0 (the others are whole). */
  start: number;
  count: number;
  /** Extra elements after each row of the result, and before its first element. */
  pad: number;
  offset: number;
  blosc: { cname: string; clevel: number; shuffle: string; typesize: number; blocksize: number };
  seed: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    dtype: fc.constantFrom<DtypeName>('uint8', 'int16', 'float32', 'float64'),
    outer: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 0, maxLength: 2 }),
    extraRow: fc.integer({ min: 0, max: 300 }),
    pad: fc.integer({ min: 0, max: 9 }),
    offset: fc.integer({ min: 0, max: 7 }),
    blosc: fc.record({
      cname: fc.constantFrom('lz4', 'lz4', 'blosclz', 'zstd', 'zlib', 'snappy'),
      clevel: fc.integer({ min: 0, max: 9 }),
      shuffle: fc.constantFrom('shuffle', 'shuffle', 'noshuffle', 'bitshuffle'),
      typesize: fc.integer({ min: 1, max: 16 }),
      blocksize: fc.constantFrom(0, 0, 16, 100, 512, 1000, 4096, 65536),
    }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    startFrac: fc.double({ min: 0, max: 1, noNaN: true }),
    countFrac: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ dtype, outer, extraRow, pad, offset, blosc, seed, startFrac, countFrac }) => {
    const rowElems = Math.ceil(512 / DTYPES[dtype]) + extraRow;
    const shape = [...outer, rowElems];
    // A 1-d chunk is one run of what is selected: at least 512 bytes of it.
    const least = outer.length === 0 ? Math.ceil(512 / DTYPES[dtype]) : 1;
    const first = shape[0] ?? 1;
    const start = Math.floor(startFrac * (first - least));
    const count = least + Math.floor(countFrac * (first - start - least));
    return { dtype, shape, start, count, pad, offset, blosc, seed };
  });

/** Chunk bytes with repeats and runs (something to compress) and some noise. */
function chunkBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (i & 64) === 0 ? (i >> 7) & 255 : s >>> 29;
  }
  return out;
}

/** The chain's Blosc codec, which must offer decodeIntoRuns. */
function bloscOf(chain: ReturnType<typeof chainFor>): Required<Pick<BytesToBytesCodec, 'encode' | 'decodeIntoRuns'>> {
  const codec = chain.bytesCodecs[0];
  if (!codec?.decodeIntoRuns) throw new Error('the chain has no Blosc codec with decodeIntoRuns');
  return { encode: (b) => codec.encode(b), decodeIntoRuns: (b, r) => codec.decodeIntoRuns?.(b, r) ?? false };
}

function chainFor(c: Case) {
  const dataType = parseDataType(c.dtype);
  return buildCodecChain(
    [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'blosc', configuration: c.blosc }],
    { shape: c.shape, dataType, fillValue: parseFillValue(dataType, 0) },
  );
}

/** The result the case writes into: a padded block of memory, sentinel bytes everywhere. */
function resultFor(c: Case) {
  const item = DTYPES[c.dtype];
  const rank = c.shape.length;
  const rowElems = c.shape[rank - 1] ?? 0;
  const counts = c.shape.map((n, d) => (d === 0 ? c.count : n));
  const stride = new Array<number>(rank).fill(1);
  for (let d = rank - 2; d >= 0; d--) stride[d] = (stride[d + 1] ?? 1) * (d === rank - 2 ? rowElems + c.pad : (counts[d + 1] ?? 1));
  const elems = c.offset + (stride[0] ?? 1) * (counts[0] ?? 1) + c.pad;
  const bytes = new Uint8Array(elems * item).fill(SENTINEL);
  const data = parseDataType(c.dtype).allocate(0).constructor as new (b: ArrayBuffer) => StridedView['data'];
  const view: StridedView = { data: new data(bytes.buffer), offset: c.offset, stride };
  return { bytes, view };
}

/** What the result must hold: each selected row of the chunk's bytes at its place, sentinels elsewhere. */
function expectedResult(c: Case, chunk: Uint8Array): Uint8Array {
  const item = DTYPES[c.dtype];
  const rank = c.shape.length;
  const rowElems = c.shape[rank - 1] ?? 0;
  const { bytes } = resultFor(c);
  if (rank === 1) {
    bytes.set(chunk.subarray(c.start * item, (c.start + c.count) * item), c.offset * item);
    return bytes;
  }
  const rowsPerOuter = c.shape.slice(1, rank - 1).reduce((a, b) => a * b, 1);
  for (let i = 0; i < c.count; i++) {
    for (let j = 0; j < rowsPerOuter; j++) {
      const from = ((c.start + i) * rowsPerOuter + j) * rowElems * item;
      const to = (c.offset + (i * rowsPerOuter + j) * (rowElems + c.pad)) * item;
      bytes.set(chunk.subarray(from, from + rowElems * item), to);
    }
  }
  return bytes;
}

function projections(c: Case) {
  return c.shape.map((n, d) => (d === 0 ? { chunk: 0, start: c.start, step: 1, count: c.count, outStart: 0 } : { chunk: 0, start: 0, step: 1, count: n, outStart: 0 }));
}

describeEachLz4Backend('Blosc decoded into a result\'s rows', () => {
  it('writes exactly the selected rows of the chunk, through the codec and through decodeRegion', () => {
    let direct = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const chain = chainFor(c);
        const n = c.shape.reduce((a, b) => a * b, 1) * DTYPES[c.dtype];
        const chunk = chunkBytes(n, c.seed);
        const encoded = bloscOf(chain).encode(chunk);
        const expected = expectedResult(c, chunk);
        const ps = projections(c);

        const viaChain = resultFor(c);
        chain.decodeRegion(encoded, ps, viaChain.view);
        expect(Buffer.from(viaChain.bytes).equals(Buffer.from(expected))).toBe(true);

        const viaCodec = resultFor(c);
        const runs = rowRuns(chain.spec, ps, viaCodec.view);
        if (!runs) throw new Error('whole rows of at least 512 bytes must give runs');
        const took = bloscOf(chain).decodeIntoRuns(encoded, runs);
        // Only a buffer stored whole (memcpyed) is left to the ordinary path, untouched.
        const memcpyed = ((encoded[2] ?? 0) & 0x02) !== 0;
        expect(took).toBe(!memcpyed);
        if (took) {
          direct++;
          expect(Buffer.from(viaCodec.bytes).equals(Buffer.from(expected))).toBe(true);
        } else {
          expect(viaCodec.bytes.every((b) => b === SENTINEL)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
    expect(direct).toBeGreaterThan(RUNS / 4); // the rest were stored whole (clevel 0, incompressible)
  });

  it('a buffer whose decoded size is not the chunk\'s is declined with nothing written', () => {
    const c: Case = { dtype: 'float32', shape: [4, 256], start: 0, count: 4, pad: 3, offset: 1, blosc: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: 4, blocksize: 0 }, seed: 5 };
    const chain = chainFor(c);
    const shorter = bloscOf(chain).encode(chunkBytes(4 * 255 * 4, 3));
    const { bytes, view } = resultFor(c);
    const runs = rowRuns(chain.spec, projections(c), view);
    expect(runs).toBeDefined();
    expect(runs && bloscOf(chain).decodeIntoRuns(shorter, runs)).toBe(false);
    expect(bytes.every((b) => b === SENTINEL)).toBe(true);
  });

  it('damaged buffers end in a FloeError or some value, never a write outside the rows', () => {
    const inputs = fc.tuple(caseArb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), fc.nat());
    fc.assert(
      fc.property(inputs, ([c, flips, cut]) => {
        const chain = chainFor(c);
        const n = c.shape.reduce((a, b) => a * b, 1) * DTYPES[c.dtype];
        const encoded = Uint8Array.from(bloscOf(chain).encode(chunkBytes(n, c.seed)));
        for (const [at, value] of flips) encoded[at % encoded.length] = value;
        const damaged = cut % 3 === 0 ? encoded.subarray(0, cut % encoded.length) : encoded;
        const { bytes, view } = resultFor(c);
        const runs = rowRuns(chain.spec, projections(c), view);
        if (!runs) throw new Error('whole rows of at least 512 bytes must give runs');
        try {
          bloscOf(chain).decodeIntoRuns(damaged, runs);
        } catch (err) {
          expect(isFloeError(err), String(err)).toBe(true);
        }
        // Bytes outside every row keep their sentinel.
        const inRow = new Uint8Array(bytes.length);
        for (const v of runs.views) inRow.fill(1, v.byteOffset, v.byteOffset + v.length);
        expect(bytes.every((b, i) => inRow[i] === 1 || b === SENTINEL)).toBe(true);
      }),
      { numRuns: hostileRuns(150), seed: HOSTILE_SEED },
    );
  });
});

describe('byteUnshuffleRange', () => {
  it('writes elements [first, first + count) of the unshuffled block at the given byte', () => {
    const arb = fc.record({ typesize: fc.integer({ min: 1, max: 17 }), n: fc.integer({ min: 0, max: 200 }), a: fc.nat(), b: fc.nat(), at: fc.integer({ min: 0, max: 9 }), seed: fc.nat() });
    fc.assert(
      fc.property(arb, ({ typesize, n, a, b, at, seed }) => {
        const src = chunkBytes(n * typesize, seed + 1);
        // Byte j of element i is at j * n + i in the shuffled block.
        const whole = Uint8Array.from({ length: n * typesize }, (_, k) => src[(k % typesize) * n + Math.floor(k / typesize)] ?? -1);
        const first = n === 0 ? 0 : a % n;
        const count = n === 0 ? 0 : b % (n - first + 1);
        const dst = new Uint8Array(at + count * typesize + 3).fill(SENTINEL);
        byteUnshuffleRange(new DataView(src.buffer), typesize, n, first, count, new DataView(dst.buffer), at);
        const expected = new Uint8Array(dst.length).fill(SENTINEL);
        expected.set(whole.subarray(first * typesize, (first + count) * typesize), at);
        expect(Buffer.from(dst).equals(Buffer.from(expected))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
