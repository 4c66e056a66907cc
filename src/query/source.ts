// What a query reads from: a plain Zarr store, an Icechunk Session, or anything exposing a store
// as `store`. A source may also plan its own chunk lookups: a session answers chunk keys from
// manifests, and with a ManifestPlanner the planner loads only the manifests whose extents meet
// the selection, and shows them in explain(). This interface is the seam sessions implement.
import type { ZarrStore } from '../engine/store.ts';
import type { QueryCaches, ReadCaches } from '../cache/read-caches.ts';
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
   * Whether planning fetched it or found it cached (or already being fetched); `loaded` when the
   * source's cache does not say which.
   */
  readonly status: 'fetched' | 'cached' | 'loaded';
  /** Size of the manifest object, when the source knows it. */
  readonly bytes: number | undefined;
}

export interface ManifestPlanner {
  /**
   * Loads (through the source's own cache) the manifests of array `path` whose extents intersect
   * any of `boxes`, and describes them. Afterwards chunk reads of those boxes need no manifest fetch.
   */
  planManifests(path: string, boxes: readonly ChunkBox[]): Promise<readonly ManifestUse[]>;
}

/**
 * How a source may use caches: `read-write` for data that cannot change under its keys (a
 * snapshot); `read-only` reads entries others stored but stores none (its own reads might not be
 * the snapshot's); `none` for data that differs from what the keys name (uncommitted changes).
 */
export type CacheUse = 'read-write' | 'read-only' | 'none';

export interface QuerySourceObject {
  readonly store: ZarrStore;
  readonly manifests?: ManifestPlanner;
  /** Distinguishes cache entries of different snapshots sharing one ReadCaches. */
  readonly cacheScope?: string;
  /** Default `read-write`. */
  readonly cacheUse?: CacheUse;
  /** Caches used when the query names none (a repository's own, for sessions). */
  readonly caches?: ReadCaches;
}

export type QuerySource = ZarrStore | QuerySourceObject;

export interface ResolvedSource {
  readonly store: ZarrStore;
  readonly manifests: ManifestPlanner | undefined;
  readonly scope: string;
  readonly caches: QueryCaches | undefined;
}

function isStore(source: QuerySource): source is ZarrStore {
  return typeof (source as ZarrStore).get === 'function' && typeof (source as ZarrStore).getRange === 'function';
}

/** The source as one query sees it; a session's cache use follows its state at this moment. */
export function resolveSource(source: QuerySource | Session, caches: ReadCaches | undefined): ResolvedSource {
  if (source instanceof Session) return resolveSource(sessionSource(source), caches);
  if (isStore(source)) return { store: source, manifests: undefined, scope: '', caches };
  const chosen = caches ?? source.caches;
  const use = source.cacheUse ?? 'read-write';
  const usable = !chosen || use === 'none' ? undefined : use === 'read-only' ? chosen.readOnlyView() : chosen;
  return { store: source.store, manifests: source.manifests, scope: source.cacheScope ?? '', caches: usable };
}
