// The one check on how large a chunk decoded whole may be (MAX_CHUNK_BYTES), made when a codec
// chain is built and again before a whole shard is allocated, so an oversized chunk is a
// LIMIT_EXCEEDED naming its shape rather than a RangeError from an allocation.
import { limitExceeded, MAX_CHUNK_BYTES } from '../limits.ts';
import { isVariableLength, type DataType } from './data-types.ts';
import { product } from './ndarray.ts';

/** Bytes a chunk of `shape` takes in memory; a variable-length element counts 8 (a reference). */
export function chunkBytes(shape: readonly number[], dataType: DataType): number {
  return product(shape) * (isVariableLength(dataType) ? 8 : dataType.itemSize);
}

/** Throws LIMIT_EXCEEDED ('chunk-bytes') when a chunk of `shape` is past MAX_CHUNK_BYTES. */
export function checkChunkBytes(shape: readonly number[], dataType: DataType, where?: string): void {
  const bytes = chunkBytes(shape, dataType);
  if (bytes <= MAX_CHUNK_BYTES) return;
  throw limitExceeded(
    'chunk-bytes',
    MAX_CHUNK_BYTES,
    `a chunk of shape [${shape.join(', ')}] (${dataType.name}) takes ${bytes} bytes whole, over the ${MAX_CHUNK_BYTES}-byte maximum of one chunk; use smaller chunks, or shards whose inner chunks fit (shards are read inner chunk by inner chunk)`,
    { actual: bytes, where },
  );
}
