// A session seen as a Zarr v3 store, so Floe's arrays and groups (and zarrita) read and write
// through it unchanged. `zarr.json` keys map to node metadata, chunk keys to manifest refs
// (inline, native chunk objects, virtual); any other key does not exist in an Icechunk repository.
// Every method takes `{ signal }` last and passes it to the manifest loads and chunk reads and
// writes it makes (ABORTED); the change set records a write only once its chunk is stored.
import { floeError, isFloeError } from '../errors.ts';
import { throwIfAborted } from '../engine/abort.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import type { DecodedChunkSource, ListDir, LocalFileSpan, ZarrStore } from '../engine/store.ts';
import { normalizeKey } from '../engine/store.ts';
import type { AbortOptions, ByteRange, ObjectGetOptions } from '../engine/storage/types.ts';
import { checkObjectSize } from '../engine/storage/object-bound.ts';
import { idToString, type ChunkId } from '../format/icechunk/ids.ts';
import { chunkKey } from '../format/icechunk/keys.ts';
import type { ChunkRef } from '../format/icechunk/manifest.ts';
import { currentChunkRefs, requireArray, chunkRefAt, type ResolvedNode } from './node-view.ts';
import { deleteChunk, deleteSubtree, setNodeMetadata, setVirtualChunk, writeChunk, type WriteContext } from './node-ops.ts';
import { arrayMetadataOf, chunkKeyOf, classifyKey, metadataKeyOf, pathToKeyPrefix } from './store-keys.ts';
import type { VirtualChunkAccess } from './virtual-chunks.ts';

/** Virtual chunk access (URL rules, file and HTTP reads) loads with the first virtual chunk. */
const virtualChunks = () => import('./virtual-chunks.ts');

export interface StoreContext extends WriteContext {
  readonly readOnly: boolean;
  /** Reads one `getPartialValues` call keeps in flight. */
  readonly concurrency: number;
  readonly virtual: VirtualChunkAccess;
  /** A native chunk's bytes (the session may still hold them in memory, unwritten). */
  readChunk(chunkId: ChunkId, range: { offset: number; length: number }, options?: AbortOptions): Promise<Uint8Array>;
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

/** One chunk of `setVirtualRefs` (the reference's VirtualChunkSpec). */
export interface VirtualChunkSpec {
  index: number[];
  location: string;
  offset: number;
  length: number;
  etagChecksum?: string | null;
  lastModified?: Date | null;
}

function withinGrid(node: ResolvedNode, index: readonly number[]): boolean {
  const { shape, chunkShape } = arrayMetadataOf(node);
  if (index.length !== shape.length || chunkShape.length !== shape.length) return false;
  // Runs for every chunk a session writes: no per-call arrays. d < rank for both lists (checked above).
  return index.every((c, d) => {
    const n = shape[d];
    const size = chunkShape[d];
    return n !== undefined && size !== undefined && Number.isInteger(c) && c >= 0 && c * size < Math.max(n, 1);
  });
}

export class SessionStore implements ZarrStore {
  /** Nothing it records is visible outside the session until the commit, which is atomic. */
  readonly transactional = true;
  /**
   * The repository's decoded-chunk cache, keyed by the chunk ref (a chunk object id never names
   * other bytes), so every session of the repository shares entries and none goes stale.
   */
  readonly decodedChunks: DecodedChunkSource;

  /** Reads keep the repository's `concurrency` in flight (32 over HTTP, else 8, by default). */
  get readConcurrency(): number {
    return this.ctx.concurrency;
  }

  constructor(private readonly ctx: StoreContext) {
    this.decodedChunks = { cache: ctx.objects.readCaches.decodedChunks, chunkIdentity: (key, options) => this.chunkIdentity(key, options) };
  }

