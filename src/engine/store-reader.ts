// A plain Zarr store as a ReadSource: nodes are the explicit `zarr.json` documents, every chunk
// is `native`, its own object named by its store key. Nothing is cached between calls: a plain
// store is untracked and may change under the same keys. Implicit groups (a prefix with nodes
// under it but no zarr.json, which Zarr v3 no longer has) are not nodes here, as in a session.
import { floeError } from '../errors.ts';
import { compareNodePaths } from '../format/icechunk/node-path.ts';
import { chunkKey, parseChunkKey } from '../format/zarr/chunk-keys.ts';
import type { ArrayMetadata } from '../format/zarr/metadata.ts';
import { joinPath, keyPrefix, metadataKey } from '../format/zarr/paths.ts';
import { checkConcurrency, DEFAULT_CONCURRENCY, mapLimit } from './storage/limiter.ts';
import { zipEvery } from './indexing.ts';
import { nodeFromDocument, nodeMetadata, type ChunkLocation, type NodeInfo, type ReadSource, type StoredChunk } from './read-source.ts';
import { normalizeKey, type AbortOptions, type ZarrStore } from './store.ts';

export class StoreReader implements ReadSource {
  /** Metadata and size lookups in flight at once while listing. */
  private readonly concurrency: number;

  /** `concurrency`: lookups in flight while listing; default 8, a positive integer. */
  constructor(readonly store: ZarrStore, options: { concurrency?: number } = {}) {
    this.concurrency = checkConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY);
  }

  async node(path: string, options?: AbortOptions): Promise<NodeInfo | undefined> {
    const document = await this.store.get(metadataKey(path), options);
    return document && nodeFromDocument(path, document);
  }

  async children(path: string, options?: AbortOptions): Promise<readonly NodeInfo[]> {
    // No listing under an array: its chunk prefixes ('c', or every index with the v2 encoding) are no nodes.
    if ((await this.node(path, options))?.kind === 'array') return [];
    const { prefixes } = await this.store.listDir(keyPrefix(path), options);
    const paths = prefixes.filter(isNodeName).map((name) => joinPath(path, name));
    const nodes = await mapLimit(paths, this.concurrency, (p) => this.node(p, options));
    return nodes.filter((n): n is NodeInfo => n !== undefined).sort((a, b) => compareNodePaths(a.path, b.path));
  }

  async locateChunk(path: string, coords: readonly number[], options?: AbortOptions): Promise<ChunkLocation> {
    const meta = await this.arrayAt(path, options);
    const key = keyPrefix(path) + chunkKey(meta.chunkKeyEncoding, coords);
    const length = await this.sizeOf(key, options);
    return length === undefined ? { kind: 'missing' } : { kind: 'native', object: key, offset: 0, length };
  }

  async *chunks(path: string, options?: AbortOptions): AsyncIterable<StoredChunk> {
    const meta = await this.arrayAt(path, options);
    const prefix = keyPrefix(path);
    const found: { coords: number[]; key: string }[] = [];
    for await (const raw of this.store.listPrefix(prefix, options)) {
      const key = normalizeKey(raw);
      const coords = parseChunkKey(meta.chunkKeyEncoding, key.slice(prefix.length), meta.shape.length);
      if (coords) found.push({ coords, key });
    }
    found.sort((a, b) => compareCoords(a.coords, b.coords));
    const lengths = await mapLimit(found, this.concurrency, ({ key }) => this.sizeOf(key, options));
    for (const [i, { coords, key }] of found.entries()) {
      const length = lengths[i];
      // A chunk erased between the listing and its size lookup is simply no longer stored.
      if (length !== undefined) yield { coords, location: { kind: 'native', object: key, offset: 0, length } };
    }
  }

  private async arrayAt(path: string, options: AbortOptions | undefined): Promise<ArrayMetadata> {
    const node = await this.node(path, options);
    if (!node) throw floeError('NOT_FOUND', `no array at ${path}`, { where: metadataKey(path) });
    const meta = nodeMetadata(node);
    if (meta.nodeType !== 'array') throw floeError('NODE_TYPE_MISMATCH', `${path} is a group, not an array`, { where: metadataKey(path) });
    return meta;
  }

  /** Stores that know sizes (StorageStore: a HEAD) answer without reading the value. */
  private async sizeOf(key: string, options: AbortOptions | undefined): Promise<number | undefined> {
    return this.store.size ? this.store.size(key, options) : (await this.store.get(key, options))?.length;
  }
}

function isNodeName(name: string): boolean {
  return name !== '' && !/^\.+$/.test(name) && !name.startsWith('__');
}

function compareCoords(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return a.length - b.length;
  let order = 0;
  zipEvery(a, b, (x, y) => (order = x - y) === 0);
  return order;
}
