// An Icechunk session as a query source. The session's store already resolves chunk keys through
// manifests, loading only those whose extents hold the chunk; this adapter adds the planning
// side: before any chunk is read, the manifests whose extents meet the selection's chunk boxes
// are loaded together (bounded concurrency, the repository's single-flight manifest cache), and
// explain() lists them, fetched or cached, with their sizes.
//
// Queries use the repository's read caches by default, keyed by snapshot id. Only a snapshot's
// bytes may be stored under its key: a read-only session stores what it reads; a writable session
// without uncommitted changes reads the same bytes, so it uses what others stored, but stores
// nothing itself (a write during its query could make its reads differ from the snapshot's, and
// a change set has no version to detect that); with uncommitted changes it uses no cache at all.
import { mapLimit } from '../engine/concurrency.ts';
import { idToString } from '../format/icechunk/ids.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import { normalizePath } from '../format/zarr/paths.ts';
import type { Session } from '../txn/session.ts';
import type { CacheUse, ChunkBox, ManifestUse, QuerySourceObject } from './source.ts';

const MANIFEST_CONCURRENCY = 8;

export function sessionSource(session: Session): QuerySourceObject {
  return {
    store: session.store,
    cacheScope: `${session.snapshotId}/`,
    cacheUse: cacheUseOf(session),
    caches: session.objects.readCaches,
    manifests: {
      async planManifests(path: string, boxes: readonly ChunkBox[]): Promise<readonly ManifestUse[]> {
        const node = session.view().nodeAt(normalizePath(path));
        const data = node?.base?.nodeData;
        if (!data || data.kind !== 'array') return []; // a new array: its chunks live in the change set
        const wanted = data.manifests.filter((ref) => boxes.some((b) => intersects(ref.extents, b)));
        return mapLimit(wanted, MANIFEST_CONCURRENCY, async (ref) => {
          const { status, bytes } = await session.objects.loadManifestReporting(ref.objectId);
          return { id: idToString(ref.objectId), extents: ref.extents.map((e) => ({ from: e.from, to: e.to })), status, bytes };
        });
      },
    },
  };
}

function cacheUseOf(session: Session): CacheUse {
  if (session.readOnly) return 'read-write';
  return session.hasUncommittedChanges ? 'none' : 'read-only';
}

function intersects(extents: readonly ChunkIndexRange[], box: ChunkBox): boolean {
  return extents.length === box.from.length && extents.every((e, d) => e.from < box.to[d]! && box.from[d]! < e.to);
}
