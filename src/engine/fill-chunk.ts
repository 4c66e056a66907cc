// A whole chunk of fill values as a Zarr v1/v2 array stores it: what an array with a null fill
// value writes instead of deleting a chunk (missing chunks are undefined to other readers).
import type { NumpyChunkCodec } from '../format/numpy/chunk-codec.ts';
import type { CodecChain } from '../format/codecs/pipeline.ts';
import { cStrides, fillElements, product } from '../format/zarr/ndarray.ts';

export function encodedFillChunk(chain: CodecChain, codec: NumpyChunkCodec): Uint8Array {
  const shape = [...chain.spec.shape];
  const data = chain.spec.dataType.allocate(product(shape));
  fillElements(data, chain.spec.fillValue.memory, 0, product(shape), chain.spec.dataType.lanes);
  return codec.encode(chain.encode({ data, shape, stride: cStrides(shape) }));
}
