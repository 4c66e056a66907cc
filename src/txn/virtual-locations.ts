// The virtual chunk locations (URLs of objects outside the repository) a session or a whole
// repository references: what a user must keep reachable, and what containers must cover.
import type { AbortOptions } from '../engine/storage/types.ts';
import { mapLimit } from '../engine/storage/limiter.ts';
import { idToString, type ManifestId, type SnapshotId } from '../format/icechunk/ids.ts';
import type { ReadSource } from '../engine/read-source.ts';
import type { RepoObjects } from './objects.ts';

/** Distinct virtual locations in the manifests of every snapshot in `ids`, sorted. */
export async function snapshotsVirtualLocations(
  objects: RepoObjects, ids: Iterable<SnapshotId>, concurrency: number, options?: AbortOptions,
): Promise<string[]> {
  const manifestIds = new Map<string, ManifestId>();
  await mapLimit([...ids], concurrency, async (id) => {
    const { snapshot } = await objects.loadSnapshot(id, options);
    for (const file of snapshot.manifestFiles) manifestIds.set(idToString(file.id), file.id);
  });
  const locations = new Set<string>();
  await mapLimit([...manifestIds.values()], concurrency, async (id) => {
    const manifest = await objects.loadManifest(id, options);
    for (const array of manifest.arrays) for (const ref of array.refs) if (ref.kind === 'virtual') locations.add(ref.location);
  });
  return [...locations].sort();
}

/** Distinct virtual locations of the chunks `source` shows for `arrayPaths` (uncommitted changes included), sorted. */
export async function viewVirtualLocations(
  source: ReadSource, arrayPaths: readonly string[], concurrency: number, options?: AbortOptions,
): Promise<string[]> {
  const locations = new Set<string>();
  await mapLimit(arrayPaths, concurrency, async (path) => {
    for await (const chunk of source.chunks(path, options)) if (chunk.location.kind === 'virtual') locations.add(chunk.location.location);
  });
  return [...locations].sort();
}
