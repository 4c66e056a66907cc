// The snapshot id a resolved version names (branch tip, tag target, or the id itself).
import type { AbortOptions } from '../../engine/storage/types.ts';
import type { Repository, VersionOptions } from '../../txn/index.ts';

export async function snapshotIdOf(repo: Repository, version: VersionOptions, request?: AbortOptions): Promise<string> {
  if ('branch' in version) return repo.lookupBranch(version.branch, request);
  if ('tag' in version) return repo.lookupTag(version.tag, request);
  return version.snapshotId;
}
