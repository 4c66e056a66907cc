// What a query reads from: a plain Zarr store, or anything exposing one as `store` (an Icechunk
// session). A source may also plan its own chunk lookups: a session answers chunk keys from
// manifests, and with a ManifestPlanner the planner loads only the manifests whose extents meet
// the selection, and shows them in explain(). This interface is the seam sessions implement.
import type { ZarrStore } from '../engine/store.ts';
import type { ReadCaches } from '../cache/read-caches.ts';

/** A box of chunk-grid coordinates, `to` exclusive, per dimension. */
export interface ChunkBox {
  readonly from: readonly number[];
  readonly to: readonly number[];
}

export interface ManifestUse {
  readonly id: string;
  /** The manifest's chunk extents, `to` exclusive. */
  readonly extents: readonly { readonly from: number; readonly to: number }[];
  /** Whether loading it needs a fetch, or it is in memory already. */
  readonly status: 'fetch' | 'cached';
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

export function resolveSource(source: QuerySource, caches: ReadCaches | undefined): ResolvedSource {
  if (isStore(source)) return { store: source, manifests: undefined, scope: '', caches };
  return { store: source.store, manifests: source.manifests, scope: source.cacheScope ?? '', caches: caches ?? source.caches };
}
