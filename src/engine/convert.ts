// Converting a whole Zarr v1 store into a Zarr v3 array (same values; the codec mapping is in
// src/format/zarr-v1/to-v3.ts). Chunks are copied verbatim where the v3 codecs read them as they
// are, otherwise decompressed and re-encoded; missing chunks stay missing (they read as fill).
// Zarr v2 conversion (convert-v2.ts) copies chunks through the same `copyChunks`.
import { atKey, type NumpyChunkCodec } from '../format/numpy/chunk-codec.ts';
import { parseChunkKey, type ChunkKeyEncoding } from '../format/zarr/chunk-keys.ts';
import { planV3Conversion } from '../format/zarr-v1/to-v3.ts';
import { ZarrArray } from './array.ts';
import { DEFAULT_CONCURRENCY, mapLimit } from './storage/limiter.ts';
import { zipEvery, zipMap } from './indexing.ts';
import { requestOf, throwIfAborted } from './abort.ts';
import type { AbortOptions, ZarrStore } from './store.ts';
import { V1Array } from './v1-array.ts';

/** Options of {@link convertV1ToV3}; `signal` stops it (`ABORTED`), leaving the chunks copied so far. */
export interface ConvertOptions extends AbortOptions {
  /** Chunks copied at once. Default 8. */
  concurrency?: number;
  /** Replace an existing node at `path` in `dst`. */
  overwrite?: boolean;
}

/**
 * What {@link convertV1ToV3} wrote: the new v3 array and how many chunks it copied as they were
 * or had to decode and encode again.
 */
export interface ConvertResult {
  readonly array: ZarrArray;
  readonly chunksCopied: number;
  readonly chunksReencoded: number;
}

/** Converts the v1 array that `src` holds into a v3 array at `path` of `dst`. */
export async function convertV1ToV3(src: ZarrStore, dst: ZarrStore, path = '/', options: ConvertOptions = {}): Promise<ConvertResult> {
  const request = requestOf(options);
  const v1 = await V1Array.open(src, request);
  const plan = planV3Conversion(v1.metadata, v1.attributes, v1.chunkCodec);
  const array = await ZarrArray.create(dst, path, { ...plan.metadata, overwrite: options.overwrite ?? false }, request);
  const source = { store: src, prefix: '', encoding: v1.inner.metadata.chunkKeyEncoding, shape: v1.shape, chunks: v1.chunks };
  return { array, ...(await copyChunks(source, array, plan.verbatim ? undefined : v1.chunkCodec, options)) };
}

/** Where a converted array's chunks come from. */
export interface ChunkSource {
  readonly store: ZarrStore;
  /** The array's key prefix in `store`. */
  readonly prefix: string;
  readonly encoding: ChunkKeyEncoding;
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
}

/**
 * Copies every stored chunk of `source` into `array`: verbatim without `reencode`, else through
 * its decode and the array's bytes codecs. `signal` stops it (`ABORTED`): no chunk starts after
 * the abort, the ones copied stay.
 */
export async function copyChunks(
  source: ChunkSource, array: ZarrArray, reencode: NumpyChunkCodec | undefined, options: Pick<ConvertOptions, 'concurrency' | 'signal'> = {},
): Promise<{ chunksCopied: number; chunksReencoded: number }> {
  const request = requestOf(options);
  const grid = zipMap(source.shape, source.chunks, (n, size) => Math.ceil(n / size));
  const keys: { key: string; coords: number[] }[] = [];
  for await (const key of source.store.listPrefix(source.prefix, request)) {
    const coords = parseChunkKey(source.encoding, key.slice(source.prefix.length), grid.length);
    if (coords && zipEvery(coords, grid, (c, n) => c < n)) keys.push({ key, coords });
  }
  const transcode = (stored: Uint8Array, codec: NumpyChunkCodec): Uint8Array => {
    let bytes = codec.decode(stored);
    for (const c of array.chain.bytesCodecs) bytes = c.encode(bytes);
    return bytes;
  };
  await mapLimit(keys, options.concurrency ?? DEFAULT_CONCURRENCY, async ({ key, coords }) => {
    throwIfAborted(request?.signal, key);
    const stored = await source.store.get(key, request);
    if (!stored) return; // deleted while we listed
    await array.store.set(array.chunkKey(coords), reencode ? atKey(key, () => transcode(stored, reencode)) : stored, request);
  });
  return { chunksCopied: reencode ? 0 : keys.length, chunksReencoded: reencode ? keys.length : 0 };
}
