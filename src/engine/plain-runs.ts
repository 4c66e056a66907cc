// Where an uncompressed chunk's selected part lands in a result, as contiguous byte runs: when
// the chunk is stored exactly as the result holds it (`bytes` alone, little-endian, one lane) and
// the selection takes whole rows of it, its file range can be read straight into the result
// (local-file.ts readFileIntoViews), by the main thread or a decode worker alike.
import type { CodecChain } from '../format/codecs/pipeline.ts';
import type { ChunkProjection } from '../format/zarr/projection.ts';
import type { StridedView } from '../format/zarr/ndarray.ts';

/** A run shorter than this is not worth a buffer of its own in a readv call. */
const MIN_RUN_BYTES = 512;

export interface PlainRuns {
  /** Bytes the chunk is stored in. */
  readonly chunkBytes: number;
  /** Where in the chunk the first selected byte is. */
  readonly fileOffset: number;
  /** The result's bytes each consecutive stretch of the chunk goes to, in file order. */
  readonly views: Uint8Array[];
}

/**
 * The runs, or undefined when the chunk's bytes are not laid out as the result holds them, or the
 * selection is not whole rows (every dimension after the first taken whole, in order).
 */
export function plainRuns(chain: CodecChain, ps: readonly ChunkProjection[], dst: StridedView): PlainRuns | undefined {
  const { dataType, shape } = chain.spec;
  const data = dst.data;
  if (Array.isArray(data) || chain.arrayCodecs.length > 0 || chain.bytesCodecs.length > 0 || chain.arrayToBytes.name !== 'bytes') return undefined;
  if (chain.arrayToBytes.toJSON().configuration?.endian === 'big' || dataType.name === 'float16' || dataType.kind === 'string' || dataType.lanes !== 1) return undefined;
  const rank = shape.length;
  const first = ps[0];
  const rowElems = shape[rank - 1];
  if (!first || rowElems === undefined || first.step !== 1 || dst.stride[rank - 1] !== 1) return undefined;
  let rowsPerOuter = 1; // elements of one index of dimension 0
  for (let d = 1; d < rank; d++) {
    const p = ps[d];
    const n = shape[d];
    if (!p || n === undefined || p.start !== 0 || p.step !== 1 || p.count !== n) return undefined;
    rowsPerOuter *= n;
  }
  const item = dataType.itemSize;
  const chunkBytes = chain.encodedSize();
  // One run per row (the last dimension, whole); a 1-d chunk is one run of what is selected.
  const rowBytes = (rank === 1 ? first.count : rowElems) * item;
  if (rowBytes < MIN_RUN_BYTES || chunkBytes === undefined) return undefined;
  const views: Uint8Array[] = [];
  // An odometer over every dimension but the last: each position is one row of the chunk.
  const counts = ps.slice(0, rank - 1).map((p) => p.count);
  const index = counts.map(() => 0);
  for (;;) {
    let offset = dst.offset;
    for (let d = 0; d < rank - 1; d++) offset += (index[d] ?? 0) * (dst.stride[d] ?? 0);
    views.push(new Uint8Array(data.buffer, data.byteOffset + offset * item, rowBytes));
    let d = rank - 2;
    while (d >= 0 && (index[d] = (index[d] ?? 0) + 1) === counts[d]) index[d--] = 0;
    if (d < 0) break;
  }
  return { chunkBytes, fileOffset: first.start * rowsPerOuter * item, views };
}
