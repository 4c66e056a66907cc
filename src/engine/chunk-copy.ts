// Copying the selected part of a decoded chunk into a destination view; shared by the main
// thread and the decode workers.
import { copyStrided, type NdArray, type StridedView } from '../format/zarr/ndarray.ts';
import type { ChunkProjection } from './selection.ts';

export function copyFromChunk(chunk: NdArray, ps: readonly ChunkProjection[], dst: StridedView, lanes: number): void {
  const src: StridedView = {
    data: chunk.data,
    offset: ps.reduce((acc, p, d) => acc + p.start * chunk.stride[d]!, 0),
    stride: ps.map((p, d) => chunk.stride[d]! * p.step),
  };
  copyStrided(src, dst, ps.map((p) => p.count), lanes);
}
