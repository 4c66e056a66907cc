// A session seen as a Zarr v3 store, so Floe's arrays and groups (and zarrita) read and write
// through it unchanged. `zarr.json` keys map to node metadata, chunk keys to manifest refs
// (inline, native chunk objects, virtual); any other key does not exist in an Icechunk repository.
import { floeError } from '../errors.ts';
import { mapLimit } from '../engine/concurrency.ts';
import type { ListDir, LocalFileSpan, ZarrStore } from '../engine/store.ts';
import { normalizeKey } from '../engine/store.ts';
import type { ByteRange } from '../engine/storage/types.ts';
import type { ChunkId } from '../format/icechunk/ids.ts';
import { chunkKey } from '../format/icechunk/keys.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import { currentChunkRefs, requireArray, chunkRefAt } from './node-view.ts';
import { deleteChunk, deleteSubtree, setNodeMetadata, setVirtualChunk, writeChunk, type WriteContext } from './node-ops.ts';
import { chunkKeyOf, classifyKey, metadataKeyOf, pathToKeyPrefix } from './store-keys.ts';
import { fetchVirtualChunk, checkContainerExists, type VirtualChunkAccess } from './virtual-chunks.ts';

export interface StoreContext extends WriteContext {
  readonly readOnly: boolean;
  readonly virtual: VirtualChunkAccess;
  /** A native chunk's bytes (the session may still hold them in memory, unwritten). */
  readChunk(chunkId: ChunkId, range: { offset: number; length: number }): Promise<Uint8Array>;
}

/** Resolves a store byte range against a value of `size` bytes; undefined when out of bounds. */
function rangeWithin(range: ByteRange | undefined, size: number): { offset: number; length: number } | undefined {
  if (!range) return { offset: 0, length: size };
  if ('suffixLength' in range) {
    const length = Math.min(range.suffixLength, size);
    return { offset: size - length, length };
  }
  if (range.offset > size) return undefined;
  return { offset: range.offset, length: Math.min(range.length ?? size - range.offset, size - range.offset) };
}

export class SessionStore implements ZarrStore {
  constructor(private readonly ctx: StoreContext) {}

