// Groups and the hierarchy: explicit groups (zarr.json, or `.zgroup` for Zarr v2), implicit v3
// groups (a prefix with descendants), listing children, erasing nodes, and opening whatever is at
// a path with its Zarr version detected. A group opened with consolidated metadata (v3 inline
// `consolidated_metadata`, v2 `.zmetadata`) opens and lists its descendants from it, without
// reading the store; a child missing from it is still read from the store. Every method that
// reads or writes takes `signal` in its options (ABORTED).
import { floeError } from '../errors.ts';
import { requestOf, withoutSignal } from './abort.ts';
import { ZGROUP } from '../format/zarr-v2/metadata.ts';
import { readInlineConsolidated } from '../format/zarr/consolidated.ts';
import {
  createGroupMetadata, parseNodeMetadata, type ArrayMetadataInput, type Attributes, type GroupMetadata, type NodeMetadata,
} from '../format/zarr/metadata.ts';
import { joinPath, keyPrefix, metadataKey, normalizePath } from '../format/zarr/paths.ts';
import { ZarrArray, type ArrayIoOptions, type OpenArrayOptions } from './array.ts';
import { ConsolidatedIndex, nodeKind, updateConsolidatedV2, updateConsolidatedV3, writeV3Group, type NodeDocs } from './consolidated.ts';
import type { AbortOptions, ZarrStore } from './store.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import { V2Array, type V2ArrayInput } from './v2-array.ts';
import { readV2Node, v2GroupMetadata, v2Kind, writeV2Group } from './v2-group.ts';

/** A child of a {@link ZarrGroup}, as listed by it. */
export interface ChildInfo {
  name: string;
  path: string;
  kind: 'array' | 'group';
}

/**
 * How {@link openNode} (and openArray, openGroup) find a node. `signal` cancels this call only: a
 * group keeps the other options as its children's defaults, never the signal.
 */
export interface NodeOpenOptions extends ArrayIoOptions, AbortOptions {
  /** Look only for this Zarr version's documents; saves the requests that detect the version. */
  zarrFormat?: 2 | 3;
  /** Open descendants from a group's consolidated metadata when it has some. Default true. */
  useConsolidated?: boolean;
}

/** Options of {@link ZarrGroup.create}; `signal` cancels it (`ABORTED`). */
export interface GroupCreateOptions extends AbortOptions {
  attributes?: Attributes;
  overwrite?: boolean;
  /** 2 writes a Zarr v2 group (`.zgroup`, `.zattrs`). Default 3. */
  zarrFormat?: 2 | 3;
}

/** A Zarr v3 array input, or a Zarr v2 one (`zarrFormat: 2`). */
export type AnyArrayInput = (ArrayMetadataInput & { overwrite?: boolean; zarrFormat?: 3 }) | V2ArrayInput;

interface GroupContext {
  readonly zarrFormat?: 2 | 3;
  /** Node documents below the group, from its consolidated metadata. */
  readonly consolidated?: ConsolidatedIndex | undefined;
  readonly options?: NodeOpenOptions;
}

/** A Zarr group: v3 explicit (zarr.json) or implicit (a prefix with nodes under it), or v2 (`.zgroup`). */
export class ZarrGroup {
  readonly path: string;
  readonly zarrFormat: 2 | 3;
  /** What the group's consolidated metadata holds, when it was opened with some. */
  readonly consolidated: ConsolidatedIndex | undefined;
  private readonly options: NodeOpenOptions;

  constructor(
    readonly store: ZarrStore,
    path: string,
    /** Undefined for an implicit group (no zarr.json of its own). */
    readonly metadata: GroupMetadata | undefined,
    context: GroupContext = {},
  ) {
    this.path = normalizePath(path);
    this.zarrFormat = context.zarrFormat ?? 3;
    this.consolidated = context.consolidated;
    this.options = withoutSignal(context.options ?? {});
  }

  /** Opens the group at `path`; `NODE_TYPE_MISMATCH` when it is an array, `NOT_FOUND` when nothing is there. */
  static async open(store: ZarrStore, path = '/', options?: NodeOpenOptions): Promise<ZarrGroup> {
    const node = await findNode(store, path, options, 'group');
    if (node instanceof ZarrArray) throw floeError('NODE_TYPE_MISMATCH', `${node.path} is an array, not a group`, { where: metadataKey(path) });
    return node;
  }

  /**
   * Creates a group at `path`. An existing group is kept (and returned) unless `attributes` or
   * `overwrite` is given; an existing array is `ALREADY_EXISTS` unless `overwrite`.
   */
  static async create(store: ZarrStore, path = '/', options: GroupCreateOptions = {}): Promise<ZarrGroup> {
    if (options.zarrFormat === 2) return createV2Group(store, path, options);
    const key = metadataKey(path);
    const request = requestOf(options);
    const existing = await store.get(key, request);
    let metadata = createGroupMetadata(options.attributes ?? {});
    if (existing && !options.overwrite) {
      const meta = parseNodeMetadata(existing, key);
      if (meta.nodeType === 'array') throw floeError('ALREADY_EXISTS', `an array exists at ${normalizePath(path)}`, { where: key });
      if (options.attributes === undefined) return new ZarrGroup(store, path, meta);
      metadata = { ...meta, attributes: options.attributes };
    }
    await writeV3Group(store, path, metadata, !options.overwrite, request);
    return new ZarrGroup(store, path, metadata);
  }

