// GC's mark phase: which objects the repository still needs. Everything is named by its object
// key (built by the format's key functions), so the sweep compares listed keys directly.
//
// Kept snapshots: the ancestry of every branch and tag tip, every root, and every snapshot in the
// repo info list whose object is not older than the grace cutoff (or not visible in the listing
// yet) — a just-committed or flushed snapshot is never dropped — closed under parents, so the
// list GC writes back never has a dangling parent. For each kept snapshot: the object, its
// transaction log, its manifests and the native chunks they reference. Backups: every file the
// ops log still links to.
import { isFloeError } from '../../errors.ts';
import { mapLimit } from '../../engine/storage/limiter.ts';
import type { AbortOptions, ObjectInfo } from '../../engine/storage/types.ts';
import { idToString, type ManifestId, type SnapshotId } from '../../format/icechunk/ids.ts';
import { chunkKey, manifestKey, PREFIXES, snapshotKey, transactionLogKey } from '../../format/icechunk/keys.ts';
import type { RepoInfo } from '../../format/icechunk/repo-info.ts';
import { ancestors } from '../history.ts';
import type { RepoObjects } from '../objects.ts';
import { backupKey, walkOpsLog } from './ops-log.ts';

/** Object keys the repository needs, by kind. Grows monotonically during a GC run. */
export interface LiveSet {
  snapshots: Set<string>;
  transactionLogs: Set<string>;
  manifests: Set<string>;
  chunks: Set<string>;
  backups: Set<string>;
  /** Snapshot ids (base32) whose contents were marked. */
  markedSnapshotIds: Set<string>;
  /** False when the ops-log chain is broken: then no backup is known to be garbage. */
  backupsComplete: boolean;
}

export const emptyLiveSet = (): LiveSet => ({
  snapshots: new Set(), transactionLogs: new Set(), manifests: new Set(), chunks: new Set(), backups: new Set(), markedSnapshotIds: new Set(), backupsComplete: true,
});

/**
 * The snapshots of `info` GC keeps: reachable from refs, roots, and those whose object is at or
 * after `cutoffMs` or not in `listed` (the snapshot objects listed BEFORE `info` was read, so a
 * snapshot committed in between counts as new), all closed under parents.
 */
export function snapshotsToKeep(info: RepoInfo, listed: ReadonlyMap<string, ObjectInfo>, cutoffMs: number): Map<string, SnapshotId> {
  const seeds: SnapshotId[] = [...info.branches, ...info.tags].map((r) => r.snapshotId);
  for (const s of info.snapshots) {
    const object = listed.get(snapshotKey(s.id));
    if (s.parentId === null || !object || object.lastModified.getTime() >= cutoffMs) seeds.push(s.id);
  }
  const keep = new Map<string, SnapshotId>();
  for (const seed of seeds) {
    for (const s of ancestors(info, seed)) {
      const id = idToString(s.id);
      if (keep.has(id)) break; // the rest of this chain is already in
      keep.set(id, s.id);
    }
  }
  return keep;
}

/** Loads each snapshot in `ids` not yet marked and adds it, its log, manifests and chunks to `live`. */
export async function markSnapshots(
  objects: RepoObjects, ids: Iterable<SnapshotId>, live: LiveSet, concurrency: number, options?: AbortOptions,
): Promise<number> {
  const fresh = [...ids].filter((id) => !live.markedSnapshotIds.has(idToString(id)));
  const manifestIds = new Map<string, ManifestId>();
  await mapLimit(fresh, concurrency, async (snapshotId) => {
    const { snapshot } = await objects.loadSnapshot(snapshotId, options);
    live.snapshots.add(snapshotKey(snapshotId));
    live.transactionLogs.add(transactionLogKey(snapshotId));
    for (const file of snapshot.manifestFiles) manifestIds.set(idToString(file.id), file.id);
    // Node manifest refs too: a spec-1 snapshot's file list could in principle omit one.
    for (const node of snapshot.nodes) {
      if (node.nodeData.kind === 'array') for (const m of node.nodeData.manifests) manifestIds.set(idToString(m.objectId), m.objectId);
    }
    live.markedSnapshotIds.add(idToString(snapshotId));
  });
  const unseen = [...manifestIds.values()].filter((m) => !live.manifests.has(manifestKey(m)));
  await mapLimit(unseen, concurrency, async (m) => {
    const manifest = await objects.loadManifest(m, options);
    for (const array of manifest.arrays) for (const ref of array.refs) if (ref.kind === 'native') live.chunks.add(chunkKey(ref.chunkId));
    live.manifests.add(manifestKey(m));
  });
  return fresh.length;
}

/** Adds every backup the ops log of `info` links to (and the files on the way) to `live`. */
export async function markBackups(objects: RepoObjects, info: RepoInfo, live: LiveSet, options?: AbortOptions): Promise<void> {
  const onFile = ({ key, info: file }: { key: string; info: RepoInfo }) => {
    if (key.startsWith(PREFIXES.overwritten)) live.backups.add(key);
    if (file.repoBeforeUpdates) live.backups.add(backupKey(file.repoBeforeUpdates));
    for (const entry of file.latestUpdates) if (entry.backupPath) live.backups.add(backupKey(entry.backupPath));
  };
  try {
    for await (const _entry of walkOpsLog(objects.storage, info, onFile, undefined, options)) {
      // the walk itself reports the files; entries are not needed here
    }
  } catch (err) {
    // A missing link hides which older backups the log needs: keep every backup this run.
    if (!isFloeError(err, 'NOT_FOUND')) throw err;
    live.backupsComplete = false;
  }
}
