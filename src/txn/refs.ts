// Branches, tags and the snapshot list as pure changes of a RepoInfo. Each function checks its
// preconditions against the object it is given (which the CAS loop re-reads on a lost race) and
// returns the new object plus the ops-log entry, or throws a typed error that stops the loop.
import { requireString } from '../format/arguments.ts';
import { floeError, type FloeError } from '../errors.ts';
import { idsEqual, idToString, type SnapshotId } from '../format/icechunk/ids.ts';
import { closestNames, didYouMean } from '../format/did-you-mean.ts';
import { appendSnapshot, historyIndex } from '../format/icechunk/history-index.ts';
import type { RefEntry, RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import type { RepoChange } from './repo-info-store.ts';
import { validateNewRefName } from './ref-names.ts';

export const MAIN_BRANCH = 'main';

/** Feature flags the reference defines (ids and names as it reports them); all default on. */
export const FEATURE_FLAGS = [
  { id: 3, name: 'move_node', defaultEnabled: true },
  { id: 4, name: 'create_tag', defaultEnabled: true },
  { id: 5, name: 'delete_tag', defaultEnabled: true },
] as const;
export type FeatureFlagName = (typeof FEATURE_FLAGS)[number]['name'];

export function isFeatureEnabled(info: RepoInfo, name: FeatureFlagName): boolean {
  const flag = FEATURE_FLAGS.find((f) => f.name === name)!;
  if (info.disabledFeatureFlags?.includes(flag.id)) return false;
  if (info.enabledFeatureFlags?.includes(flag.id)) return true;
  return flag.defaultEnabled;
}

export function requireFeature(info: RepoInfo, name: FeatureFlagName): void {
  if (!isFeatureEnabled(info, name)) {
    throw floeError('UNSUPPORTED', `the feature '${name}' is disabled in this repository; enable it with setFeatureFlag('${name}', true)`);
  }
}

/**
 * The CONFLICT 'branch-moved' a commit (or squash) throws when its branch no longer points at
 * `expected`; `current` is undefined when the branch was deleted. The one place these details are
 * built; `message` replaces the commit wording where the context differs (a squash).
 */
export function branchMovedError(branch: string, expected: SnapshotId, current: SnapshotId | undefined, message?: string): FloeError<'CONFLICT'> {
  const moved = current ? `moved to ${idToString(current)}` : 'was deleted';
  return floeError(
    'CONFLICT',
    message ?? `branch '${branch}' ${moved} since this session started from ${idToString(expected)}; rebase the session onto the new tip or start a new session`,
    { where: branch, details: { kind: 'branch-moved', branch, expectedSnapshotId: idToString(expected), currentSnapshotId: current ? idToString(current) : null } },
  );
}

/** Checks a name about to be created (names already stored are read as they are): see ref-names.ts. */
export function validateRefName(name: string, kind: 'branch' | 'tag'): void {
  validateNewRefName(name, kind);
}

/** The snapshot with this id (a binary search of the history index), or undefined. */
export function findSnapshotInfo(info: RepoInfo, id: SnapshotId): SnapshotInfo | undefined {
  return historyIndex(info.snapshots).find(id);
}

function requireSnapshot(info: RepoInfo, id: SnapshotId): SnapshotInfo {
  const found = findSnapshotInfo(info, id);
  if (!found) throw floeError('NOT_FOUND', `snapshot ${idToString(id)} is not in this repository`, { where: idToString(id) });
  return found;
}

function findRef(refs: readonly RefEntry[], name: string): RefEntry | undefined {
  requireString(name, 'a branch or tag name');
  return refs.find((r) => r.name === name);
}

export function branchTip(info: RepoInfo, branch: string): SnapshotId {
  const ref = findRef(info.branches, branch);
  if (!ref) throw unknownRef('branch', branch, info.branches);
  return ref.snapshotId;
}

export function tagTarget(info: RepoInfo, tag: string): SnapshotId {
  const ref = findRef(info.tags, tag);
  if (!ref) throw unknownRef('tag', tag, info.tags);
  return ref.snapshotId;
}

/** NOT_FOUND for a branch or tag, with the names closest to it ("did you mean"). */
function unknownRef(kind: 'branch' | 'tag', name: string, known: readonly RefEntry[]): FloeError<'NOT_FOUND'> {
  const suggestions = closestNames(name, known.map((r) => r.name));
  const hint = didYouMean(suggestions, (n) => `'${n}'`);
  return floeError('NOT_FOUND', `${kind} '${name}' does not exist${hint ? `; ${hint}` : ''}`, { where: name, details: { suggestions } });
}

const setRef = (refs: readonly RefEntry[], name: string, snapshotId: SnapshotId): RefEntry[] => [
  ...refs.filter((r) => r.name !== name),
  { name, snapshotId },
];

export function createBranch(info: RepoInfo, name: string, snapshotId: SnapshotId): RepoChange {
  validateRefName(name, 'branch');
  if (findRef(info.branches, name)) throw floeError('ALREADY_EXISTS', `branch '${name}' already exists`, { where: name });
  requireSnapshot(info, snapshotId);
  return { info: { ...info, branches: setRef(info.branches, name, snapshotId) }, update: { kind: 'branchCreated', name } };
}

export function deleteBranch(info: RepoInfo, name: string): RepoChange {
  if (name === MAIN_BRANCH) throw floeError('INVALID_ARGUMENT', `the '${MAIN_BRANCH}' branch cannot be deleted`, { where: name });
  const previousSnapId = branchTip(info, name);
  return { info: { ...info, branches: info.branches.filter((r) => r.name !== name) }, update: { kind: 'branchDeleted', name, previousSnapId } };
}

/** Points a branch at any snapshot; with `expectedCurrent`, only if it still points there. */
export function resetBranch(info: RepoInfo, name: string, to: SnapshotId, expectedCurrent?: SnapshotId): RepoChange {
  const previousSnapId = branchTip(info, name);
  if (expectedCurrent && !idsEqual(previousSnapId, expectedCurrent)) throw branchMovedError(name, expectedCurrent, previousSnapId);
  requireSnapshot(info, to);
  return { info: { ...info, branches: setRef(info.branches, name, to) }, update: { kind: 'branchReset', name, previousSnapId } };
}

export function createTag(info: RepoInfo, name: string, snapshotId: SnapshotId): RepoChange {
  validateRefName(name, 'tag');
  requireFeature(info, 'create_tag');
  if (findRef(info.tags, name)) throw floeError('ALREADY_EXISTS', `tag '${name}' already exists; tags are immutable`, { where: name });
  if (info.deletedTags.includes(name)) {
    throw floeError('ALREADY_EXISTS', `tag '${name}' was deleted and a deleted tag's name cannot be reused (spec); choose another name`, { where: name });
  }
  requireSnapshot(info, snapshotId);
  return { info: { ...info, tags: setRef(info.tags, name, snapshotId) }, update: { kind: 'tagCreated', name } };
}

export function deleteTag(info: RepoInfo, name: string): RepoChange {
  requireFeature(info, 'delete_tag');
  const previousSnapId = tagTarget(info, name);
  return {
    info: { ...info, tags: info.tags.filter((r) => r.name !== name), deletedTags: [...info.deletedTags, name] },
    update: { kind: 'tagDeleted', name, previousSnapId },
  };
}

/** Adds a committed snapshot and moves the branch to it, if the branch is still at its parent. */
export function addCommit(info: RepoInfo, branch: string, snapshot: SnapshotInfo): RepoChange {
  const tip = branchTip(info, branch);
  if (!snapshot.parentId || !idsEqual(tip, snapshot.parentId)) throw branchMovedError(branch, snapshot.parentId ?? tip, tip);
  return {
    info: { ...info, snapshots: appendSnapshot(info.snapshots, snapshot), branches: setRef(info.branches, branch, snapshot.id) },
    update: { kind: 'newCommit', branch, newSnapId: snapshot.id },
  };
}

/** Replaces the branch tip `previous` by `snapshot` (whose parent is the tip's parent). */
export function amendCommit(info: RepoInfo, branch: string, previous: SnapshotId, snapshot: SnapshotInfo): RepoChange {
  const tip = branchTip(info, branch);
  if (!idsEqual(tip, previous)) throw branchMovedError(branch, previous, tip);
  return {
    info: { ...info, snapshots: appendSnapshot(info.snapshots, snapshot), branches: setRef(info.branches, branch, snapshot.id) },
    update: { kind: 'commitAmended', branch, previousSnapId: previous, newSnapId: snapshot.id },
  };
}

/** Records a snapshot no branch points at (flush). */
export function addDetachedSnapshot(info: RepoInfo, snapshot: SnapshotInfo): RepoChange {
  if (snapshot.parentId) requireSnapshot(info, snapshot.parentId);
  return { info: { ...info, snapshots: appendSnapshot(info.snapshots, snapshot) }, update: { kind: 'newDetachedSnapshot', newSnapId: snapshot.id } };
}
