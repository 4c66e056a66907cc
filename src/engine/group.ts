// Groups and the hierarchy: explicit groups (with zarr.json), implicit groups (a prefix with
// descendants), listing children, erasing nodes.
import { floeError } from '../errors.ts';
import { createGroupMetadata, encodeNodeMetadata, parseNodeMetadata, type Attributes, type GroupMetadata } from '../format/zarr/metadata.ts';
import { joinPath, keyPrefix, metadataKey, normalizePath } from '../format/zarr/paths.ts';
import type { ArrayMetadataInput } from '../format/zarr/metadata.ts';
import { ZarrArray, type ArrayIoOptions } from './array.ts';
import type { ZarrStore } from './store.ts';

/** A child of a {@link ZarrGroup}, as listed by it. */
export interface ChildInfo {
  name: string;
  path: string;
  kind: 'array' | 'group';
}

/** A Zarr v3 group: explicit (with a zarr.json) or implicit (a prefix with nodes under it). */
export class ZarrGroup {
  readonly path: string;

  constructor(
    readonly store: ZarrStore,
    path: string,
    /** Undefined for an implicit group (no zarr.json of its own). */
    readonly metadata: GroupMetadata | undefined,
  ) {
    this.path = normalizePath(path);
  }

  /** Opens the group at `path`; `NODE_TYPE_MISMATCH` when it is an array, `NOT_FOUND` when nothing is there. */
  static async open(store: ZarrStore, path = '/'): Promise<ZarrGroup> {
    const node = await openNode(store, path);
    if (node instanceof ZarrArray) throw floeError('NODE_TYPE_MISMATCH', `${node.path} is an array, not a group`, { where: metadataKey(path) });
    return node;
  }

  /**
   * Creates a group at `path`. An existing group is kept (and returned) unless `attributes` or
   * `overwrite` is given; an existing array is `ALREADY_EXISTS` unless `overwrite`.
   */
  static async create(store: ZarrStore, path = '/', options: { attributes?: Attributes; overwrite?: boolean } = {}): Promise<ZarrGroup> {
    const key = metadataKey(path);
    const existing = await store.get(key);
    if (existing && !options.overwrite) {
      const meta = parseNodeMetadata(existing, key);
      if (meta.nodeType === 'array') throw floeError('ALREADY_EXISTS', `an array exists at ${normalizePath(path)}`, { where: key });
      if (options.attributes === undefined) return new ZarrGroup(store, path, meta);
    }
    const metadata = createGroupMetadata(options.attributes ?? {});
    await store.set(key, encodeNodeMetadata(metadata, key));
    return new ZarrGroup(store, path, metadata);
  }

  get attributes(): Attributes {
    return this.metadata?.attributes ?? {};
  }

  /** Creates a child group (see {@link ZarrGroup.create}). */
  async createGroup(name: string, options?: { attributes?: Attributes; overwrite?: boolean }): Promise<ZarrGroup> {
    return ZarrGroup.create(this.store, joinPath(this.path, name), options);
  }

  /** Creates a child array (see {@link ZarrArray.create}). */
  async createArray(name: string, input: ArrayMetadataInput & { overwrite?: boolean }, options?: ArrayIoOptions): Promise<ZarrArray> {
    return ZarrArray.create(this.store, joinPath(this.path, name), input, options);
  }

  /** Opens a child array. */
  async openArray(name: string, options?: ArrayIoOptions): Promise<ZarrArray> {
    return ZarrArray.open(this.store, joinPath(this.path, name), options);
  }

  /** Opens a child group. */
  async openGroup(name: string): Promise<ZarrGroup> {
    return ZarrGroup.open(this.store, joinPath(this.path, name));
  }

  /** Direct children, sorted by name. Prefixes without zarr.json are implicit groups. */
  async children(): Promise<ChildInfo[]> {
    const { prefixes } = await this.store.listDir(keyPrefix(this.path));
    const out: ChildInfo[] = [];
    for (const name of prefixes.sort()) {
      if (name.startsWith('__') || !isNodeName(name)) continue;
      const path = joinPath(this.path, name);
      const bytes = await this.store.get(metadataKey(path));
      const kind = bytes ? parseNodeMetadata(bytes, metadataKey(path)).nodeType : 'group';
      out.push({ name, path, kind });
    }
    return out;
  }

  /** Erases a child node and everything below it. */
  async erase(name: string): Promise<void> {
    const path = joinPath(this.path, name);
    await this.store.erasePrefix(keyPrefix(path));
  }

  /** Replaces the group's attributes, making an implicit group explicit; returns the updated group. */
  async setAttributes(attributes: Attributes): Promise<ZarrGroup> {
    const metadata = { ...(this.metadata ?? createGroupMetadata()), attributes };
    await this.store.set(metadataKey(this.path), encodeNodeMetadata(metadata, metadataKey(this.path)));
    return new ZarrGroup(this.store, this.path, metadata);
  }
}

function isNodeName(name: string): boolean {
  return name !== '' && !/^\.+$/.test(name);
}

/** Opens whatever is at `path`: an array, an explicit group, or an implicit group. */
export async function openNode(store: ZarrStore, path = '/', options?: ArrayIoOptions): Promise<ZarrArray | ZarrGroup> {
  const key = metadataKey(path);
  const bytes = await store.get(key);
  if (bytes) {
    const meta = parseNodeMetadata(bytes, key);
    return meta.nodeType === 'array' ? new ZarrArray(store, path, meta, options) : new ZarrGroup(store, path, meta);
  }
  const listing = await store.listDir(keyPrefix(path));
  if (normalizePath(path) === '/' || listing.keys.length > 0 || listing.prefixes.length > 0) {
    return new ZarrGroup(store, path, undefined);
  }
  throw floeError('NOT_FOUND', `no array or group at ${normalizePath(path)}`, { where: key });
}
