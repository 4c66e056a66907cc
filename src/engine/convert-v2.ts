// Converting a Zarr v2 hierarchy (a group and everything below it, or one array) into Zarr v3:
// groups keep their attributes, arrays get the v3 metadata of format/zarr-v2/to-v3.ts and their
// chunks copied verbatim where the v3 chain reads them as stored (re-encoded otherwise, U<n>).
// Arrays whose compressor has no v3 codec Floe writes are refused by name before anything is
// written for them; groups and arrays converted before that stay, as do those converted before
// an abort (`signal`: ABORTED, every read and write of the conversion takes it).
import { planV2ToV3 } from '../format/zarr-v2/to-v3.ts';
import { ZARRAY } from '../format/zarr-v2/metadata.ts';
import { joinPath, keyPrefix } from '../format/zarr/paths.ts';
import { ZarrArray } from './array.ts';
import { copyChunks, type ConvertOptions } from './convert.ts';
import { openNode, ZarrGroup } from './group.ts';
import { requestOf } from './abort.ts';
import type { ZarrStore } from './store.ts';
import { V2Array } from './v2-array.ts';

/** Options of {@link convertV2ToV3}. */
export interface ConvertV2Options extends ConvertOptions {
  /** The v2 node of `src` to convert (a group converts with everything below it). Default the root. */
  srcPath?: string;
}

/** What {@link convertV2ToV3} wrote. */
export interface ConvertV2Result {
  readonly arrays: number;
  readonly groups: number;
  readonly chunksCopied: number;
  readonly chunksReencoded: number;
}

/** Converts the Zarr v2 node at `options.srcPath` of `src` (default the root) into Zarr v3 at `path` of `dst`. */
export async function convertV2ToV3(src: ZarrStore, dst: ZarrStore, path = '/', options: ConvertV2Options = {}): Promise<ConvertV2Result> {
  const node = await openNode(src, options.srcPath ?? '/', { zarrFormat: 2, ...requestOf(options) });
  const total = { arrays: 0, groups: 0, chunksCopied: 0, chunksReencoded: 0 };
  await convertNode(node, dst, path, options, total);
  return total;
}

type Totals = { arrays: number; groups: number; chunksCopied: number; chunksReencoded: number };

async function convertNode(node: ZarrArray | ZarrGroup, dst: ZarrStore, path: string, options: ConvertOptions, total: Totals): Promise<void> {
  if (node instanceof V2Array) {
    const copied = await convertArray(node, dst, path, options);
    total.arrays++;
    total.chunksCopied += copied.chunksCopied;
    total.chunksReencoded += copied.chunksReencoded;
    return;
  }
  if (!(node instanceof ZarrGroup)) return; // a v3 array under a v2 group is not v2 data
  const request = requestOf(options);
  await ZarrGroup.create(dst, path, { attributes: node.attributes, overwrite: options.overwrite ?? false, ...request });
  total.groups++;
  for (const child of await node.children(request)) {
    const opened = child.kind === 'array' ? await node.openArray(child.name, request) : await node.openGroup(child.name, request);
    await convertNode(opened, dst, joinPath(path, child.name), options, total);
  }
}

async function convertArray(v2: V2Array, dst: ZarrStore, path: string, options: ConvertOptions): Promise<{ chunksCopied: number; chunksReencoded: number }> {
  const prefix = keyPrefix(v2.path);
  const plan = planV2ToV3(v2.v2Metadata, v2.attributes, v2.chunkCodec, prefix + ZARRAY);
  const array = await ZarrArray.create(dst, path, { ...plan.metadata, overwrite: options.overwrite ?? false }, requestOf(options));
  const source = { store: v2.baseStore, prefix, encoding: v2.metadata.chunkKeyEncoding, shape: v2.shape, chunks: v2.chunkShape };
  return copyChunks(source, array, plan.verbatim ? undefined : v2.chunkCodec, options);
}
