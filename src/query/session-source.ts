// An Icechunk session as a query source. The session's store already resolves chunk keys through
// manifests, loading only those whose extents hold the chunk; this adapter adds the planning
// side: before any chunk is read, the manifests whose extents meet the selection's chunk boxes
// are loaded together (bounded concurrency, the repository's single-flight manifest cache), and
// explain() lists them. Readonly sessions read an immutable snapshot, so their chunk bytes are
// cacheable under the snapshot id; writable sessions are not cached (their chunks can change).
import { mapLimit } from '../engine/concurrency.ts';
import { idToString } from '../format/icechunk/ids.ts';
import type { ChunkIndexRange } from '../format/icechunk/snapshot.ts';
import { normalizePath } from '../format/zarr/paths.ts';
import type { Session } from '../txn/session.ts';
import type { ChunkBox, ManifestUse, QuerySourceObject } from './source.ts';

const MANIFEST_CONCURRENCY = 8;

export function sessionSource(session: Session): QuerySourceObject {
  return {
    store: session.store,
    cacheScope: `${session.snapshotId}/`,
    cacheable: session.readOnly,
    manifests: {
      async planManifests(path: string, boxes: readonly ChunkBox[]): Promise<readonly ManifestUse[]> {
        const node = session.view().nodeAt(normalizePath(path));
        const data = node?.base?.nodeData;
        if (!data || data.kind !== 'array') return []; // a new array: its chunks live in the change set
        const wanted = data.manifests.filter((ref) => boxes.some((b) => intersects(ref.extents, b)));
        await mapLimit(wanted, MANIFEST_CONCURRENCY, (ref) => session.objects.loadManifest(ref.objectId));
        return wanted.map((ref) => ({
          id: idToString(ref.objectId),
          extents: ref.extents.map((e) => ({ from: e.from, to: e.to })),
          status: 'loaded' as const,
          bytes: undefined,
        }));
      },
    },
  };
}

function intersects(extents: readonly ChunkIndexRange[], box: ChunkBox): boolean {
  return extents.length === box.from.length && extents.every((e, d) => e.from < box.to[d]! && box.from[d]! < e.to);
}
