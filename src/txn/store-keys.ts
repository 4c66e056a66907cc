// What a Zarr store key means inside a session: a node's `zarr.json`, or a chunk of an array
// (found by trying the key's ancestors as array paths and parsing the rest with that array's
// chunk key encoding). Keys may carry zarrita's leading '/'.
import { parseChunkKey, chunkKey as encodeChunkKey } from '../format/zarr/chunk-keys.ts';
import { parseArrayMetadata, type ArrayMetadata } from '../format/zarr/metadata.ts';
import { canonicalKeySegments, METADATA_NAME, segmentsPath } from '../engine/source-keys.ts';
import type { NodeView, ResolvedNode } from './node-view.ts';

export type StoreKey =
  | { kind: 'metadata'; path: string }
  | { kind: 'chunk'; node: ResolvedNode; meta: ArrayMetadata; coords: number[] }
  | { kind: 'other'; key: string };

const parsedMetadata = new WeakMap<Uint8Array, ArrayMetadata>();

/** The parsed zarr.json of an array node (cached per byte buffer, which is never mutated). */
export function arrayMetadataOf(node: ResolvedNode): ArrayMetadata {
  let meta = parsedMetadata.get(node.userData);
  if (!meta) {
    meta = parseArrayMetadata(node.userData, `${node.path}/zarr.json`);
    parsedMetadata.set(node.userData, meta);
  }
  return meta;
}

export function pathToKeyPrefix(path: string): string {
  return path === '/' ? '' : path.slice(1) + '/';
}

export function metadataKeyOf(path: string): string {
  return pathToKeyPrefix(path) + METADATA_NAME;
}

export function chunkKeyOf(node: ResolvedNode, coords: readonly number[]): string {
  return pathToKeyPrefix(node.path) + encodeChunkKey(arrayMetadataOf(node).chunkKeyEncoding, coords);
}

/** The key rules are engine's (source-keys.ts); this is their synchronous form over a session's view. */
export function classifyKey(view: NodeView, rawKey: string): StoreKey {
  const segments = canonicalKeySegments(rawKey);
  if (segments[segments.length - 1] === METADATA_NAME) {
    return { kind: 'metadata', path: segmentsPath(segments, segments.length - 1) };
  }
  // Deepest array first: an array's chunk keys never contain another node's path.
  for (let cut = segments.length - 1; cut >= 0; cut--) {
    const node = view.nodeAt(segmentsPath(segments, cut));
    if (!node) continue;
    if (node.kind !== 'array') break;
    const meta = arrayMetadataOf(node);
    const coords = parseChunkKey(meta.chunkKeyEncoding, segments.slice(cut).join('/'), meta.shape.length);
    if (coords) return { kind: 'chunk', node, meta, coords };
    break;
  }
  return { kind: 'other', key: segments.join('/') };
}
