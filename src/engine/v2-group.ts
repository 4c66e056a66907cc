// Zarr v2 group and node documents in a store: finding a v2 node (`.zarray`, `.zgroup`, and the
// group's `.zmetadata` when consolidated metadata may be used) and writing a group's `.zgroup`
// and `.zattrs`, keeping consolidated metadata above it current. Each takes the `request` of the
// operation it is part of (its signal cancels it).
import {
  encodeV2Attributes, encodeV2GroupMetadata, parseV2Attributes, parseV2GroupMetadata, v2GroupMetadataJson, ZARRAY, ZATTRS, ZGROUP,
} from '../format/zarr-v2/metadata.ts';
import type { GroupMetadata } from '../format/zarr/metadata.ts';
import { keyPrefix } from '../format/zarr/paths.ts';
import { readV2Consolidated, updateConsolidatedV2, type ConsolidatedIndex, type V2Docs } from './consolidated.ts';
import type { AbortOptions, ZarrStore } from './store.ts';

export interface V2Node {
  readonly kind: 'array' | 'group';
  readonly docs: V2Docs;
  /** The group's consolidated metadata (`.zmetadata`), when it has one and it may be used. */
  readonly consolidated?: ConsolidatedIndex;
}

/**
 * The v2 node at `path`, or undefined. `expect` says what to look for first: an array costs one
 * request (`.zarray`) plus `.zattrs`; a consolidated group one (`.zmetadata`, which holds both).
 */
export async function readV2Node(
  store: ZarrStore, path: string, expect: 'array' | 'group', useConsolidated = true, request?: AbortOptions,
): Promise<V2Node | undefined> {
  if (expect === 'array') return (await readArray(store, path, request)) ?? (await readGroup(store, path, useConsolidated, request));
  return (await readGroup(store, path, useConsolidated, request)) ?? (await readArray(store, path, request));
}

/** 'array' or 'group' when `path` holds a v2 node, without reading its attributes. */
export async function v2Kind(store: ZarrStore, path: string, request?: AbortOptions): Promise<'array' | 'group' | undefined> {
  const prefix = keyPrefix(path);
  if (await store.get(prefix + ZARRAY, request)) return 'array';
  return (await store.get(prefix + ZGROUP, request)) ? 'group' : undefined;
}

async function readArray(store: ZarrStore, path: string, request: AbortOptions | undefined): Promise<V2Node | undefined> {
  const prefix = keyPrefix(path);
  const zarray = await store.get(prefix + ZARRAY, request);
  if (!zarray) return undefined;
  return { kind: 'array', docs: withAttributes({ zarrFormat: 2, zarray }, await store.get(prefix + ZATTRS, request)) };
}

async function readGroup(store: ZarrStore, path: string, useConsolidated: boolean, request: AbortOptions | undefined): Promise<V2Node | undefined> {
  const consolidated = useConsolidated ? await readV2Consolidated(store, path, request) : undefined;
  const self = consolidated?.node('');
  if (consolidated && self?.zarrFormat === 2 && self.zgroup !== undefined) return { kind: 'group', docs: self, consolidated };
  const prefix = keyPrefix(path);
  const zgroup = await store.get(prefix + ZGROUP, request);
  if (!zgroup) return undefined;
  return { kind: 'group', docs: withAttributes({ zarrFormat: 2, zgroup }, await store.get(prefix + ZATTRS, request)) };
}

function withAttributes(docs: V2Docs, zattrs: Uint8Array | undefined): V2Docs {
  return zattrs ? { ...docs, zattrs } : docs;
}

/** A v2 group's documents as the group metadata model (`.zgroup`'s other keys in `extra`). */
export function v2GroupMetadata(path: string, docs: V2Docs): GroupMetadata {
  const prefix = keyPrefix(path);
  const extra = docs.zgroup === undefined ? {} : parseV2GroupMetadata(docs.zgroup, prefix + ZGROUP);
  const attributes = docs.zattrs === undefined ? {} : parseV2Attributes(docs.zattrs, prefix + ZATTRS);
  return Object.freeze({ nodeType: 'group', attributes, extra });
}

/**
 * Writes a v2 group's `.zgroup` and/or `.zattrs`, and the change into consolidated metadata (each
 * document's update runs to its end once the document is written, whatever the signal does).
 */
export async function writeV2Group(
  store: ZarrStore, path: string, metadata: GroupMetadata, what: { group?: boolean; attributes?: boolean }, request?: AbortOptions,
): Promise<void> {
  const prefix = keyPrefix(path);
  if (what.group) {
    await store.set(prefix + ZGROUP, encodeV2GroupMetadata(metadata.extra, prefix + ZGROUP), request);
    await updateConsolidatedV2(store, path, { name: ZGROUP, doc: v2GroupMetadataJson(metadata.extra) });
  }
  if (what.attributes) {
    await store.set(prefix + ZATTRS, encodeV2Attributes(metadata.attributes, prefix + ZATTRS), request);
    await updateConsolidatedV2(store, path, { name: ZATTRS, doc: { ...metadata.attributes } });
  }
}
