// The seam between versioning and everything that reads (docs/ARCHITECTURE.md, "The read seam"):
// one small read-only interface over a node tree. A plain Zarr store implements it
// (store-reader.ts), and so does an Icechunk session (src/txn/session-reader.ts); the query
// planner and executor, `floe serve` and the CLI's read commands read through it alone, so none
// of them needs to know how a session resolves nodes and chunks (change sets, manifests, packs).
//
// It lives in src/engine because both implementations sit at or above it: engine may not import
// txn, and txn and query may both import engine.
import type { ReadCaches } from '../cache/read-caches.ts';
import { parseNodeMetadata, type NodeMetadata } from '../format/zarr/metadata.ts';
import type { AbortOptions, ZarrStore } from './store.ts';

/** A node of the tree: an array or an explicit group, with its `zarr.json` as stored. */
export interface NodeInfo {
  /** Absolute and normalised: '/' for the root, '/a/b' below it. */
  readonly path: string;
  readonly kind: 'array' | 'group';
  /** The node's `zarr.json` bytes, verbatim (Floe parses them once per buffer: `nodeMetadata`). */
  readonly document: Uint8Array;
}

/**
 * Where the encoded bytes of one chunk lie. `native` names the object that holds them: a plain
 * store's key, or a repository's chunk object id (base32; several chunks may share one packed
 * object at different offsets). `virtual` is a byte range of an object outside the repository.
 */
export type ChunkLocation =
  | { readonly kind: 'missing' }
  | { readonly kind: 'inline'; readonly bytes: Uint8Array }
  | { readonly kind: 'native'; readonly object: string; readonly offset: number; readonly length: number }
  | {
      readonly kind: 'virtual';
      readonly location: string;
      readonly offset: number;
      readonly length: number;
      /** What the object must still match to be read: its ETag or last-modified time (seconds). */
      readonly checksum: { readonly etag: string } | { readonly lastModified: number } | null;
    };

/** A chunk that holds bytes (never `missing`), by its grid coordinates. */
export interface StoredChunk {
  readonly coords: readonly number[];
  readonly location: Exclude<ChunkLocation, { kind: 'missing' }>;
}

/** A box of chunk-grid coordinates, `to` exclusive, per dimension. */
export interface ChunkBox {
  readonly from: readonly number[];
  readonly to: readonly number[];
}

/** A manifest a query plan loads, as explain() reports it. */
export interface ManifestUse {
  readonly id: string;
  /** The manifest's chunk extents, `to` exclusive. */
  readonly extents: readonly { readonly from: number; readonly to: number }[];
  /**
   * Whether planning fetched it or found it cached (or already being fetched); `loaded` when the
   * source's cache does not say which.
   */
  readonly status: 'fetched' | 'cached' | 'loaded';
  /** Size of the manifest object, when the source knows it. */
  readonly bytes: number | undefined;
}

/** A source's manifest planning: sessions load the manifests a selection needs before its chunks. */
export interface ManifestPlanner {
  /**
   * Loads (through the source's own cache) the manifests of array `path` whose extents intersect
   * any of `boxes`, and describes them. Afterwards chunk reads of those boxes need no manifest fetch.
   */
  planManifests(path: string, boxes: readonly ChunkBox[], options?: AbortOptions): Promise<readonly ManifestUse[]>;
}

/**
 * How a source may use caches: `read-write` for data that cannot change under its keys (a
 * snapshot); `read-only` reads entries others stored but stores none (its own reads might not be
 * the snapshot's); `none` for data that differs from what the keys name (uncommitted changes).
 */
export type CacheUse = 'read-write' | 'read-only' | 'none';

/**
 * A read-only view of a Zarr node tree: resolve a node, list a group's children, locate a chunk,
 * read metadata (a node's `document`), and the bytes behind them through `store`. Paths are
 * normalised absolute node paths ('/', '/a/b'); callers normalise user input first.
 *
 * The optional members are planning hints for the query layer; a source without them is read
 * with no manifest planning and only the caches a query names. Every method takes `{ signal }`
 * last, passed to the reads it makes (ABORTED).
 */
export interface ReadSource {
  /**
   * The tree as a Zarr store, for reading values by key (arrays, the query executor, HTTP). Readers
   * never write through it: for a session it is the session's own store.
   */
  readonly store: ZarrStore;
  /** The node at `path`; undefined when there is none. */
  node(path: string, options?: AbortOptions): Promise<NodeInfo | undefined>;
  /**
   * The nodes directly under `path`, in node-path order; [] under an array. `path` need not be a
   * node itself: the root of a new repository has no zarr.json, yet its children are listed.
   */
  children(path: string, options?: AbortOptions): Promise<readonly NodeInfo[]>;
  /** Where the chunk at grid coordinates `coords` of the array at `path` lies (`NOT_FOUND`: no array). */
  locateChunk(path: string, coords: readonly number[], options?: AbortOptions): Promise<ChunkLocation>;
  /** Every chunk the array at `path` stores, in grid-coordinate order (`NOT_FOUND`: no array). */
  chunks(path: string, options?: AbortOptions): AsyncIterable<StoredChunk>;

  /** Loads the manifests a selection needs before its chunks are read, for explain(). */
  readonly manifests?: ManifestPlanner;
  /** Distinguishes cache entries of different snapshots sharing one ReadCaches. */
  readonly cacheScope?: string;
  /** Default `read-write`. Read when a query starts: a session's follows its state. */
  readonly cacheUse?: CacheUse;
  /** Caches used when the query names none (a repository's own, for sessions). */
  readonly caches?: ReadCaches;
}

/** Structural test (no `instanceof` across layers): whether a value implements {@link ReadSource}. */
export function isReadSource(value: unknown): value is ReadSource {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Record<keyof ReadSource, unknown>>;
  return typeof s.store === 'object' && s.store !== null && typeof s.node === 'function' && typeof s.children === 'function' && typeof s.locateChunk === 'function' && typeof s.chunks === 'function';
}

// Node documents are never mutated once a source hands them out (a change replaces the buffer),
// so a parse can be kept per buffer: `ls`, `show` and key lookups in `serve` parse each once.
const parsed = new WeakMap<Uint8Array, NodeMetadata>();

/** A node from its path and `zarr.json` bytes (parsed once, for its kind). */
export function nodeFromDocument(path: string, document: Uint8Array): NodeInfo {
  const meta = parseNodeMetadata(document, metadataWhere(path));
  parsed.set(document, meta);
  return { path, kind: meta.nodeType, document };
}

const metadataWhere = (path: string): string => `${path === '/' ? '' : path.slice(1) + '/'}zarr.json`;

/** The parsed metadata of a node (kept per document buffer). */
export function nodeMetadata(node: NodeInfo): NodeMetadata {
  let meta = parsed.get(node.document);
  if (!meta) {
    meta = parseNodeMetadata(node.document, metadataWhere(node.path));
    parsed.set(node.document, meta);
  }
  return meta;
}
