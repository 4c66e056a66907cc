// Consolidated metadata (Zarr v3 inline `consolidated_metadata`, Zarr v2 `.zmetadata`): the index
// a group opened with it hands its children, `consolidate()` that writes it, and the updates that
// keep it current when Floe writes node metadata below a consolidated group. Updates of one store
// run one at a time in this process, so concurrent creates cannot drop each other's entries;
// writers in other processes can, as with zarr-python (re-run `consolidate` after such writes).
// Cancellation: reads and `consolidate` take `{ signal }`; the update that follows a node's own
// metadata write (or erase) takes none and runs to its end once that write happened, so an abort
// never leaves consolidated metadata contradicting the store it describes (readers trust it).
import { floeError } from '../errors.ts';
import { isJsonObject, parseJson, type JsonValue } from '../format/json.ts';
import { readJsonObject } from '../format/numpy/documents.ts';
import type { PyJson } from '../format/numpy/python-json.ts';
import { encodeZmetadata, isV2MetadataKey, parseZmetadata, ZMETADATA, type V2ConsolidatedEntries } from '../format/zarr-v2/consolidated.ts';
import { ZARRAY, ZATTRS, ZGROUP } from '../format/zarr-v2/metadata.ts';
import { CONSOLIDATED_FIELD, readInlineConsolidated, withInlineConsolidated, type ConsolidatedEntries } from '../format/zarr/consolidated.ts';
import { encodeNodeMetadata, nodeMetadataToJson, parseNodeMetadata, type GroupMetadata } from '../format/zarr/metadata.ts';
import { keyPrefix, metadataKey, normalizePath } from '../format/zarr/paths.ts';
import { requestOf, throwIfAborted } from './abort.ts';
import type { AbortOptions, ZarrStore } from './store.ts';
import { containsText } from '../platform/host.ts';

/** A v2 node's documents, as stored (bytes) or consolidated (parsed). */
export interface V2Docs {
  readonly zarrFormat: 2;
  readonly zarray?: Uint8Array | JsonValue;
  readonly zgroup?: Uint8Array | JsonValue;
  readonly zattrs?: Uint8Array | JsonValue;
}

/** One node's metadata documents. */
export type NodeDocs = { readonly zarrFormat: 3; readonly doc: { readonly [key: string]: JsonValue } } | V2Docs;

type MutableV2Docs = { -readonly [K in keyof V2Docs]: V2Docs[K] };

/** The nodes below a group, by path relative to it ('' is the group itself, v2 only). */
export class ConsolidatedIndex {
  private constructor(
    readonly zarrFormat: 2 | 3,
    private readonly nodes: ReadonlyMap<string, NodeDocs>,
  ) {}

  static v3(entries: ConsolidatedEntries): ConsolidatedIndex {
    return new ConsolidatedIndex(3, new Map([...entries].map(([path, doc]) => [path, { zarrFormat: 3 as const, doc }])));
  }

  static v2(entries: V2ConsolidatedEntries): ConsolidatedIndex {
    const nodes = new Map<string, MutableV2Docs>();
    for (const [key, doc] of entries) {
      const slash = key.lastIndexOf('/');
      const path = slash < 0 ? '' : key.slice(0, slash);
      const docs = nodes.get(path) ?? { zarrFormat: 2 };
      const name = key.slice(slash + 1);
      if (name === ZARRAY) docs.zarray = doc;
      else if (name === ZGROUP) docs.zgroup = doc;
      else if (name === ZATTRS) docs.zattrs = doc;
      nodes.set(path, docs);
    }
    return new ConsolidatedIndex(2, nodes);
  }

  node(path: string): NodeDocs | undefined {
    return this.nodes.get(path);
  }

  /** The index of the group `name` directly below this one. */
  below(name: string): ConsolidatedIndex {
    const prefix = name + '/';
    const nodes = new Map<string, NodeDocs>();
    for (const [path, docs] of this.nodes) {
      if (path === name && docs.zarrFormat === 2) nodes.set('', docs);
      else if (path.startsWith(prefix)) nodes.set(path.slice(prefix.length), docs);
    }
    return new ConsolidatedIndex(this.zarrFormat, nodes);
  }

