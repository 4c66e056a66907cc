// Squash: replace a contiguous range of a branch's history, `fromSnapshot` (oldest) up to
// `toSnapshot` (newest), by one new snapshot with `toSnapshot`'s contents. The new snapshot's
// parent is `fromSnapshot`'s parent; the branch snapshot just above the range (if any) is
// re-parented onto it, or, when the range ends at the tip, the branch moves to it. Its
// transaction log is the range's logs merged, so sessions based below the range still rebase.
// Concurrency: the squash is re-checked inside the repo-info compare-and-swap. Commits that
// landed on the branch *above* the range meanwhile are kept: the snapshot now just above the
// range is re-parented instead (its contents and log are relative to `toSnapshot`, whose
// contents the squashed snapshot has, so nothing else changes). If the range is no longer on
// the branch (reset, amended, squashed or deleted meanwhile) the squash fails with CONFLICT
// 'branch-moved'; if its snapshots or parent changed (an expiry) with 'history-rewritten'.
// The squashed snapshot keeps `toSnapshot`'s time, so times stay ordered along the ancestry.
// Replaced snapshots stay listed until garbage collection finds them unreachable.
import { floeError, isFloeError } from '../../errors.ts';
import { zipEvery } from '../../engine/indexing.ts';
import type { AbortOptions } from '../../engine/storage/types.ts';
import { idsEqual, idToString, newSnapshotId, parseSnapshotId, type SnapshotId } from '../../format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../../format/icechunk/repo-info.ts';
import type { TransactionLog } from '../../format/icechunk/transaction-log.ts';
import { mergeTransactionLogs } from '../commit.ts';
import { ancestors } from '../history.ts';
import type { RepoObjects } from '../objects.ts';
import { branchMovedError, branchTip } from '../refs.ts';
import type { RepoInfoStore, RepoChange } from '../repo-info-store.ts';

export interface SquashDeps {
  objects: RepoObjects;
  store: RepoInfoStore;
}

/** The part of a branch's ancestry a squash replaces, newest first, plus its neighbours. */
interface SquashRange {
  tip: SnapshotId;
  range: SnapshotInfo[];
  /** The first of `range` (`toSnapshot`) and its last (`fromSnapshot`). */
  newest: SnapshotInfo;
  oldest: SnapshotInfo;
  /** The branch snapshot whose parent is `toSnapshot`; undefined when the range ends at the tip. */
  child: SnapshotInfo | undefined;
  parent: SnapshotId;
}

export function findSquashRange(info: RepoInfo, branch: string, from: SnapshotId, to: SnapshotId): SquashRange {
  const tip = branchTip(info, branch);
  const chain = [...ancestors(info, tip)];
  const toIndex = chain.findIndex((s) => idsEqual(s.id, to));
  const fromIndex = chain.findIndex((s) => idsEqual(s.id, from));
  const newest = chain[toIndex];
  const oldest = chain[fromIndex];
  if (newest === undefined || oldest === undefined) {
    const missing = newest === undefined ? to : from;
    throw floeError('NOT_FOUND', `snapshot ${idToString(missing)} is not in the history of branch '${branch}'`, { where: idToString(missing) });
  }
  if (fromIndex < toIndex) {
    throw floeError('INVALID_ARGUMENT', `fromSnapshot ${idToString(from)} is newer than toSnapshot ${idToString(to)}; pass the oldest snapshot of the range first`);
  }
  const parent = oldest.parentId;
  if (parent === null) throw floeError('INVALID_ARGUMENT', `snapshot ${idToString(from)} is the root of the history; the root cannot be squashed`);
  return { tip, range: chain.slice(toIndex, fromIndex + 1), newest, oldest, child: toIndex > 0 ? chain[toIndex - 1] : undefined, parent };
}

