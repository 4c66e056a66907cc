// Snapshot expiry: rewrite history so snapshots older than a cutoff are no longer reachable from
// refs, as the reference does for spec-2 repositories. Only the repo info file changes (spec-2
// snapshot files carry no parent), in one compare-and-swap with an `ExpirationRan` ops-log entry:
//  - a snapshot is *expired* when it was flushed before the cutoff and is not a root (roots, the
//    initial snapshot above all, never expire);
//  - expired snapshots are *released* (dropped from the snapshot list) unless a kept ref points at
//    them: tag tips when tags are not deleted, branch tips when branches are not deleted, and the
//    tip of `main` always;
//  - a kept snapshot whose parent was released is re-parented to the root of its ancestry, so a
//    branch's history becomes its non-expired snapshots followed by the root;
//  - with `deleteExpiredTags` / `deleteExpiredBranches`, refs whose tip expired are deleted (never
//    `main`); deleted tag names join `deleted_tags`, as the spec requires of a deleted tag.
// Released snapshots' objects stay in storage until garbage collection.
import { floeError } from '../../errors.ts';
import type { AbortOptions } from '../../engine/storage/types.ts';
import { idToString, INITIAL_SNAPSHOT_ID, type SnapshotId } from '../../format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../../format/icechunk/repo-info.ts';
import { ancestors } from '../history.ts';
import { MAIN_BRANCH } from '../refs.ts';
import type { RepoInfoStore } from '../repo-info-store.ts';

/** Options of {@link Repository.expireSnapshots}; `signal` cancels it before its one compare-and-swap. */
export interface ExpireOptions extends AbortOptions {
  /** Delete branches (other than `main`) whose tip expired. Default false. */
  deleteExpiredBranches?: boolean;
  /** Delete tags whose target expired. Default false. */
  deleteExpiredTags?: boolean;
}

/** What {@link Repository.expireSnapshots} changed in the repository's history. */
export interface ExpireResult {
  /** Snapshots dropped from the repository's history (their objects await GC). */
  releasedSnapshots: string[];
  /** Snapshots that were re-parented onto their history's root. */
  editedSnapshots: string[];
  deletedBranches: string[];
  deletedTags: string[];
}

export interface ExpiryPlan {
  info: RepoInfo;
  result: ExpireResult;
}

/** The expiry of `info` at `olderThanMicros` (microseconds since the epoch), as a pure change. */
export function planExpiry(info: RepoInfo, olderThanMicros: number, options: ExpireOptions = {}): ExpiryPlan {
  const key = idToString;
  const expired = new Set(info.snapshots.filter((s) => s.parentId !== null && s.flushedAt < olderThanMicros).map((s) => key(s.id)));
  const tagTips = new Set(info.tags.map((t) => key(t.snapshotId)));
  const branchTips = new Set(info.branches.map((b) => key(b.snapshotId)));
  const mainTip = info.branches.find((b) => b.name === MAIN_BRANCH)?.snapshotId;
  const protectedTips = new Set<string>();
  if (!options.deleteExpiredTags) for (const t of tagTips) protectedTips.add(t);
  if (!options.deleteExpiredBranches) for (const b of branchTips) protectedTips.add(b);
  if (mainTip) protectedTips.add(key(mainTip));
  const released = new Set([...expired].filter((id) => !protectedTips.has(id)));

  const rootOf = rootsOfRefs(info);
  const edited: string[] = [];
  const snapshots: SnapshotInfo[] = [];
  for (const s of info.snapshots) {
    if (released.has(key(s.id))) continue;
    if (s.parentId && released.has(key(s.parentId))) {
      edited.push(key(s.id));
      snapshots.push({ ...s, parentId: rootOf.get(key(s.id)) ?? INITIAL_SNAPSHOT_ID });
    } else {
      snapshots.push(s);
    }
  }

  const deletedTags = options.deleteExpiredTags ? info.tags.filter((t) => expired.has(key(t.snapshotId))).map((t) => t.name) : [];
  const deletedBranches = options.deleteExpiredBranches
    ? info.branches.filter((b) => b.name !== MAIN_BRANCH && expired.has(key(b.snapshotId))).map((b) => b.name)
    : [];
  const next: RepoInfo = {
    ...info,
    snapshots,
    tags: info.tags.filter((t) => !deletedTags.includes(t.name)),
    branches: info.branches.filter((b) => !deletedBranches.includes(b.name)),
    deletedTags: [...info.deletedTags, ...deletedTags.filter((t) => !info.deletedTags.includes(t))],
  };
  checkRefsResolve(next);
  return {
    info: next,
    result: { releasedSnapshots: [...released].sort(), editedSnapshots: edited.sort(), deletedBranches: deletedBranches.sort(), deletedTags: deletedTags.sort() },
  };
}

/** For every snapshot on a ref's ancestry, the root (parentless snapshot) that ancestry ends in. */
function rootsOfRefs(info: RepoInfo): Map<string, SnapshotId> {
  const rootOf = new Map<string, SnapshotId>();
  for (const ref of [...info.tags, ...info.branches]) {
    const chain = [...ancestors(info, ref.snapshotId)];
    const last = chain[chain.length - 1];
    const root = last && last.parentId === null ? last.id : INITIAL_SNAPSHOT_ID;
    for (const s of chain) if (!rootOf.has(idToString(s.id))) rootOf.set(idToString(s.id), root);
  }
  return rootOf;
}

/** A ref left pointing at a released snapshot would be a bug in the plan: refuse to write it. */
function checkRefsResolve(info: RepoInfo): void {
  const present = new Set(info.snapshots.map((s) => idToString(s.id)));
  for (const ref of [...info.branches, ...info.tags]) {
    if (!present.has(idToString(ref.snapshotId))) {
      throw floeError('CONFLICT', `expiry would leave '${ref.name}' pointing at a released snapshot; nothing was written`, { where: ref.name, details: { kind: 'dangling-ref', ref: ref.name } });
    }
  }
}

/** Runs expiry through the repo-info compare-and-swap (re-planned on every lost race). */
export async function expireSnapshots(store: RepoInfoStore, olderThan: Date, options: ExpireOptions = {}): Promise<ExpireResult> {
  if (!(olderThan instanceof Date) || Number.isNaN(olderThan.getTime())) {
    throw floeError('INVALID_ARGUMENT', 'expireSnapshots needs a valid Date as its cutoff');
  }
  const cutoff = olderThan.getTime() * 1000;
  let result: ExpireResult | undefined;
  await store.update((current) => {
    const plan = planExpiry(current, cutoff, options);
    result = plan.result;
    return { info: plan.info, update: { kind: 'expirationRan' } };
  }, options.signal ? { signal: options.signal } : undefined);
  return result!;
}
