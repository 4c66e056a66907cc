// Commit keys (issue 29): the snapshot metadata entry a commit records its key in, and the search
// for it along a branch, used by a commit before its swap (commit.ts) and by
// `Repository.lookupCommit`. Loaded with the first commit or lookup, not at import.
import { floeError } from '../errors.ts';
import { idToString, type SnapshotId } from '../format/icechunk/ids.ts';
import type { RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import { ancestors } from './history.ts';
import { branchTip } from './refs.ts';

/** The snapshot metadata name under which a commit records its key (issue 29); free-form for the reference. */
export const COMMIT_KEY_METADATA = 'floe_commit_key';
/** How many snapshots of a branch, from its tip, a commit and `lookupCommit` search for a commit key. */
export const COMMIT_KEY_HORIZON = 1000;

/** What a search for a commit key found, and how far it looked. */
export interface CommitKeySearch {
  found?: SnapshotInfo;
  /** Snapshots looked at. */
  searched: number;
  /** Whether the search reached the root (the whole history was searched). */
  wholeHistory: boolean;
}

/**
 * The snapshot among the newest `horizon` of `from`'s ancestry (itself included) whose metadata
 * records `key`. Memory only: the repo info lists every snapshot's metadata.
 */
export function findCommitByKey(info: RepoInfo, from: SnapshotId, key: string, horizon = COMMIT_KEY_HORIZON): CommitKeySearch {
  let searched = 0;
  for (const s of ancestors(info, from)) {
    if (searched >= horizon) return { searched, wholeHistory: false };
    searched++;
    if (s.metadata.some((m) => m.name === COMMIT_KEY_METADATA && m.value === key)) return { found: s, searched, wholeHistory: false };
  }
  return { searched, wholeHistory: true };
}

/**
 * What `Repository.lookupCommit` found: the snapshot of the key, or none among the `searched`
 * newest snapshots of the branch; `wholeHistory` false means older ones were not looked at.
 */
export type CommitLookup = { committed: true; snapshotId: string } | { committed: false; searched: number; wholeHistory: boolean };

/** `Repository.lookupCommit` on a repo info already read. */
export function lookupCommitIn(info: RepoInfo, branch: string, commitKey: string, horizon = COMMIT_KEY_HORIZON): CommitLookup {
  if (typeof commitKey !== 'string' || commitKey === '') throw floeError('INVALID_ARGUMENT', 'a commit key must be a non-empty string');
  if (!Number.isSafeInteger(horizon) || horizon < 1) throw floeError('INVALID_ARGUMENT', `horizon must be a positive integer, got ${horizon}`);
  const { found, searched, wholeHistory } = findCommitByKey(info, branchTip(info, branch), commitKey, horizon);
  return found ? { committed: true, snapshotId: idToString(found.id) } : { committed: false, searched, wholeHistory };
}