  get attributes(): Attributes {
    return this.metadata?.attributes ?? {};
  }

  /** Creates a child group of the same Zarr version (see {@link ZarrGroup.create}). */
  async createGroup(name: string, options?: Omit<GroupCreateOptions, 'zarrFormat'>): Promise<ZarrGroup> {
    return ZarrGroup.create(this.store, joinPath(this.path, name), { ...options, zarrFormat: this.zarrFormat });
  }

  /** Creates a child array (see {@link ZarrArray.create}, {@link V2Array.createAt}) of the group's Zarr version. */
  async createArray(name: string, input: AnyArrayInput, options?: OpenArrayOptions): Promise<ZarrArray> {
    const path = joinPath(this.path, name);
    if ((input.zarrFormat ?? 3) !== this.zarrFormat) {
      throw floeError('INVALID_ARGUMENT', `${this.path} is a Zarr v${this.zarrFormat} group; its arrays are v${this.zarrFormat} too (zarrFormat: ${this.zarrFormat})`, { where: path });
    }
    return createAnyArray(this.store, path, input, options);
  }

  /** Opens a child array. */
  async openArray(name: string, options?: OpenArrayOptions): Promise<ZarrArray> {
    const node = await this.openChild(name, options, 'array');
    if (!(node instanceof ZarrArray)) throw floeError('NODE_TYPE_MISMATCH', `${node.path} is a group, not an array`, { where: node.path });
    return node;
  }

  /** Opens a child group. */
  async openGroup(name: string, options?: AbortOptions): Promise<ZarrGroup> {
    const node = await this.openChild(name, options, 'group');
    if (node instanceof ZarrArray) throw floeError('NODE_TYPE_MISMATCH', `${node.path} is an array, not a group`, { where: node.path });
    return node;
  }

  /** Direct children, sorted by name. Prefixes without metadata are implicit groups (v3 only). */
  async children(options?: AbortOptions): Promise<ChildInfo[]> {
    if (this.consolidated) return this.consolidated.children().map(({ name, kind }) => ({ name, path: joinPath(this.path, name), kind }));
    const request = requestOf(options);
    const { prefixes } = await this.store.listDir(keyPrefix(this.path), request);
    const out: ChildInfo[] = [];
    for (const name of prefixes.sort()) {
      if (name.startsWith('__') || !isNodeName(name)) continue;
      const path = joinPath(this.path, name);
      const kind = this.zarrFormat === 2 ? await v2Kind(this.store, path, request) : await v3Kind(this.store, path, request);
      if (kind) out.push({ name, path, kind });
    }
    return out;
  }

  /** Erases a child node and everything below it. */
  async erase(name: string, options?: AbortOptions): Promise<void> {
    const path = joinPath(this.path, name);
    await this.store.erasePrefix(keyPrefix(path), requestOf(options));
    // Completes the erase (no signal): consolidated metadata never lists a node that is gone.
    if (this.zarrFormat === 2) await updateConsolidatedV2(this.store, path, undefined);
    else await updateConsolidatedV3(this.store, path, undefined);
  }

  /** Replaces the group's attributes, making an implicit group explicit; returns the updated group. */
  async setAttributes(attributes: Attributes, options?: AbortOptions): Promise<ZarrGroup> {
    const metadata = { ...(this.metadata ?? createGroupMetadata()), attributes };
    const request = requestOf(options);
    if (this.zarrFormat === 2) await writeV2Group(this.store, this.path, metadata, { attributes: true }, request);
    else await writeV3Group(this.store, this.path, metadata, true, request);
    return new ZarrGroup(this.store, this.path, metadata, { zarrFormat: this.zarrFormat, consolidated: this.consolidated, options: this.options });
  }

  /** A child from the consolidated metadata when it is there, else from the store. */
  private async openChild(name: string, options: NodeOpenOptions | undefined, expect: 'array' | 'group'): Promise<ZarrArray | ZarrGroup> {
    const path = joinPath(this.path, name);
    const docs = this.consolidated?.node(name);
    const opened = { ...this.options, ...options };
    const kind = docs && nodeKind(docs);
    if (docs && kind && this.consolidated) return fromDocuments(this.store, path, docs, kind, this.consolidated.below(name), opened);
    return findNode(this.store, path, { ...opened, zarrFormat: this.zarrFormat }, expect);
  }
}

function isNodeName(name: string): boolean {
  return name !== '' && !/^\.+$/.test(name);
}

/**
 * Opens whatever is at `path`: a v3 array or explicit group (zarr.json), a v2 array or group
 * (`.zarray`, `.zgroup`), or an implicit v3 group (a prefix with nodes under it).
 */
