// What a query reads from: a plain Zarr store, an Icechunk Session, or anything exposing a store
// as `store`. A source may also plan its own chunk lookups: a session answers chunk keys from
// manifests, and with a ManifestPlanner the planner loads only the manifests whose extents meet
// the selection, and shows them in explain(). This interface is the seam sessions implement.
import type { ZarrStore } from '../engine/store.ts';
import type { ReadCaches } from '../cache/read-caches.ts';
import { Session } from '../txn/session.ts';
import { sessionSource } from './session-source.ts';

/** A box of chunk-grid coordinates, `to` exclusive, per dimension. */
export interface ChunkBox {
  readonly from: readonly number[];
  readonly to: readonly number[];
}

export interface ManifestUse {
  readonly id: string;
  /** The manifest's chunk extents, `to` exclusive. */
  readonly extents: readonly { readonly from: number; readonly to: number }[];
  /**
   * Whether planning fetched it or found it cached; `loaded` when the source's cache does not
   * say which (a session loads through the repository's own manifest cache).
   */
  readonly status: 'fetched' | 'cached' | 'loaded';
  readonly bytes: number | undefined;
}

export interface ManifestPlanner {
  /**
   * Loads (through the source's own cache) the manifests of array `path` whose extents intersect
   * any of `boxes`, and describes them. Afterwards chunk reads of those boxes need no manifest fetch.
   */
  planManifests(path: string, boxes: readonly ChunkBox[]): Promise<readonly ManifestUse[]>;
}

export interface QuerySourceObject {
  readonly store: ZarrStore;
  readonly manifests?: ManifestPlanner;
  /** Distinguishes cache entries of different snapshots sharing one ReadCaches. */
  readonly cacheScope?: string;
  /** False for data that may change under the same keys (a writable session): no caching then. */
  readonly cacheable?: boolean;
  readonly caches?: ReadCaches;
}

export type QuerySource = ZarrStore | QuerySourceObject;

export interface ResolvedSource {
  readonly store: ZarrStore;
  readonly manifests: ManifestPlanner | undefined;
  readonly scope: string;
  readonly caches: ReadCaches | undefined;
}

function isStore(source: QuerySource): source is ZarrStore {
  return typeof (source as ZarrStore).get === 'function' && typeof (source as ZarrStore).getRange === 'function';
}

export function resolveSource(source: QuerySource | Session, caches: ReadCaches | undefined): ResolvedSource {
  if (source instanceof Session) return resolveSource(sessionSource(source), caches);
  if (isStore(source)) return { store: source, manifests: undefined, scope: '', caches };
  const usable = source.cacheable === false ? undefined : (caches ?? source.caches);
  return { store: source.store, manifests: source.manifests, scope: source.cacheScope ?? '', caches: usable };
}
