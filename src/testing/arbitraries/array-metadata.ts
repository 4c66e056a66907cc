// A whole Zarr v3 array: data type, shape (0-d to 5-d, ragged edges, zero-length dimensions),
// regular chunk grid, codec chain and fill value. `ArrayCase` keeps the model's view (memory bytes
// of the fill) beside the metadata input; `arrayMetadataInput` is what an implementation creates.
import { zipMap } from '../../engine/indexing.ts';
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { CodecMetadata } from '../../format/codecs/types.ts';
import type { ArrayMetadataInput } from '../../format/zarr/metadata.ts';
import { codecChainArb, type CodecOptions } from './codecs.ts';
import { DATA_TYPES, dataTypeNamed, type TestDataType } from './data-types.ts';
import { fillValueArb, type Fill, type FillOptions } from './fill-values.ts';

/**
 * A generated Zarr v3 array: data type, shape, chunk shape, codec chain and fill value (with its
 * memory bytes for the model). {@link arrayMetadataInput} turns it into what a writer takes.
 */
export interface ArrayCase {
  readonly dtype: TestDataType;
  readonly shape: number[];
  readonly chunkShape: number[];
  readonly codecs: CodecMetadata[];
  readonly fill: Fill;
}

/** Options of {@link arrayCaseArb}: which data types, ranks, sizes, codecs and fill forms to draw. */
export interface ArrayCaseOptions extends CodecOptions, FillOptions {
  /** Data type names to draw from; default every one in DATA_TYPES. */
  readonly dataTypes?: readonly string[];
  /** Default 0 and 5. */
  readonly minRank?: number;
  readonly maxRank?: number;
  /** Largest number of elements in the array (default 240) and in one chunk (default 216). */
  readonly maxElements?: number;
  readonly maxChunkElements?: number;
  /** Only arrays with at least one element (no zero-length dimension); default false. */
  readonly nonEmpty?: boolean;
}

/** Shrinks the largest entries until the product is at most `max` (keeps test arrays small). */
function capProduct(xs: number[], max: number, min: number): number[] {
  const out = [...xs];
  while (out.reduce((a, b) => a * Math.max(b, 1), 1) > max) {
    const largest = Math.max(...out);
    out[out.indexOf(largest)] = Math.max(min, Math.floor(largest / 2));
  }
  return out;
}

/**
 * fast-check arbitrary of whole arrays: any data type, 0-d to 5-d shapes with ragged edges and empty
 * dimensions, a regular chunk grid, a codec chain and a fill value.
 */
export function arrayCaseArb(options: ArrayCaseOptions = {}): Arbitrary<ArrayCase> {
  const dtypes = options.dataTypes ? options.dataTypes.map(dataTypeNamed) : DATA_TYPES;
  return fc
    .record({
      dtype: fc.constantFrom(...dtypes),
      dims: fc.integer({ min: options.minRank ?? 0, max: options.maxRank ?? 5 }).chain((rank) =>
        // `over` is the shape as a multiple of the chunk (in tenths): ragged edges and empty arrays.
        fc.array(fc.record({ chunk: fc.constantFrom(1, 2, 3, 4, 6), over: fc.integer({ min: 0, max: 25 }), empty: fc.boolean() }), { minLength: rank, maxLength: rank }),
      ),
    })
    .chain(({ dtype, dims }) => {
      const chunkShape = capProduct(dims.map((x) => x.chunk), options.maxChunkElements ?? 216, 1);
      const least = options.nonEmpty ? 1 : 0;
      const extent = (x: { over: number; empty: boolean }, chunk: number, i: number): number =>
        Math.max(least, x.empty && i === 0 && dims.length > 1 ? 0 : Math.round((chunk * x.over) / 10));
      const shape = capProduct(zipMap(dims, chunkShape, extent), options.maxElements ?? 240, least);
      return fc.record({
        dtype: fc.constant(dtype),
        shape: fc.constant(shape),
        chunkShape: fc.constant(chunkShape),
        codecs: codecChainArb(dtype, chunkShape, options),
        fill: fillValueArb(dtype, options),
      });
    });
}

/** What `ZarrArray.create` (or any writer) takes for this case. */
export function arrayMetadataInput(c: ArrayCase): ArrayMetadataInput {
  return { shape: c.shape, chunkShape: c.chunkShape, dataType: c.dtype.name, fillValue: c.fill.json, codecs: c.codecs };
}
