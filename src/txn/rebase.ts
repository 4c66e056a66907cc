// Rebase: move a session's changes from the snapshot it started on to the branch's current tip.
// Every commit made since is replayed in order, oldest first: a solver compares that commit's
// transaction log with our changes and returns patched changes (or the conflicts), which then
// apply on top of that commit. Nothing changes unless every step succeeds.
//
// A rebase after a lost commit round gets the repo info that showed the new tip (`info`) instead
// of reading it again, and reads each commit's transaction log and snapshot together, the next
// commit's while it solves this one; a commit's retry has usually loaded them already during its
// wait (commit.ts). All are immutable objects, cached by id.
import { floeError } from '../errors.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idsEqual, idToString, type SnapshotId } from '../format/icechunk/ids.ts';
import type { RepoInfo } from '../format/icechunk/repo-info.ts';
import type { TransactionLog } from '../format/icechunk/transaction-log.ts';
import type { ChangeSet } from './change-set.ts';
import { commitsSince } from './commit.ts';
import { ConflictError } from './conflicts/conflict-error.ts';
import type { ConflictSolver } from './conflicts/solver.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { branchTip } from './refs.ts';
import type { RepoInfoStore } from './repo-info-store.ts';

export interface RebaseInput {
  objects: RepoObjects;
  repoInfo: RepoInfoStore;
  branch: string;
  base: LoadedSnapshot;
  changes: ChangeSet;
  /** Rebase onto this snapshot (a descendant of `base` on the branch); default: the branch tip now. */
  onto?: SnapshotId;
  /**
   * The repo info to take `onto`'s history from, when the caller has just read it (a commit's
   * lost round); default: read it now. It must hold `onto` (or, without `onto`, the branch).
   */
  info?: RepoInfo | undefined;
  /** Its signal cancels the rebase's reads (ABORTED); the session is then unchanged. */
  request?: AbortOptions | undefined;
}

export interface RebaseResult {
  tip: LoadedSnapshot;
  changes: ChangeSet;
  /** Commits replayed over (0 when the branch had not moved). */
  replayed: number;
}

export async function rebaseChanges(input: RebaseInput, solver: ConflictSolver): Promise<RebaseResult> {
  const { objects, base, request } = input;
  const info = input.info ?? (await input.repoInfo.read(request)).info;
  const tipId = input.onto ?? branchTip(info, input.branch);
  if (idsEqual(tipId, base.snapshot.id)) return { tip: base, changes: input.changes, replayed: 0 };
  const commits = commitsSince(info, base.snapshot.id, tipId);
  if (!commits) {
    throw floeError(
      'CONFLICT',
      `cannot rebase onto ${idToString(tipId)}: this session's snapshot ${idToString(base.snapshot.id)} is not among its ancestors (was the branch reset?); start a new session`,
      { where: input.branch, details: { kind: 'not-an-ancestor', branch: input.branch, snapshotId: idToString(base.snapshot.id), tip: idToString(tipId) } },
    );
  }
  let ours = input.changes.clone();
  let ourBase = base;
  let ahead: Promise<LoadedCommit> | undefined;
  try {
    for (const [i, id] of commits.entries()) {
      const loading = ahead ?? loadCommit(objects, id, request);
      const following = commits[i + 1];
      ahead = following ? loadCommit(objects, following, request) : undefined;
      ahead?.catch(() => {}); // its error is reported when its turn comes
      const [theirLog, theirs] = await loading;
      if (!theirLog) throw floeError('NOT_FOUND', `cannot rebase over snapshot ${idToString(id)}: its transaction log is missing`, { where: idToString(id) });
      const resolution = await solver.solve({ theirLog, theirs, ourBase, ours });
      if (resolution.kind === 'unsolvable') {
        throw new ConflictError(resolution.conflicts, `cannot rebase branch '${input.branch}' over commit ${idToString(id)}`);
      }
      ours = resolution.changes;
      fitToBase(ours, theirs);
      ourBase = theirs;
    }
  } finally {
    await ahead?.catch(() => {}); // a failed rebase leaves no read running
  }
  return { tip: ourBase, changes: ours, replayed: commits.length };
}

type LoadedCommit = [TransactionLog | undefined, LoadedSnapshot];

/** A commit's transaction log and snapshot, read together. */
function loadCommit(objects: RepoObjects, id: SnapshotId, request: AbortOptions | undefined): Promise<LoadedCommit> {
  return Promise.all([objects.loadTransactionLog(id, request), objects.loadSnapshot(id, request)]);
}

/**
 * Drops records about base nodes the new base no longer has (deleted on both sides, or settled
 * in their favour) and refreshes the base paths deletions remember, so the change set refers
 * only to nodes of its new base.
 */
function fitToBase(changes: ChangeSet, base: LoadedSnapshot): void {
  const paths = new Map(base.snapshot.nodes.map((n) => [idToString(n.id), n.path]));
  for (const [key, d] of [...changes.deletedNodes]) {
    const path = paths.get(key);
    if (path === undefined) changes.undoDelete(d.id);
    else if (path !== d.path) changes.rebasePathOfDeleted(d.id, path);
  }
  for (const [key, u] of [...changes.updatedNodes]) if (!paths.has(key)) changes.undoUpdate(u.id);
  for (const [key, m] of [...changes.movedNodes]) if (!paths.has(key)) changes.undoMove(m.id);
  for (const key of [...changes.chunks.keys()]) {
    const id = changes.chunkNodeId(key);
    if (id && !paths.has(key) && !changes.newNodes.has(key)) changes.dropChunkChanges(id);
  }
}
