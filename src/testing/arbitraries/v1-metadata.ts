// Zarr v1 arrays as `V1Array.create` takes them: every dtype of v1-dtypes.ts, shapes of rank 1-3
// (v1 has no 0-d arrays) with ragged edges, C or F order, and the compressors zarr 1.x wrote with
// their options as numcodecs/Python accept them: zlib and its gzip alias (level -1..9), bz2, blosc
// (every cname and shuffle), lzma (xz with each check and preset, alone, and raw delta + LZMA1/LZMA2
// chains). Each case carries what a model needs: the memory form, the fill's memory, and a
// generator of valid element values.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { V1ArrayInput } from '../../engine/v1-array.ts';
import { checkedAt } from '../../engine/indexing.ts';
import type { JsonValue } from '../../format/json.ts';
import { randomElements } from './chunk-data.ts';
import type { ElementValues, TestDataType } from './data-types.ts';
import { pick, rng } from './seeded-random.ts';
import { UNICODE_POOL, v1DtypeArb } from './v1-dtypes.ts';

/** A generated Zarr v1 array: what `V1Array.create` takes, and what the model needs to check it. */
export interface V1Case {
  readonly input: V1ArrayInput;
  readonly dtype: TestDataType;
  /** What an unwritten element reads as: memory bytes (zeros for a null fill), or one string. */
  readonly fill: Uint8Array | readonly string[];
  /** `n` element values from `seed` that the dtype can hold (U<n> strings fit n characters). */
  values(n: number, seed: number): ElementValues;
}

/** Options of {@link v1ArrayInputArb}. */
export interface V1CaseOptions {
  /** Draw U<n> scalar dtypes too (default false: their values come only from `values`, not from
   *  `randomElements`, whose strings may not fit). Structured records may hold U fields either way. */
  readonly unicode?: boolean;
}

const LZMA1 = 0x4000000000000001n; // FILTER_LZMA1, written exactly as Python's json writes it
const lzmaFilter = fc.oneof(
  fc.record({ id: fc.constant(33), preset: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ id: fc.constant(33), dict_size: fc.constantFrom(4096, 65536, 1 << 20) }),
  fc.record({ id: fc.constant(LZMA1), dict_size: fc.constantFrom(4096, 1 << 16) }),
  fc.record({ id: fc.constant(LZMA1), preset: fc.integer({ min: 0, max: 9 }), lc: fc.constant(3), lp: fc.constant(0), pb: fc.constant(2) }),
);
const deltas = fc.array(fc.record({ id: fc.constant(3), dist: fc.integer({ min: 1, max: 16 }) }), { maxLength: 2 });

/** lzma compression_opts as numcodecs' LZMA writes them (format 0 is for reading only). */
const lzmaOpts: Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.record({ format: fc.constant(1), check: fc.constantFrom(-1, 0, 1, 4, 10), preset: fc.option(fc.integer({ min: 0, max: 9 })), filters: fc.constant(null) }),
  fc.record({ format: fc.constant(2), check: fc.constant(-1), preset: fc.option(fc.integer({ min: 0, max: 9 })), filters: fc.constant(null) }),
  fc.tuple(deltas, lzmaFilter).map(([d, last]) => ({ format: 3, check: -1, preset: null, filters: [...d, last] })),
);

// bz2 is drawn half as often: its decoder allocates the whole block (100 kB x level) per chunk,
// which makes it by far the slowest compressor on the many tiny chunks generated here.
const compression = fc.oneof(
  { arbitrary: fc.constant({ compression: 'none', compressionOpts: null as JsonValue }), weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom('zlib', 'gzip'), fc.option(fc.integer({ min: -1, max: 9 }))).map(([compression, level]) => ({ compression, compressionOpts: level as JsonValue })), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 9 }).map((level) => ({ compression: 'bz2', compressionOpts: level as JsonValue })), weight: 1 },
  { arbitrary: lzmaOpts.map((opts) => ({ compression: 'lzma', compressionOpts: opts })), weight: 2 },
  {
    arbitrary: fc.record({ cname: fc.constantFrom('blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'), clevel: fc.integer({ min: 0, max: 9 }), shuffle: fc.constantFrom(0, 1, 2) })
      .map((opts) => ({ compression: 'blosc', compressionOpts: opts as JsonValue })),
    weight: 2,
  },
);

/** U<n> values: up to n code points from the pool, never ending in NUL; about a third the fill (v2-metadata.ts too). */
export function unicodeValues(chars: number, fill: string, n: number, seed: number): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    if (r() < 0.3) return fill;
    const points = Array.from({ length: Math.floor(r() * (chars + 1)) }, () => pick(r, UNICODE_POOL));
    while (points[points.length - 1] === '\u0000') points.pop();
    return points.join('');
  });
}

/**
 * fast-check arbitrary of Zarr v1 arrays: every dtype, rank 1-3 shapes, C or F order, and the
 * compressors zarr 1.x wrote (zlib/gzip, bz2, blosc, lzma) with their options.
 */
export function v1ArrayInputArb(options: V1CaseOptions = {}): Arbitrary<V1Case> {
  return fc
    .record({
      dt: v1DtypeArb(options.unicode ?? false),
      dims: fc.array(fc.record({ chunk: fc.integer({ min: 1, max: 4 }), extra: fc.nat(5) }), { minLength: 1, maxLength: 3 }),
      compression,
      layout: fc.constantFrom('C' as const, 'F' as const),
    })
    .map(({ dt, dims, compression: c, layout }): V1Case => ({
      dtype: dt.dtype,
      fill: dt.fillMemory,
      values: (n, seed) => (dt.chars > 0 ? unicodeValues(dt.chars, checkedAt(dt.fillMemory as readonly string[], 0, 'INVALID_ARGUMENT', 'string fill value'), n, seed) : randomElements(dt.dtype, dt.fillMemory, n, seed)),
      input: {
        shape: dims.map((d) => d.chunk + d.extra), chunks: dims.map((d) => d.chunk), dtype: dt.json,
        compression: c.compression, compressionOpts: c.compressionOpts, order: layout, fillValue: dt.fill,
      },
    }));
}
