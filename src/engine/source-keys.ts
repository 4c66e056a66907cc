// What a Zarr store key names in a node tree: a node's `zarr.json`, or a chunk of an array (the
// deepest array whose path prefixes the key, whose chunk key encoding parses the rest). Sessions
// classify keys synchronously against their own node view (src/txn/store-keys.ts); readers that
// only have a ReadSource, such as `floe serve`, use resolveKey. Both share the key rules here.
import { floeError } from '../errors.ts';
import { parseChunkKey } from '../format/zarr/chunk-keys.ts';
import { nodeMetadata, type NodeInfo, type ReadSource } from './read-source.ts';
import { normalizeKey } from './store.ts';

export const METADATA_NAME = 'zarr.json';

/** A key's '/'-separated segments; `INVALID_KEY` when one is empty, '.' or '..'. */
export function canonicalKeySegments(rawKey: string): string[] {
  const segments = normalizeKey(rawKey).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw floeError('INVALID_KEY', `store key ${JSON.stringify(rawKey)} is not canonical (empty, '.' or '..' segment)`, { where: rawKey });
  }
  return segments;
}

/** The node path of the first `count` segments of a key. */
export const segmentsPath = (segments: readonly string[], count: number): string => '/' + segments.slice(0, count).join('/');

export type SourceKey =
  | { readonly kind: 'metadata'; readonly node: NodeInfo }
  | { readonly kind: 'chunk'; readonly node: NodeInfo; readonly coords: number[] };

/** What `key` names in `source`; undefined when nothing (`INVALID_KEY` when it is not canonical). */
export async function resolveKey(source: ReadSource, key: string): Promise<SourceKey | undefined> {
  const segments = canonicalKeySegments(key);
  if (segments[segments.length - 1] === METADATA_NAME) {
    const node = await source.node(segmentsPath(segments, segments.length - 1));
    return node && { kind: 'metadata', node };
  }
  // Deepest node first: an array's chunk keys never contain another node's path.
  for (let cut = segments.length - 1; cut >= 0; cut--) {
    const node = await source.node(segmentsPath(segments, cut));
    if (!node) continue;
    const meta = nodeMetadata(node);
    if (meta.nodeType !== 'array') return undefined;
    const coords = parseChunkKey(meta.chunkKeyEncoding, segments.slice(cut).join('/'), meta.shape.length);
    return coords && { kind: 'chunk', node, coords };
  }
  return undefined;
}
