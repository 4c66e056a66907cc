// What a query reads from: a plain Zarr store, or any ReadSource (src/engine/read-source.ts), the
// read seam that a session implements. The query layer knows nothing of sessions: it reads bytes
// through the source's store, and takes its planning hints (a ManifestPlanner, the cache scope and
// use, default caches) from the source as they are when the query starts.
import { floeError } from '../errors.ts';
import type { QueryCaches, ReadCaches } from '../cache/read-caches.ts';
import { isReadSource, type ManifestPlanner, type ReadSource } from '../engine/read-source.ts';
import type { ZarrStore } from '../engine/store.ts';

export type { CacheUse, ChunkBox, ManifestPlanner, ManifestUse, ReadSource } from '../engine/read-source.ts';

export type QuerySource = ZarrStore | ReadSource;

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
export function resolveSource(source: QuerySource, caches: ReadCaches | undefined): ResolvedSource {
  if (isStore(source)) return { store: source, manifests: undefined, scope: '', caches };
  if (!isReadSource(source)) throw floeError('INVALID_ARGUMENT', 'a query reads from a Zarr store or a session (a ReadSource: store, node, children, locateChunk, chunks)');
  const chosen = caches ?? source.caches;
  const use = source.cacheUse ?? 'read-write';
  const usable = !chosen || use === 'none' ? undefined : use === 'read-only' ? chosen.readOnlyView() : chosen;
  return { store: source.store, manifests: source.manifests, scope: source.cacheScope ?? '', caches: usable };
}
