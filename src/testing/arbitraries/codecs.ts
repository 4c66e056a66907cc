// Codec chains for a chunk shape: an optional transpose, `bytes` (either endianness) or
// `sharding_indexed` (nested up to a depth, index at start or end, optional crc32c index), then up
// to two bytes-to-bytes codecs (gzip, zstd, blosc with every compressor and shuffle, crc32c).
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { CodecMetadata } from '../../format/codecs/types.ts';
import { checkedAt } from '../../engine/indexing.ts';
import type { TestDataType } from './data-types.ts';

/** The bytes-to-bytes codecs the arbitraries draw from. */
export type CompressorName = 'gzip' | 'zstd' | 'blosc' | 'crc32c';

/** Options of the codec arbitraries ({@link codecChainArb}, {@link bytesToBytesArb}). */
export interface CodecOptions {
  /** Nesting levels of sharding allowed (0: none); default 2. */
  readonly shardingDepth?: number;
  /** Default both. */
  readonly indexLocations?: readonly ('start' | 'end')[];
  /** Bytes-to-bytes codecs to draw from; default all four. */
  readonly compressors?: readonly CompressorName[];
  /** Default true. */
  readonly transpose?: boolean;
  /** Byte orders of the shard index; default both. */
  readonly indexEndians?: readonly ('little' | 'big')[];
  /** Bytes-to-bytes codecs after `sharding_indexed` (compressing whole shards); default true. */
  readonly afterSharding?: boolean;
  /** `sharding_indexed` after a `transpose` (shards of the transposed chunk); default true. */
  readonly transposeBeforeSharding?: boolean;
  /** `bytes` with `endian: "big"` on bool (no effect on one-byte types); default true. */
  readonly bigEndianBool?: boolean;
}

const ALL_COMPRESSORS: readonly CompressorName[] = ['gzip', 'zstd', 'blosc', 'crc32c'];

const compressorArbs: Record<CompressorName, Arbitrary<CodecMetadata>> = {
  gzip: fc.integer({ min: 0, max: 9 }).map((level): CodecMetadata => ({ name: 'gzip', configuration: { level } })),
  zstd: fc.record({ level: fc.integer({ min: -5, max: 19 }), checksum: fc.boolean() }).map((configuration): CodecMetadata => ({ name: 'zstd', configuration })),
  blosc: fc.record({
    cname: fc.constantFrom('blosclz', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd'),
    clevel: fc.integer({ min: 0, max: 9 }),
    shuffle: fc.constantFrom('noshuffle', 'shuffle', 'bitshuffle'),
    typesize: fc.integer({ min: 1, max: 8 }),
    blocksize: fc.constantFrom(0, 16, 64, 256),
  }).map((configuration): CodecMetadata => ({ name: 'blosc', configuration })),
  crc32c: fc.constant<CodecMetadata>({ name: 'crc32c' }),
};

/** Up to two bytes-to-bytes codecs. */
export function bytesToBytesArb(options: CodecOptions = {}): Arbitrary<CodecMetadata[]> {
  const names = options.compressors ?? ALL_COMPRESSORS;
  if (names.length === 0) return fc.constant([]);
  return fc.array(fc.oneof(...names.map((n) => compressorArbs[n])), { maxLength: 2 });
}

/** The array-to-bytes codec of a plain chunk: `bytes` (endian required above one byte) or `vlen-utf8`. */
export function arrayToBytesLeafArb(d: TestDataType, options: CodecOptions = {}): Arbitrary<CodecMetadata> {
  if (d.kind === 'string') return fc.constant({ name: 'vlen-utf8' });
  const endians = d.swapWidth > 1 ? (['little', 'big'] as const)
    : d.kind === 'bool' && options.bigEndianBool === false ? ([undefined, 'little'] as const)
    : ([undefined, 'little', 'big'] as const);
  return fc.constantFrom(...endians).map((endian) => (endian ? { name: 'bytes', configuration: { endian } } : { name: 'bytes' }));
}

const divisors = (n: number): number[] => [...Array(n).keys()].map((i) => i + 1).filter((k) => n % k === 0);

/** A codec chain for chunks of `shape`. */
export function codecChainArb(d: TestDataType, shape: readonly number[], options: CodecOptions = {}): Arbitrary<CodecMetadata[]> {
  return chainArb(d, shape, options.shardingDepth ?? 2, options);
}

function chainArb(d: TestDataType, shape: readonly number[], depth: number, options: CodecOptions): Arbitrary<CodecMetadata[]> {
  const rank = shape.length;
  const transpose = rank >= 2 && options.transpose !== false
    ? fc.option(fc.shuffledSubarray([...Array(rank).keys()], { minLength: rank, maxLength: rank }), { freq: 2 })
    : fc.constant(null);
  const after = bytesToBytesArb(options);
  return transpose.chain((order) => {
    const inner = order ? order.map((o) => checkedAt(shape, o, 'INVALID_ARGUMENT', 'transpose order')) : shape;
    const sharding = fc
      .tuple(fc.tuple(...inner.map((n) => fc.constantFrom(...divisors(n)))), fc.constantFrom(...(options.indexLocations ?? ['start', 'end'] as const)), fc.constantFrom(...(options.indexEndians ?? ['little', 'big'] as const)), fc.boolean())
      .chain(([innerShape, indexLocation, endian, crc]) =>
        chainArb(d, innerShape, depth - 1, options).map((codecs): CodecMetadata => ({
          name: 'sharding_indexed',
          configuration: {
            chunk_shape: innerShape,
            codecs,
            index_codecs: [{ name: 'bytes', configuration: { endian } }, ...(crc ? [{ name: 'crc32c' }] : [])],
            index_location: indexLocation,
          },
        })),
      );
    const leaf = arrayToBytesLeafArb(d, options);
    const shards = depth > 0 && !(order && options.transposeBeforeSharding === false);
    const a2b = shards ? fc.oneof({ arbitrary: leaf, weight: 2 }, { arbitrary: sharding, weight: 1 }) : leaf;
    // Compressors after a shard would stop partial shard reads; keep them inside most of the time.
    return fc.tuple(a2b, after).map(([codec, rest]) => [
      ...(order ? [{ name: 'transpose', configuration: { order } }] : []),
      codec,
      ...(codec.name === 'sharding_indexed' ? rest.slice(0, options.afterSharding === false ? 0 : 1) : rest),
    ]);
  });
}
