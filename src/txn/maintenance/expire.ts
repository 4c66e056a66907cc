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
import { historyIndex, type HistoryIndex } from '../../format/icechunk/history-index.ts';
import { idToString, INITIAL_SNAPSHOT_ID, type SnapshotId } from '../../format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../../format/icechunk/repo-info.ts';
import { MAIN_BRANCH } from '../refs.ts';
import type { RepoInfoStore } from '../repo-info-store.ts';

/** Options of {@link Repository.expireSnapshots}; `signal` cancels it before its one compare-and-swap. */
export interface ExpireOptions extends AbortOptions {
  /** Delete branches (other than `main`) whose tip expired. Default false. */
  deleteExpiredBranches?: boolean;
  /** Delete tags whose target expired. Default false. */
  deleteExpiredTags?: boolean;
  /** Only say what would change: the result of an expiry now, with nothing written. Default false. */
  dryRun?: boolean;
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

/**
 * The expiry of `info` at `olderThanMicros` (microseconds since the epoch), as a pure change.
 * Snapshots are keyed by their position in the history index (the first of equal ids), so the
 * plan is one pass over the list plus one walk per ref that stops where an earlier walk went.
 */
export function planExpiry(info: RepoInfo, olderThanMicros: number, options: ExpireOptions = {}): ExpiryPlan {
  const index = historyIndex(info.snapshots);
  const key = (id: SnapshotId) => index.positionOf(id);
  const expired = new Set(info.snapshots.filter((s) => s.parentId !== null && s.flushedAt < olderThanMicros).map((s) => key(s.id)));
  const tagTips = new Set(info.tags.map((t) => key(t.snapshotId)));
  const branchTips = new Set(info.branches.map((b) => key(b.snapshotId)));
  const mainTip = info.branches.find((b) => b.name === MAIN_BRANCH)?.snapshotId;
  const protectedTips = new Set<number>();
  if (!options.deleteExpiredTags) for (const t of tagTips) protectedTips.add(t);
  if (!options.deleteExpiredBranches) for (const b of branchTips) protectedTips.add(b);
  if (mainTip) protectedTips.add(key(mainTip));
  const released = new Set([...expired].filter((id) => !protectedTips.has(id)));

  const rootOf = rootsOfRefs(info, index);
  const edited: string[] = [];
  const snapshots: SnapshotInfo[] = [];
  for (const s of info.snapshots) {
    if (released.has(key(s.id))) continue;
    if (s.parentId && released.has(key(s.parentId))) {
      edited.push(idToString(s.id));
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
  const releasedIds = [...released].map((position) => idToString(index.at(position).id));
  return {
    info: next,
    result: { releasedSnapshots: releasedIds.sort(), editedSnapshots: edited.sort(), deletedBranches: deletedBranches.sort(), deletedTags: deletedTags.sort() },
  };
}

/**
 * For every snapshot on a ref's ancestry (by index position), the root (parentless snapshot)
 * that ancestry ends in. A walk stops at a snapshot an earlier walk reached: from there on it
 * would follow the same parent links to the same end, so each snapshot is visited once.
 */
function rootsOfRefs(info: RepoInfo, index: HistoryIndex<SnapshotInfo>): Map<number, SnapshotId> {
  const rootOf = new Map<number, SnapshotId>();
  for (const ref of [...info.tags, ...info.branches]) {
    const fresh: number[] = [];
    let root: SnapshotId | undefined;
    for (const position of index.ancestryPositions(index.positionOf(ref.snapshotId))) {
      root = rootOf.get(position);
      if (root) break;
      fresh.push(position);
    }
    const last = fresh.at(-1);
    if (!root) root = last !== undefined && index.at(last).parentId === null ? index.at(last).id : INITIAL_SNAPSHOT_ID;
    for (const position of fresh) rootOf.set(position, root);
  }
  return rootOf;
}

/** A ref left pointing at a released snapshot would be a bug in the plan: refuse to write it. */
function checkRefsResolve(info: RepoInfo): void {
  const index = historyIndex(info.snapshots);
  for (const ref of [...info.branches, ...info.tags]) {
    if (index.positionOf(ref.snapshotId) < 0) {
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
  if (options.dryRun) return planExpiry((await store.read(options.signal ? { signal: options.signal } : undefined)).info, cutoff, options).result;
  let result: ExpireResult | undefined;
  await store.update((current) => {
    const plan = planExpiry(current, cutoff, options);
    result = plan.result;
    return { info: plan.info, update: { kind: 'expirationRan' } };
  }, options.signal ? { signal: options.signal } : undefined);
  return result!;
}