export async function squash(
  deps: SquashDeps, branch: string, fromSnapshot: string, toSnapshot: string, message: string, options?: AbortOptions,
): Promise<string> {
  if (typeof message !== 'string') throw floeError('INVALID_ARGUMENT', 'squash needs a commit message');
  const from = parseSnapshotId(fromSnapshot);
  const to = parseSnapshotId(toSnapshot);
  const { info } = await deps.store.read(options);
  const planned = findSquashRange(info, branch, from, to);
  const { newest } = planned;
  const id = newSnapshotId();
  const { snapshot } = await deps.objects.loadSnapshot(to, options);
  // The transaction log first: like a commit, nothing points at these objects until the swap.
  await deps.objects.writeTransactionLog(await mergedLog(deps.objects, id, planned.range, options), options);
  await deps.objects.writeSnapshot({ ...snapshot, specVersion: 2, id, parentId: null, message, flushedAt: newest.flushedAt, metadata: newest.metadata }, options);
  const squashed: SnapshotInfo = { id, parentId: planned.parent, flushedAt: newest.flushedAt, message, metadata: newest.metadata };
  await deps.store.update((current) => applySquash(current, branch, planned, squashed), options);
  return idToString(id);
}

/**
 * The swap: the range must still be on the branch with the same snapshots and parent; commits
 * added above it since the plan are kept and the one just above the range is re-parented.
 */
export function applySquash(current: RepoInfo, branch: string, planned: SquashRange, squashed: SnapshotInfo): RepoChange {
  const from = planned.oldest.id;
  const to = planned.newest.id;
  let now: SquashRange;
  try {
    now = findSquashRange(current, branch, from, to);
  } catch (err) {
    if (!isFloeError(err, 'NOT_FOUND')) throw err;
    throw rangeLeftBranch(current, branch, planned, from, to);
  }
  const same = now.range.length === planned.range.length && zipEvery(now.range, planned.range, (s, p) => idsEqual(s.id, p.id));
  if (!same || !idsEqual(now.parent, planned.parent)) {
    throw floeError(
      'CONFLICT',
      `the history of branch '${branch}' under ${idToString(from)}..${idToString(to)} was rewritten while squashing (an expiry or another squash changed the range or its parent); nothing was changed: read the branch's ancestry again and squash the range you want`,
      { where: branch, details: { kind: 'history-rewritten', branch } },
    );
  }
  const child = now.child;
  const snapshots = current.snapshots.map((s) => (child && idsEqual(s.id, child.id) ? { ...s, parentId: squashed.id } : s));
  snapshots.push(squashed);
  if (child) {
    return { info: { ...current, snapshots }, update: { kind: 'newDetachedSnapshot', newSnapId: squashed.id } };
  }
  const branches = current.branches.map((b) => (b.name === branch ? { name: branch, snapshotId: squashed.id } : b));
  return { info: { ...current, snapshots, branches }, update: { kind: 'commitAmended', branch, previousSnapId: now.tip, newSnapId: squashed.id } };
}

function rangeLeftBranch(current: RepoInfo, branch: string, planned: SquashRange, from: SnapshotId, to: SnapshotId) {
  const tip = current.branches.find((b) => b.name === branch)?.snapshotId;
  const where = tip ? `it now points at ${idToString(tip)}, whose history does not contain it` : 'it was deleted';
  return branchMovedError(
    branch,
    planned.tip,
    tip,
    `branch '${branch}' was reset, amended or squashed while squashing ${idToString(from)}..${idToString(to)}: ${where}; nothing was changed. Read the branch's ancestry again and squash the range you want from it`,
  );
}

/** The range's transaction logs (oldest first) merged into one under the new id. */
async function mergedLog(
  objects: RepoObjects, id: SnapshotId, rangeNewestFirst: readonly SnapshotInfo[], options: AbortOptions | undefined,
): Promise<TransactionLog> {
  let merged: TransactionLog | undefined;
  for (const s of [...rangeNewestFirst].reverse()) {
    const log = await objects.loadTransactionLog(s.id, options);
    if (!log) {
      throw floeError('NOT_FOUND', `the transaction log of snapshot ${idToString(s.id)} is missing; a squash needs the log of every snapshot it replaces`, { where: idToString(s.id) });
    }
    merged = merged ? mergeTransactionLogs(id, merged, log) : { ...log, id, specVersion: 2 };
  }
  return merged!;
}
