// Chunks stored exactly as they lie in memory: a `bytes` codec that swaps nothing and no other
// codec (uncompressed little-endian data on a little-endian host). Encoding such a chunk is a view
// of its memory, and a whole chunk can be written straight from the caller's array as the byte
// runs it spans there (one per chunk row, longer where rows are contiguous in the array too), so
// a write copies nothing in user space: the store hands the runs to `writev`. With compressors
// after the `bytes` codec, they read the chunk's memory directly (encodeOwnedChunk).
import { HOST_LITTLE_ENDIAN } from '../platform/host.ts';
import type { CodecChain } from '../format/codecs/pipeline.ts';
import type { ArrayData, TypedArray } from '../format/zarr/data-types.ts';
import type { ChunkProjection } from '../format/zarr/projection.ts';
import { allEqual, type NdArray, type StridedView } from '../format/zarr/ndarray.ts';
import { zipEvery } from './indexing.ts';

const HOST_LITTLE = HOST_LITTLE_ENDIAN;

/**
 * Runs shorter than this are not written apiece: past ~1,000 runs per MiB, copying them into one
 * chunk buffer costs less than passing them to the kernel one by one.
 */
export const MIN_RUN_BYTES = 1024;

/** Whether the chain's array -> bytes step is the chunk's memory as it is: a `bytes` codec that swaps nothing, first. */
function bytesAreMemory(chain: CodecChain): boolean {
  const { dataType } = chain.spec;
  if (chain.arrayCodecs.length > 0 || chain.arrayToBytes.name !== 'bytes') return false;
  // Strings and binary have no fixed size; float16 lives in a Float32Array (4 bytes, stored as 2).
  if (dataType.laneBytes === 0 || dataType.itemSize !== dataType.lanes * dataType.laneBytes) return false;
  const endian = chain.arrayToBytes.toJSON().configuration?.endian;
  return dataType.laneBytes === 1 || (endian === 'big') !== HOST_LITTLE;
}

/** Whether the chain stores a chunk's memory byte for byte (see the top of this file). */
export function storedAsInMemory(chain: CodecChain): boolean {
  return chain.bytesCodecs.length === 0 && bytesAreMemory(chain);
}

/**
 * Encodes a chunk the write owns (allocated for it, dropped after). Where the `bytes` step would
 * only copy the chunk's memory, the memory itself goes to the bytes codecs (compressors, which
 * read it into new buffers) or, when there are none, is the stored form: the chain's own encode
 * copies it first because its callers may reuse their arrays.
 */
export function encodeOwnedChunk(chain: CodecChain, chunk: NdArray): Uint8Array {
  const data = chunk.data;
  if (Array.isArray(data) || !bytesAreMemory(chain)) return chain.encode(chunk);
  let bytes = memoryBytes(data);
  for (const codec of chain.bytesCodecs) bytes = codec.encode(bytes);
  return bytes;
}

/**
 * Whether {@link encodeOwnedChunkInto} can write the chain's encoding into memory the caller
 * provides: the chunk's memory goes to the bytes codecs as it is, and the last of them encodes
 * into a given buffer. (It may still decline at run time: the codec's backend may lack it.)
 */
export function encodesInto(chain: CodecChain): boolean {
  return chain.bytesCodecs.at(-1)?.encodeInto !== undefined && bytesAreMemory(chain);
}

/**
 * encodeOwnedChunk with the last bytes codec writing into `out` (at least
 * chain.encodedSizeBound() bytes): the same bytes, as a view of `out`; undefined when the chain
 * or the codec cannot (then the caller encodes with encodeOwnedChunk).
 */
export function encodeOwnedChunkInto(chain: CodecChain, chunk: NdArray, out: Uint8Array): Uint8Array | undefined {
  const data = chunk.data;
  const last = chain.bytesCodecs.at(-1);
  if (Array.isArray(data) || !last?.encodeInto || !bytesAreMemory(chain)) return undefined;
  let bytes = memoryBytes(data);
  for (const codec of chain.bytesCodecs.slice(0, -1)) bytes = codec.encode(bytes);
  const n = last.encodeInto(bytes, out);
  return n < 0 ? undefined : out.subarray(0, n);
}

/** The stored form of a chunk when {@link storedAsInMemory}: its memory, not copied. */
export function memoryBytes(data: TypedArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The byte runs of `src` that, one after the other, are the stored chunk, when the selection
 * covers the whole chunk in order (start 0, step 1, every element), the chain is
 * {@link storedAsInMemory} and the runs are at least {@link MIN_RUN_BYTES} long; else undefined.
 * `src` is the caller's value, indexed by position in the chunk; `chunkShape` the full chunk.
 */
export function chunkRuns(chain: CodecChain, src: StridedView, projections: readonly ChunkProjection[], chunkShape: readonly number[]): Uint8Array[] | undefined {
  if (!storedAsInMemory(chain)) return undefined;
  return memoryRuns(src, projections, chunkShape, chain.spec.dataType.itemSize, MIN_RUN_BYTES);
}

/**
 * The byte runs of `src`'s memory that, one after the other, are a whole chunk's memory in C
 * order (elements of `itemBytes` bytes), or undefined when the selection does not cover the whole
 * chunk in order, `src` holds no typed array, or the runs are shorter than `minRunBytes`.
 */
export function memoryRuns(
  src: StridedView, projections: readonly ChunkProjection[], chunkShape: readonly number[], itemBytes: number, minRunBytes: number,
): Uint8Array[] | undefined {
  const data = src.data;
  if (Array.isArray(data) || itemBytes === 0 || projections.length !== chunkShape.length) return undefined;
  if (!zipEvery(projections, chunkShape, (p, n) => p.start === 0 && p.step === 1 && p.count === n)) return undefined;
  // Merge the innermost dimensions that are contiguous in the source into one run.
  let outer = chunkShape.length;
  let runElements = 1;
  while (outer > 0) {
    const n = chunkShape[outer - 1] ?? 1;
    if (n !== 1 && src.stride[outer - 1] !== runElements) break;
    runElements *= n;
    outer -= 1;
  }
  if (outer > 0 && runElements * itemBytes < minRunBytes) return undefined;
  const elements = data.byteLength / itemBytes;
  const runs: Uint8Array[] = [];
  // One run per index of the outer dimensions, in C order.
  const walk = (d: number, offset: number): boolean => {
    if (d === outer) {
      if (offset < 0 || offset + runElements > elements) return false; // outside the value: the copy path reports it
      runs.push(new Uint8Array(data.buffer, data.byteOffset + offset * itemBytes, runElements * itemBytes));
      return true;
    }
    const n = chunkShape[d] ?? 1;
    const s = src.stride[d] ?? 0;
    for (let i = 0; i < n; i++) if (!walk(d + 1, offset + i * s)) return false;
    return true;
  };
  return walk(0, src.offset) ? runs : undefined;
}

/** Copies `runs` one after the other into `target` (memcpy speed, bit for bit). */
export function copyRuns(runs: readonly Uint8Array[], target: Uint8Array): void {
  let at = 0;
  for (const run of runs) {
    target.set(run, at);
    at += run.length;
  }
}

/** Whether every run holds only `fill` (one element's memory): such a chunk is erased, not written. */
export function runsAllFill(runs: readonly Uint8Array[], fill: ArrayData): boolean {
  if (Array.isArray(fill)) return false; // never for chains stored as in memory
  const one = memoryBytes(fill);
  return runs.every((run) => allEqual(run, one));
}
