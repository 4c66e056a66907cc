// Spec-1 repositories (refs under `refs/`, config in `config.yaml`, parents inside snapshots)
// presented as the spec-2 RepoInfo model, so sessions and history never branch on the version.
// Floe opens them read-only.
import { isFloeError } from '../errors.ts';
import type { AbortOptions, ObjectStorage } from '../engine/storage/types.ts';
import { idToString, type SnapshotId } from '../format/icechunk/ids.ts';
import { parseV1RefKey, PREFIXES, V1_CONFIG_KEY, v1BranchKey, v1TagKey } from '../format/icechunk/keys.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { RefEntry, RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import { decodeV1Ref } from '../format/icechunk/spec1.ts';
import type { RepoObjects } from './objects.ts';

export async function isSpec1Repository(storage: ObjectStorage, options?: AbortOptions): Promise<boolean> {
  if (await storage.head(V1_CONFIG_KEY, options)) return true;
  try {
    for await (const _ of storage.list(PREFIXES.refs, options)) return true;
  } catch (err) {
    // A storage that cannot list (plain HTTP) holds no spec-1 repository it could open anyway.
    if (isFloeError(err, 'UNSUPPORTED')) return false;
    throw err;
  }
  return false;
}

export async function readSpec1Config(storage: ObjectStorage, options?: AbortOptions): Promise<MetadataValue> {
  const got = await storage.get(V1_CONFIG_KEY, undefined, options);
  if (!got) return null;
  const { decodeV1Config } = await import('../format/icechunk/spec1-config.ts');
  return decodeV1Config(got.bytes, V1_CONFIG_KEY);
}

export async function readSpec1RepoInfo(storage: ObjectStorage, objects: RepoObjects, options?: AbortOptions): Promise<RepoInfo> {
  const branches: RefEntry[] = [];
  const tags: RefEntry[] = [];
  const deletedTags: string[] = [];
  for await (const object of storage.list(PREFIXES.refs, options)) {
    const ref = parseV1RefKey(object.key);
    if (!ref) continue;
    if (ref.kind === 'deleted-tag') {
      deletedTags.push(ref.name);
      continue;
    }
    const key = ref.kind === 'branch' ? v1BranchKey(ref.name) : v1TagKey(ref.name);
    const got = await storage.get(key, undefined, options);
    if (!got) continue;
    (ref.kind === 'branch' ? branches : tags).push({ name: ref.name, snapshotId: decodeV1Ref(got.bytes, key) });
  }
  // Tags that were deleted keep their ref.json next to the marker: they are not live tags.
  const liveTags = tags.filter((t) => !deletedTags.includes(t.name));
  const snapshots = new Map<string, SnapshotInfo>();
  const pending: SnapshotId[] = [...branches, ...liveTags].map((r) => r.snapshotId);
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (snapshots.has(idToString(id))) continue;
    const { snapshot } = await objects.loadSnapshot(id, options);
    snapshots.set(idToString(id), { id, parentId: snapshot.parentId, flushedAt: snapshot.flushedAt, message: snapshot.message, metadata: snapshot.metadata });
    if (snapshot.parentId) pending.push(snapshot.parentId);
  }
  return {
    specVersion: 1,
    repoSpecVersion: 1,
    tags: liveTags,
    branches,
    deletedTags,
    snapshots: [...snapshots.values()],
    status: { availability: 'read-only', setAt: 0, limitedAvailabilityReason: 'spec-1 repositories are read-only in Floe' },
    metadata: [],
    latestUpdates: [],
    repoBeforeUpdates: null,
    config: null,
    enabledFeatureFlags: null,
    disabledFeatureFlags: null,
  };
}
