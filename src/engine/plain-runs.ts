// Where an uncompressed chunk's selected part lands in a result, as contiguous byte runs: when
// the chunk is stored exactly as the result holds it (`bytes` alone, little-endian, one lane) and
// the selection takes whole rows of it, its file range can be read straight into the result
// (local-file.ts readFileIntoViews), by the main thread or a decode worker alike.
import type { CodecChain } from '../format/codecs/pipeline.ts';
import type { DecodedRuns } from '../format/codecs/types.ts';
import type { ChunkProjection } from '../format/zarr/projection.ts';
import type { StridedView } from '../format/zarr/ndarray.ts';
import { rowRuns, storedAsInMemory } from '../format/zarr/row-runs.ts';

/** The runs of a chunk stored uncompressed (format/zarr/row-runs.ts); `chunkBytes` is its file size. */
export type PlainRuns = DecodedRuns;

/**
 * The runs, or undefined when the chunk's bytes are not laid out as the result holds them, or the
 * selection is not whole rows (every dimension after the first taken whole, in order).
 */
export function plainRuns(chain: CodecChain, ps: readonly ChunkProjection[], dst: StridedView): PlainRuns | undefined {
  if (chain.bytesCodecs.length > 0 || !storedAsInMemory(chain.spec, chain.arrayCodecs, chain.arrayToBytes)) return undefined;
  return rowRuns(chain.spec, ps, dst);
}
