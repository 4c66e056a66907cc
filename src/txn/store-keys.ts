// What a Zarr store key means inside a session: a node's `zarr.json`, or a chunk of an array
// (found by trying the key's ancestors as array paths and parsing the rest with that array's
// chunk key encoding). Keys may carry zarrita's leading '/'.
import { floeError } from '../errors.ts';
import { parseChunkKey, chunkKey as encodeChunkKey } from '../format/zarr/chunk-keys.ts';
import { parseArrayMetadata, type ArrayMetadata } from '../format/zarr/metadata.ts';
import { normalizeKey } from '../engine/store.ts';
import type { NodeView, ResolvedNode } from './node-view.ts';

export type StoreKey =
  | { kind: 'metadata'; path: string }
  | { kind: 'chunk'; node: ResolvedNode; meta: ArrayMetadata; coords: number[] }
  | { kind: 'other'; key: string };

const METADATA_NAME = 'zarr.json';
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

export function classifyKey(view: NodeView, rawKey: string): StoreKey {
  const key = normalizeKey(rawKey);
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw floeError('INVALID_KEY', `store key ${JSON.stringify(rawKey)} is not canonical (empty, '.' or '..' segment)`, { where: rawKey });
  }
  const segments = key.split('/');
  if (segments[segments.length - 1] === METADATA_NAME) {
    return { kind: 'metadata', path: '/' + segments.slice(0, -1).join('/') };
  }
  // Deepest array first: an array's chunk keys never contain another node's path.
  for (let cut = segments.length - 1; cut >= 0; cut--) {
    const node = view.nodeAt('/' + segments.slice(0, cut).join('/'));
    if (!node) continue;
    if (node.kind !== 'array') break;
    const meta = arrayMetadataOf(node);
    const coords = parseChunkKey(meta.chunkKeyEncoding, segments.slice(cut).join('/'), meta.shape.length);
    if (coords) return { kind: 'chunk', node, meta, coords };
    break;
  }
  return { kind: 'other', key };
}
