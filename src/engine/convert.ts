// Converting a whole Zarr v1 store into a Zarr v3 array (same values; the codec mapping is in
// src/format/zarr-v1/to-v3.ts). Chunks are copied verbatim where the v3 codecs read them as they
// are, otherwise decompressed and re-encoded; missing chunks stay missing (they read as fill).
import { planV3Conversion } from '../format/zarr-v1/to-v3.ts';
import { atKey } from '../format/numpy/chunk-codec.ts';
import { ZarrArray } from './array.ts';
import { mapLimit } from './concurrency.ts';
import { zipEvery, zipMap } from './indexing.ts';
import type { ZarrStore } from './store.ts';
import { V1Array } from './v1-array.ts';

/** Options of {@link convertV1ToV3}. */
export interface ConvertOptions {
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
  const v1 = await V1Array.open(src);
  const plan = planV3Conversion(v1.metadata, v1.attributes, v1.chunkCodec);
  const array = await ZarrArray.create(dst, path, { ...plan.metadata, overwrite: options.overwrite ?? false });
  const grid = zipMap(v1.shape, v1.chunks, (n, size) => Math.ceil(n / size));
  const keys: { key: string; coords: number[] }[] = [];
  for await (const key of src.list()) {
    const coords = chunkCoords(key, grid);
    if (coords) keys.push({ key, coords });
  }
  const reencode = (stored: Uint8Array): Uint8Array => {
    let bytes = v1.chunkCodec.decode(stored);
    for (const codec of array.chain.bytesCodecs) bytes = codec.encode(bytes);
    return bytes;
  };
  await mapLimit(keys, options.concurrency ?? 8, async ({ key, coords }) => {
    const stored = await src.get(key);
    if (!stored) return; // deleted while we listed
    await dst.set(array.chunkKey(coords), plan.verbatim ? stored : atKey(key, () => reencode(stored)));
  });
  return { array, chunksCopied: plan.verbatim ? keys.length : 0, chunksReencoded: plan.verbatim ? 0 : keys.length };
}

/** Grid coordinates of a v1 chunk key inside the array's grid; undefined for other keys. */
function chunkCoords(key: string, grid: readonly number[]): number[] | undefined {
  const parts = key.split('.');
  if (parts.length !== grid.length || !parts.every((p) => /^(0|[1-9]\d*)$/.test(p))) return undefined;
  const coords = parts.map(Number);
  return zipEvery(coords, grid, (c, n) => c < n) ? coords : undefined;
}