  /** Direct children that are arrays or groups, sorted by name. */
  children(): { name: string; kind: 'array' | 'group' }[] {
    const out: { name: string; kind: 'array' | 'group' }[] = [];
    for (const [path, docs] of this.nodes) {
      if (path === '' || path.includes('/')) continue;
      const kind = nodeKind(docs);
      if (kind) out.push({ name: path, kind });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** What a node's documents describe; undefined for a v2 key with attributes only. */
export function nodeKind(docs: NodeDocs): 'array' | 'group' | undefined {
  if (docs.zarrFormat === 3) return docs.doc.node_type === 'group' ? 'group' : 'array';
  return docs.zarray !== undefined ? 'array' : docs.zgroup !== undefined ? 'group' : undefined;
}

/** Reads `.zmetadata` of the group at `path`, if it has one. */
export async function readV2Consolidated(store: ZarrStore, path: string, request?: AbortOptions): Promise<ConsolidatedIndex | undefined> {
  const key = keyPrefix(path) + ZMETADATA;
  const bytes = await store.get(key, request);
  return bytes && ConsolidatedIndex.v2(parseZmetadata(bytes, key));
}

/** What {@link consolidate} wrote. */
export interface ConsolidateResult {
  readonly zarrFormat: 2 | 3;
  /** Arrays and groups below the group that the consolidated document describes. */
  readonly nodes: number;
}

/**
 * Writes consolidated metadata for the group at `path` from the metadata below it: the inline
 * `consolidated_metadata` of its zarr.json (v3, as zarr-python 3 writes it) or its `.zmetadata` (v2).
 * `signal` cancels it (`ABORTED`); it writes one document, last, so an aborted call changes nothing
 * unless that write had started.
 */
export async function consolidate(store: ZarrStore, path = '/', options?: AbortOptions): Promise<ConsolidateResult> {
  const prefix = keyPrefix(path);
  const request = requestOf(options);
  return serialized(store, async () => {
    throwIfAborted(request?.signal, prefix);
    const v3 = await store.get(prefix + 'zarr.json', request);
    if (v3) return consolidateV3(store, path, v3, request);
    if (await store.get(prefix + ZGROUP, request)) return consolidateV2(store, prefix, request);
    throw floeError('NOT_FOUND', `no group at ${normalizePath(path)} to consolidate (neither zarr.json nor .zgroup)`, { where: prefix + 'zarr.json' });
  });
}

async function consolidateV3(store: ZarrStore, path: string, bytes: Uint8Array, request: AbortOptions | undefined): Promise<ConsolidateResult> {
  const key = metadataKey(path);
  const group = parseNodeMetadata(bytes, key);
  if (group.nodeType !== 'group') throw floeError('NODE_TYPE_MISMATCH', `${normalizePath(path)} is an array; consolidate a group`, { where: key });
  const prefix = keyPrefix(path);
  const entries = new Map<string, { [key: string]: JsonValue }>();
  for await (const k of store.listPrefix(prefix, request)) {
    if (!k.endsWith('/zarr.json') || k === key) continue;
    const doc = await store.get(k, request);
    if (!doc) continue; // erased while we listed
    parseNodeMetadata(doc, k); // consolidate only what Floe (and so zarr-python) can read
    entries.set(k.slice(prefix.length, -'/zarr.json'.length), jsonObject(parseJson(doc, k), k));
  }
  await store.set(key, encodeNodeMetadata(withInlineConsolidated(group, entries), key), request);
  return { zarrFormat: 3, nodes: entries.size };
}

async function consolidateV2(store: ZarrStore, prefix: string, request: AbortOptions | undefined): Promise<ConsolidateResult> {
  const entries = new Map<string, JsonValue>();
  for await (const k of store.listPrefix(prefix, request)) {
    if (!isV2MetadataKey(k)) continue;
    const doc = await store.get(k, request);
    if (doc) entries.set(k.slice(prefix.length), readJsonObject(doc, k));
  }
  // Every node's attributes, `{}` where it has no .zattrs: readers need not ask the store for them.
  for (const key of [...entries.keys()]) {
    const attrs = key.replace(/\.z(array|group)$/, ZATTRS);
    if (attrs !== key && !entries.has(attrs)) entries.set(attrs, {});
  }
  await store.set(prefix + ZMETADATA, encodeZmetadata(entries, prefix + ZMETADATA), request);
  const nodes = [...entries.keys()].filter((k) => k.includes('/') && !k.endsWith(ZATTRS)).length;
  return { zarrFormat: 2, nodes };
}

/**
 * After a v3 node's zarr.json at `path` was written (`doc`) or the node erased (undefined): every
 * group above it whose zarr.json holds inline consolidated metadata gets the change. Takes no
 * signal: it completes the write that already happened.
 */
export async function updateConsolidatedV3(
  store: ZarrStore, path: string, doc: { readonly [key: string]: JsonValue } | undefined, replacesSubtree = false,
): Promise<void> {
  await serialized(store, () => applyV3(store, path, doc, replacesSubtree));
}

/**
 * Writes a v3 group's zarr.json. With `keepConsolidated`, the consolidated metadata it holds in
 * the store now is kept (not the copy `metadata` was read with, which another write may have
 * changed since). `request`'s signal cancels it until zarr.json is written; the groups above
 * then get the change whatever the signal does.
 */
export async function writeV3Group(
  store: ZarrStore, path: string, metadata: GroupMetadata, keepConsolidated: boolean, request?: AbortOptions,
): Promise<void> {
  await serialized(store, async () => {
    const key = metadataKey(path);
    throwIfAborted(request?.signal, key);
    const current = keepConsolidated ? await store.get(key, request) : undefined;
    const meta = current && parseNodeMetadata(current, key);
    const kept = meta?.nodeType === 'group' ? meta.extra[CONSOLIDATED_FIELD] : undefined;
    const { [CONSOLIDATED_FIELD]: _stale, ...extra } = metadata.extra;
    const next: GroupMetadata = { ...metadata, extra: kept === undefined ? extra : { ...extra, [CONSOLIDATED_FIELD]: kept } };
    await store.set(key, encodeNodeMetadata(next, key), request);
    await applyV3(store, path, nodeMetadataToJson(next), false);
  });
}

async function applyV3(store: ZarrStore, path: string, doc: { readonly [key: string]: JsonValue } | undefined, replacesSubtree: boolean): Promise<void> {
  for (const ancestor of ancestors(path)) {
    const key = metadataKey(ancestor);
    const bytes = await store.get(key);
    // Most groups hold none: skip parsing them (an unreadable one fails where it is read, not here).
    if (!bytes || !containsText(bytes, CONSOLIDATED_FIELD)) continue;
    const group = parseNodeMetadata(bytes, key);
    if (group.nodeType !== 'group') continue;
    const entries = readInlineConsolidated(group, key);
    if (!entries) continue;
    const next = new Map(entries);
    edit(next, relative(path, ancestor), doc && { ...doc }, replacesSubtree);
    await store.set(key, encodeNodeMetadata(withInlineConsolidated(group, next), key));
  }
}

/**
 * After a v2 node's `name` document (.zarray, .zgroup, .zattrs) at `path` was written (`doc`), or
 * the node erased (`name` undefined): every `.zmetadata` at or above it gets the change. Takes no
 * signal: it completes the write that already happened.
 */
export async function updateConsolidatedV2(store: ZarrStore, path: string, change: { name: string; doc: PyJson } | undefined): Promise<void> {
  await serialized(store, async () => {
    for (const ancestor of [...ancestors(path), normalizePath(path)]) {
      const key = keyPrefix(ancestor) + ZMETADATA;
      const bytes = await store.get(key);
      if (!bytes) continue;
      const entries: Map<string, PyJson> = parseZmetadata(bytes, key);
      const rel = relative(path, ancestor);
      const at = (name: string) => (rel === '' ? name : `${rel}/${name}`);
      if (change) {
        entries.set(at(change.name), change.doc);
        // Readers then find every node's attributes in the document (zarr-python 3 lists them all).
        if (!entries.has(at(ZATTRS))) entries.set(at(ZATTRS), {});
      } else for (const k of [...entries.keys()]) if (k.startsWith(rel + '/')) entries.delete(k);
      await store.set(key, encodeZmetadata(entries, key));
    }
  });
}

/**
 * Sets or (doc undefined) removes the node at `rel` and, when removing or `replacesSubtree`
 * (an overwrite: the old node's descendants are gone), everything below it.
 */
function edit(entries: Map<string, { [key: string]: JsonValue }>, rel: string, doc: { [key: string]: JsonValue } | undefined, replacesSubtree: boolean): void {
  if (!doc || replacesSubtree) for (const k of [...entries.keys()]) if (k === rel || k.startsWith(rel + '/')) entries.delete(k);
  if (doc) entries.set(rel, doc);
}

/** The groups above `path`, root first. */
function ancestors(path: string): string[] {
  const names = normalizePath(path).split('/').filter(Boolean);
  return names.map((_n, i) => '/' + names.slice(0, i).join('/'));
}

/** `path` relative to its ancestor `base`: '' when equal. */
function relative(path: string, base: string): string {
  const p = normalizePath(path);
  const b = normalizePath(base);
  return p === b ? '' : b === '/' ? p.slice(1) : p.slice(b.length + 1);
}

function jsonObject(value: JsonValue, where: string): { [key: string]: JsonValue } {
  if (!isJsonObject(value)) throw floeError('INVALID_METADATA', 'the document must be a JSON object', { where });
  return value;
}

const queues = new WeakMap<ZarrStore, Promise<unknown>>();

/** Runs `fn` after every earlier call on the same store has settled. */
function serialized<T>(store: ZarrStore, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(store) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  queues.set(store, run.catch(() => undefined));
  return run;
}