export async function openNode(store: ZarrStore, path = '/', options?: NodeOpenOptions): Promise<ZarrArray | ZarrGroup> {
  return findNode(store, path, options, undefined);
}

/** Creates an array of either Zarr version at `path`. */
export async function createAnyArray(store: ZarrStore, path: string, input: AnyArrayInput, options?: OpenArrayOptions): Promise<ZarrArray> {
  if (input.zarrFormat === 2) return V2Array.createAt(store, path, input, options);
  const { zarrFormat: _format, ...v3 } = input;
  return ZarrArray.create(store, path, v3, options);
}

/** `expect` orders the v2 lookups (`.zarray` first for arrays, `.zmetadata` first for groups). */
async function findNode(store: ZarrStore, path: string, options: NodeOpenOptions = {}, expect: 'array' | 'group' | undefined): Promise<ZarrArray | ZarrGroup> {
  const key = metadataKey(path);
  const format = options.zarrFormat;
  const request = requestOf(options);
  if (format !== 2) {
    const bytes = await store.get(key, request);
    if (bytes) return fromV3(store, path, parseNodeMetadata(bytes, key), options);
  }
  if (format !== 3) {
    const v2 = await readV2Node(store, path, expect ?? 'array', options.useConsolidated ?? true, request);
    if (v2) return fromDocuments(store, path, v2.docs, v2.kind, v2.consolidated, options);
  }
  if (format !== 2) {
    const listing = await store.listDir(keyPrefix(path), request);
    if (normalizePath(path) === '/' || listing.keys.length > 0 || listing.prefixes.length > 0) return new ZarrGroup(store, path, undefined);
  }
  throw floeError('NOT_FOUND', `no array or group at ${normalizePath(path)}`, { where: key });
}

async function fromV3(store: ZarrStore, path: string, meta: NodeMetadata, options: NodeOpenOptions): Promise<ZarrArray | ZarrGroup> {
  if (meta.nodeType === 'array') {
    await loadCodecsMentionedIn(meta.codecs);
    return new ZarrArray(store, path, meta, options);
  }
  const entries = options.useConsolidated === false ? undefined : readInlineConsolidated(meta, metadataKey(path));
  return new ZarrGroup(store, path, meta, { zarrFormat: 3, consolidated: entries && ConsolidatedIndex.v3(entries), options });
}

/** A node from its documents, read from the store or from consolidated metadata. */
async function fromDocuments(store: ZarrStore, path: string, docs: NodeDocs, kind: 'array' | 'group', below: ConsolidatedIndex | undefined, options: NodeOpenOptions): Promise<ZarrArray | ZarrGroup> {
  if (kind === 'array') await loadCodecsMentionedIn(docs.zarrFormat === 3 ? docs.doc : docs.zarray);
  if (docs.zarrFormat === 3) {
    const meta = parseNodeMetadata(docs.doc, metadataKey(path));
    if (meta.nodeType === 'array') return new ZarrArray(store, path, meta, options);
    return new ZarrGroup(store, path, meta, { zarrFormat: 3, consolidated: below, options });
  }
  if (kind === 'array' && docs.zarray !== undefined) return V2Array.fromDocuments(store, path, docs.zarray, docs.zattrs, options);
  return new ZarrGroup(store, path, v2GroupMetadata(path, docs), { zarrFormat: 2, consolidated: below, options });
}

async function v3Kind(store: ZarrStore, path: string, request: AbortOptions | undefined): Promise<'array' | 'group'> {
  const bytes = await store.get(metadataKey(path), request);
  return bytes ? parseNodeMetadata(bytes, metadataKey(path)).nodeType : 'group';
}

async function createV2Group(store: ZarrStore, path: string, options: GroupCreateOptions): Promise<ZarrGroup> {
  const prefix = keyPrefix(path);
  const request = requestOf(options);
  const existing = await readV2Node(store, path, 'group', false, request);
  if (!options.overwrite) {
    if (existing?.kind === 'array' || (await store.get(metadataKey(path), request))) {
      throw floeError('ALREADY_EXISTS', `a node already exists at ${normalizePath(path)}; pass overwrite: true to replace it`, { where: prefix + ZGROUP });
    }
    if (existing && options.attributes === undefined) return new ZarrGroup(store, path, v2GroupMetadata(path, existing.docs), { zarrFormat: 2 });
  }
  if (options.overwrite) {
    await store.erasePrefix(prefix, request);
    await updateConsolidatedV2(store, path, undefined); // completes the erase: no signal
  }
  const kept = existing && !options.overwrite ? v2GroupMetadata(path, existing.docs) : createGroupMetadata();
  const metadata = { ...kept, attributes: options.attributes ?? {} };
  await writeV2Group(store, path, metadata, { group: kept === undefined || options.overwrite === true || !existing, attributes: options.attributes !== undefined }, request);
  return new ZarrGroup(store, path, metadata, { zarrFormat: 2 });
}
