// Where a chunk's bytes land in a result, as contiguous runs: when the chunk's decoded bytes are
// laid out as the result holds them (`bytes` codec, little-endian, one lane, no array codecs) and
// the selection takes whole rows of it, each row of the chunk is one run of the result's memory.
// Uncompressed chunks are then read straight into the result (engine/plain-runs.ts), and a
// compressor that decodes block by block writes each block straight into its rows
// (BytesToBytesCodec.decodeIntoRuns): no chunk-sized buffer and no copy out of it.
import type { ArrayToBytesCodec, ArrayToArrayCodec, ChunkSpec } from '../codecs/array-codecs.ts';
import type { DecodedRuns } from '../codecs/types.ts';
import type { StridedView } from './ndarray.ts';
import type { ChunkProjection } from './projection.ts';

/** A run shorter than this is not worth handling on its own (a readv buffer, a block piece). */
export const MIN_RUN_BYTES = 512;

/** Whether the array -> bytes step stores elements exactly as the result holds them in memory. */
export function storedAsInMemory(spec: ChunkSpec, arrayCodecs: readonly ArrayToArrayCodec[], a2b: ArrayToBytesCodec): boolean {
  const { dataType } = spec;
  if (arrayCodecs.length > 0 || a2b.name !== 'bytes' || a2b.toJSON().configuration?.endian === 'big') return false;
  return dataType.name !== 'float16' && dataType.kind !== 'string' && dataType.lanes === 1;
}

/**
 * The runs of a chunk stored as in memory, or undefined when the selection is not whole rows
 * (every dimension after the first taken whole, in order) or a row is under MIN_RUN_BYTES.
 */
export function rowRuns(spec: ChunkSpec, ps: readonly ChunkProjection[], dst: StridedView): DecodedRuns | undefined {
  const { dataType, shape } = spec;
  const data = dst.data;
  const rank = shape.length;
  const first = ps[0];
  const rowElems = shape[rank - 1];
  if (Array.isArray(data) || !first || rowElems === undefined || first.step !== 1 || dst.stride[rank - 1] !== 1) return undefined;
  let rowsPerOuter = 1; // elements of one index of dimension 0
  let chunkElems = shape[0] ?? 0;
  for (let d = 1; d < rank; d++) {
    const p = ps[d];
    const n = shape[d];
    if (!p || n === undefined || p.start !== 0 || p.step !== 1 || p.count !== n) return undefined;
    rowsPerOuter *= n;
    chunkElems *= n;
  }
  const item = dataType.itemSize;
  // One run per row (the last dimension, whole); a 1-d chunk is one run of what is selected.
  const rowBytes = (rank === 1 ? first.count : rowElems) * item;
  if (rowBytes < MIN_RUN_BYTES) return undefined;
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
  return { chunkBytes: chunkElems * item, fileOffset: first.start * rowsPerOuter * item, rowBytes, views };
}