  get readOnly(): boolean {
    return this.ctx.readOnly;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.read(key, undefined);
  }

  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.read(key, range);
  }

  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[]): Promise<(Uint8Array | undefined)[]> {
    return mapLimit(requests, 16, ([key, range]) => this.read(key, range));
  }

  /**
   * For repositories on the local filesystem: the file and byte range of a chunk stored in a
   * chunk object (whole or packed), so decode workers read it themselves as they do for plain
   * stores. Inline, virtual and not yet written chunks are read through `get`.
   */
  async localFile(key: string): Promise<LocalFileSpan | null | undefined> {
    const storage = this.ctx.objects.storage;
    if (!storage.localFile) return undefined;
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind !== 'chunk') return undefined;
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, requireArray(parsed.node, parsed.node.path), parsed.coords);
    if (!ref) return null;
    if (ref.kind !== 'native' || this.ctx.packer.pending(ref.chunkId, ref) !== undefined) return undefined;
    return { path: storage.localFile(chunkKey(ref.chunkId)), offset: ref.offset, length: ref.length, required: true };
  }

  async exists(key: string): Promise<boolean> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') return this.ctx.view().nodeAt(parsed.path) !== undefined;
    if (parsed.kind === 'chunk') return (await chunkRefAt(this.ctx.objects, this.ctx.changes, parsed.node, parsed.coords)) !== undefined;
    return false;
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') return setNodeMetadata(this.ctx, parsed.path, value);
    if (parsed.kind === 'chunk') return writeChunk(this.ctx, parsed.node, parsed.coords, value);
    this.ctx.assertWritable(key);
    throw floeError('INVALID_KEY', `${JSON.stringify(key)} is neither a zarr.json nor a chunk key of an existing array; create the array first`, { where: key });
  }

  async setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[]): Promise<void> {
    for (const [key, offset, bytes] of requests) {
      const current = (await this.get(key)) ?? new Uint8Array(0);
      const next = new Uint8Array(Math.max(current.length, offset + bytes.length));
      next.set(current);
      next.set(bytes, offset);
      await this.set(key, next);
    }
  }

  /** Records a virtual chunk reference at a chunk key (the reference's `setVirtualRef`). */
  async setVirtualRef(key: string, location: string, offset: number, length: number, etagChecksum?: string | null, lastModified?: Date | null, validateContainer = true): Promise<void> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind !== 'chunk') throw floeError('INVALID_KEY', `${JSON.stringify(key)} is not a chunk key of an existing array`, { where: key });
    if (validateContainer) checkContainerExists(this.ctx.virtual.containers, location);
    setVirtualChunk(this.ctx, parsed.node, parsed.coords, { location, offset, length, etag: etagChecksum ?? null, lastModified: lastModified ?? null });
  }

  async erase(key: string): Promise<void> {
    await this.eraseValues([key]);
  }

  /** The reference's name for erase. */
  delete(key: string): Promise<void> {
    return this.erase(key);
  }

  async eraseValues(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const parsed = classifyKey(this.ctx.view(), key);
      if (parsed.kind === 'metadata') deleteSubtree(this.ctx, parsed.path);
      else if (parsed.kind === 'chunk') deleteChunk(this.ctx, parsed.node, parsed.coords);
      else this.ctx.assertWritable(key);
    }
  }

  async erasePrefix(prefix: string): Promise<void> {
    this.ctx.assertWritable(prefix);
    const p = normalizeKey(prefix);
    const nodePath = p === '' ? '/' : p.endsWith('/') ? '/' + p.slice(0, -1) : undefined;
    if (nodePath !== undefined && this.ctx.view().nodeAt(nodePath)) {
      deleteSubtree(this.ctx, nodePath);
      if (nodePath !== '/') return;
    }
    const keys: string[] = [];
    for await (const key of this.listPrefix(p)) keys.push(key);
    await this.eraseValues(keys);
  }

  list(): AsyncIterable<string> {
    return this.listPrefix('');
  }

  async *listPrefix(prefix: string): AsyncIterable<string> {
    const p = normalizeKey(prefix);
    for (const node of this.ctx.view().nodes()) {
      const nodePrefix = pathToKeyPrefix(node.path);
      // Skip nodes whose keys cannot start with `p`.
      if (!nodePrefix.startsWith(p) && !p.startsWith(nodePrefix)) continue;
      const metaKey = metadataKeyOf(node.path);
      if (metaKey.startsWith(p)) yield metaKey;
      if (node.kind !== 'array') continue;
      for (const ref of await currentChunkRefs(this.ctx.objects, this.ctx.changes, node)) {
        const key = chunkKeyOf(node, ref.index);
        if (key.startsWith(p)) yield key;
      }
    }
  }

  async listDir(prefix: string): Promise<ListDir> {
    let p = normalizeKey(prefix);
    if (p !== '' && !p.endsWith('/')) p += '/';
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    const view = this.ctx.view();
    const dirPath = p === '' ? '/' : '/' + p.slice(0, -1);
    for (const node of view.nodes()) {
      const nodePrefix = pathToKeyPrefix(node.path);
      if (node.path === dirPath) keys.add('zarr.json');
      else if (nodePrefix.startsWith(p)) prefixes.add(nodePrefix.slice(p.length).split('/')[0]!);
    }
    // Inside an array: one level of its chunk keys.
    const owner = [...view.nodes()].reverse().find((n) => n.kind === 'array' && p.startsWith(pathToKeyPrefix(n.path)));
    if (owner) {
      for (const ref of await currentChunkRefs(this.ctx.objects, this.ctx.changes, owner)) {
        const key = chunkKeyOf(owner, ref.index);
        if (!key.startsWith(p)) continue;
        const rest = key.slice(p.length);
        const slash = rest.indexOf('/');
        if (slash < 0) keys.add(rest);
        else prefixes.add(rest.slice(0, slash));
      }
    }
    return { keys: [...keys].sort(), prefixes: [...prefixes].sort() };
  }

  private async read(key: string, range: ByteRange | undefined): Promise<Uint8Array | undefined> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') {
      const node = this.ctx.view().nodeAt(parsed.path);
      if (!node) return undefined;
      const r = rangeWithin(range, node.userData.length);
      return r && node.userData.subarray(r.offset, r.offset + r.length);
    }
    if (parsed.kind !== 'chunk') return undefined;
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, requireArray(parsed.node, parsed.node.path), parsed.coords);
    return ref && this.readRef(ref, range);
  }

  private async readRef(ref: ChunkRef, range: ByteRange | undefined): Promise<Uint8Array | undefined> {
    const size = ref.kind === 'inline' ? ref.data.length : ref.length;
    const r = rangeWithin(range, size);
    if (!r) return undefined;
    switch (ref.kind) {
      case 'inline':
        return ref.data.subarray(r.offset, r.offset + r.length);
      case 'native':
        return this.ctx.readChunk(ref.chunkId, { offset: ref.offset + r.offset, length: r.length });
      case 'virtual':
        return fetchVirtualChunk(this.ctx.virtual, ref, r);
    }
  }
}
