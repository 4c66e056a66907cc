// The snapshot id a resolved version names (branch tip, tag target, or the id itself).
import type { Repository, VersionOptions } from '../../txn/index.ts';

export async function snapshotIdOf(repo: Repository, version: VersionOptions): Promise<string> {
  if ('branch' in version) return repo.lookupBranch(version.branch);
  if ('tag' in version) return repo.lookupTag(version.tag);
  return version.snapshotId;
}