  /** What names a chunk's bytes: its chunk object range, or a virtual range with its checksum. */
  private async chunkIdentity(key: string, options?: AbortOptions): Promise<string | undefined> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind !== 'chunk') return undefined;
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, parsed.node, parsed.coords, options);
    if (ref?.kind === 'native') return `chunk:${idToString(ref.chunkId)}@${ref.offset}+${ref.length}`;
    // A virtual object without a checksum may change under its location: not cached.
    if (ref?.kind !== 'virtual' || ref.checksum === null) return undefined;
    const version = 'etag' in ref.checksum ? `etag:${ref.checksum.etag}` : `modified:${ref.checksum.lastModified}`;
    return `virtual:${ref.location}@${ref.offset}+${ref.length}#${version}`;
  }

  get readOnly(): boolean {
    return this.ctx.readOnly;
  }

  get(key: string, options?: ObjectGetOptions): Promise<Uint8Array | undefined> {
    return this.read(key, undefined, options);
  }

  getRange(key: string, range: ByteRange, options?: AbortOptions): Promise<Uint8Array | undefined> {
    return this.read(key, range, options);
  }

  getPartialValues(requests: readonly (readonly [string, ByteRange | undefined])[], options?: AbortOptions): Promise<(Uint8Array | undefined)[]> {
    return mapLimit(requests, this.ctx.concurrency, ([key, range]) => this.read(key, range, options));
  }

  /**
   * For repositories on the local filesystem: the file and byte range of a chunk stored in a
   * chunk object (whole or packed), so decode workers read it themselves as they do for plain
   * stores. Inline, virtual and not yet written chunks are read through `get`.
   */
  async localFile(key: string, options?: AbortOptions): Promise<LocalFileSpan | null | undefined> {
    const storage = this.ctx.objects.storage;
    if (!storage.localFile) return undefined;
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind !== 'chunk') return undefined;
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, requireArray(parsed.node, parsed.node.path), parsed.coords, options);
    if (!ref) return null;
    if (ref.kind !== 'native' || this.ctx.packer.pending(ref.chunkId, ref) !== undefined) return undefined;
    return { ...storage.localFile(chunkKey(ref.chunkId)), offset: ref.offset, length: ref.length, required: true };
  }

  /** Whether a key holds a value in this session: a node's zarr.json, or a chunk (inline, stored or virtual). */
  async exists(key: string, options?: AbortOptions): Promise<boolean> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') return this.ctx.view().nodeAt(parsed.path) !== undefined;
    if (parsed.kind === 'chunk') return (await chunkRefAt(this.ctx.objects, this.ctx.changes, parsed.node, parsed.coords, options)) !== undefined;
    return false;
  }

  async set(key: string, value: Uint8Array, options?: AbortOptions): Promise<void> {
    throwIfAborted(options?.signal, key); // metadata writes touch no storage: check here
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') return setNodeMetadata(this.ctx, parsed.path, value);
    if (parsed.kind === 'chunk') return writeChunk(this.ctx, parsed.node, parsed.coords, value, options);
    this.ctx.assertWritable(key);
    throw floeError('INVALID_KEY', `${JSON.stringify(key)} is neither a zarr.json nor a chunk key of an existing array; create the array first`, { where: key });
  }

  async setPartialValues(requests: readonly (readonly [string, number, Uint8Array])[], options?: AbortOptions): Promise<void> {
    for (const [key, offset, bytes] of requests) {
      const current = (await this.get(key, options)) ?? new Uint8Array(0);
      const next = new Uint8Array(Math.max(current.length, offset + bytes.length));
      next.set(current);
      next.set(bytes, offset);
      await this.set(key, next, options);
    }
  }

  /** Records a virtual chunk reference at a chunk key (the reference's `setVirtualRef`). */
  async setVirtualRef(key: string, location: string, offset: number, length: number, etagChecksum?: string | null, lastModified?: Date | null, validateContainer = true): Promise<void> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind !== 'chunk') throw floeError('INVALID_KEY', `${JSON.stringify(key)} is not a chunk key of an existing array`, { where: key });
    if (validateContainer) (await virtualChunks()).checkContainerExists(this.ctx.virtual.containers, location);
    setVirtualChunk(this.ctx, parsed.node, parsed.coords, { location, offset, length, etag: etagChecksum ?? null, lastModified: lastModified ?? null });
  }

  /**
   * The reference's `setVirtualRefs`: virtual refs for many chunks of one array. Chunks whose
   * index is outside the array's grid, or whose location no container serves (when validating),
   * are not set; their indices come back, or null when every one was set. In bulk: the array is
   * resolved once and each distinct location matched to a container once, not per chunk.
   */
  async setVirtualRefs(arrayPath: string, chunks: readonly VirtualChunkSpec[], validateContainers = true): Promise<number[][] | null> {
    const node = requireArray(this.ctx.view().nodeAt(arrayPath), arrayPath);
    this.ctx.assertWritable(node.path);
    const rules = validateContainers ? await virtualChunks() : undefined;
    const served = new Map<string, boolean>();
    const failed: number[][] = [];
    for (const chunk of chunks) {
      let ok = withinGrid(node, chunk.index);
      if (ok && rules) {
        let known = served.get(chunk.location);
        if (known === undefined) served.set(chunk.location, (known = rules.containerFor(this.ctx.virtual.containers, chunk.location) !== undefined));
        ok = known;
      }
      try {
        if (!ok) throw floeError('INVALID_KEY', `chunk ${chunk.index} is outside ${arrayPath} or no container serves ${chunk.location}`);
        setVirtualChunk(this.ctx, node, [...chunk.index], { location: chunk.location, offset: chunk.offset, length: chunk.length, etag: chunk.etagChecksum ?? null, lastModified: chunk.lastModified ?? null });
      } catch (err) {
        if (!isFloeError(err) || err.code === 'READ_ONLY') throw err;
        failed.push([...chunk.index]);
      }
    }
    return failed.length > 0 ? failed : null;
  }

  /** The reference's `setIfNotExists`: writes only when the key has no value. */
  async setIfNotExists(key: string, value: Uint8Array, options?: AbortOptions): Promise<void> {
    if (!(await this.exists(key, options))) await this.set(key, value, options);
  }

  /** The reference's `isEmpty`: no key starts with `prefix`. */
  async isEmpty(prefix: string, options?: AbortOptions): Promise<boolean> {
    for await (const key of this.listPrefix(prefix, options)) {
      void key;
      return false;
    }
    return true;
  }

  /** The reference's `clear`: deletes every node. */
  clear(options?: AbortOptions): Promise<void> {
    return this.erasePrefix('', options);
  }

  /** The reference's `deleteDir`: deletes everything under `prefix` as a directory. */
  deleteDir(prefix: string, options?: AbortOptions): Promise<void> {
    const p = normalizeKey(prefix);
    return this.erasePrefix(p === '' || p.endsWith('/') ? p : p + '/', options);
  }

  /** The reference's `getsize`: a value's size in bytes, without fetching chunk bytes. */
  async getsize(key: string, options?: AbortOptions): Promise<number> {
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') {
      const node = this.ctx.view().nodeAt(parsed.path);
      if (node) return node.userData.length;
    } else if (parsed.kind === 'chunk') {
      const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, parsed.node, parsed.coords, options);
      if (ref) return ref.kind === 'inline' ? ref.data.length : ref.length;
    }
    throw floeError('NOT_FOUND', `no value at ${JSON.stringify(key)}`, { where: key });
  }

  /** The reference's `getsizePrefix`: the sizes of every value under `prefix`, added up. */
  async getsizePrefix(prefix: string, options?: AbortOptions): Promise<number> {
    let total = 0;
    for await (const key of this.listPrefix(prefix, options)) total += await this.getsize(key, options);
    return total;
  }

  get supportsWrites(): boolean {
    return !this.ctx.readOnly;
  }
  get supportsDeletes(): boolean {
    return !this.ctx.readOnly;
  }
  get supportsListing(): boolean {
    return true;
  }

  async erase(key: string, options?: AbortOptions): Promise<void> {
    await this.eraseValues([key], options);
  }

  /** The reference's name for erase. */
  delete(key: string, options?: AbortOptions): Promise<void> {
    return this.erase(key, options);
  }

  /** Erasing only records tombstones (no storage request): the signal is checked once, first. */
  async eraseValues(keys: readonly string[], options?: AbortOptions): Promise<void> {
    throwIfAborted(options?.signal, keys[0]);
    for (const key of keys) {
      const parsed = classifyKey(this.ctx.view(), key);
      if (parsed.kind === 'metadata') deleteSubtree(this.ctx, parsed.path);
      else if (parsed.kind === 'chunk') deleteChunk(this.ctx, parsed.node, parsed.coords);
      else this.ctx.assertWritable(key);
    }
  }

  async erasePrefix(prefix: string, options?: AbortOptions): Promise<void> {
    throwIfAborted(options?.signal, prefix);
    this.ctx.assertWritable(prefix);
    const p = normalizeKey(prefix);
    const nodePath = p === '' ? '/' : p.endsWith('/') ? '/' + p.slice(0, -1) : undefined;
    if (nodePath !== undefined && this.ctx.view().nodeAt(nodePath)) {
      deleteSubtree(this.ctx, nodePath);
      if (nodePath !== '/') return;
    }
    const keys: string[] = [];
    for await (const key of this.listPrefix(p, options)) keys.push(key);
    await this.eraseValues(keys, options);
  }

  list(options?: AbortOptions): AsyncIterable<string> {
    return this.listPrefix('', options);
  }

  async *listPrefix(prefix: string, options?: AbortOptions): AsyncIterable<string> {
    const p = normalizeKey(prefix);
    for (const node of this.ctx.view().nodes()) {
      const nodePrefix = pathToKeyPrefix(node.path);
      // Skip nodes whose keys cannot start with `p`.
      if (!nodePrefix.startsWith(p) && !p.startsWith(nodePrefix)) continue;
      const metaKey = metadataKeyOf(node.path);
      if (metaKey.startsWith(p)) yield metaKey;
      if (node.kind !== 'array') continue;
      for (const ref of await currentChunkRefs(this.ctx.objects, this.ctx.changes, node, options)) {
        const key = chunkKeyOf(node, ref.index);
        if (key.startsWith(p)) yield key;
      }
    }
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDir> {
    let p = normalizeKey(prefix);
    if (p !== '' && !p.endsWith('/')) p += '/';
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    const view = this.ctx.view();
    const dirPath = p === '' ? '/' : '/' + p.slice(0, -1);
    for (const node of view.nodes()) {
      const nodePrefix = pathToKeyPrefix(node.path);
      if (node.path === dirPath) keys.add('zarr.json');
      else if (nodePrefix.startsWith(p)) {
        const rest = nodePrefix.slice(p.length);
        const slash = rest.indexOf('/');
        prefixes.add(slash < 0 ? rest : rest.slice(0, slash));
      }
    }
    // Inside an array: one level of its chunk keys.
    const owner = [...view.nodes()].reverse().find((n) => n.kind === 'array' && p.startsWith(pathToKeyPrefix(n.path)));
    if (owner) {
      for (const ref of await currentChunkRefs(this.ctx.objects, this.ctx.changes, owner, options)) {
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

  private async read(key: string, range: ByteRange | undefined, options: ObjectGetOptions | undefined): Promise<Uint8Array | undefined> {
    throwIfAborted(options?.signal, key); // metadata and inline chunks are read from memory
    const parsed = classifyKey(this.ctx.view(), key);
    if (parsed.kind === 'metadata') {
      const node = this.ctx.view().nodeAt(parsed.path);
      if (!node) return undefined;
      const r = rangeWithin(range, node.userData.length);
      return r && node.userData.subarray(r.offset, r.offset + r.length);
    }
    if (parsed.kind !== 'chunk') return undefined;
    const ref = await chunkRefAt(this.ctx.objects, this.ctx.changes, requireArray(parsed.node, parsed.node.path), parsed.coords, options);
    return ref && this.readRef(key, ref, range, options);
  }

  private async readRef(key: string, ref: ChunkRef, range: ByteRange | undefined, options: ObjectGetOptions | undefined): Promise<Uint8Array | undefined> {
    const size = ref.kind === 'inline' ? ref.data.length : ref.length;
    // A manifest's length past any encoding of the chunk is refused before it is fetched.
    checkObjectSize(key, size, range, options);
    const r = rangeWithin(range, size);
    if (!r) return undefined;
    switch (ref.kind) {
      case 'inline':
        return ref.data.subarray(r.offset, r.offset + r.length);
      case 'native':
        return this.ctx.readChunk(ref.chunkId, { offset: ref.offset + r.offset, length: r.length }, options);
      case 'virtual':
        return (await virtualChunks()).fetchVirtualChunk(this.ctx.virtual, ref, r, options);
    }
  }
}
