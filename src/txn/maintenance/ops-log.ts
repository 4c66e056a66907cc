// The repository ops log: every update ever applied to the repo info file, newest first. The
// current file holds the latest `numUpdatesPerRepoInfoFile` entries; older ones live in backups
// under `overwritten/`. Two links lead back in time:
//  - an entry's `backup_path` names the file as that update left it (its newest entry is that
//    update, followed by up to a file's worth of older ones), and
//  - `repo_before_updates` names the backup of the file the overflowing update replaced.
// The walk prefers the oldest entry's backup (it jumps a whole file back per read) and falls back
// to `repo_before_updates`; entries are emitted only when strictly older than the last one
// emitted (updated_at strictly increases along the log), so overlapping files never repeat one.
import { floeError } from '../../errors.ts';
import type { AbortOptions, ObjectStorage } from '../../engine/storage/types.ts';
import { idToString } from '../../format/icechunk/ids.ts';
import { PREFIXES } from '../../format/icechunk/keys.ts';
import { decodeRepoInfo, type OpsLogEntry, type RepoInfo, type RepoUpdate } from '../../format/icechunk/repo-info.ts';

/** Backups are recorded by name relative to `overwritten/` (the reference's layout). */
export const backupKey = (name: string): string => PREFIXES.overwritten + name;

/** An update as the public API shows it: snapshot ids as base32 strings. */
export type PublicUpdate = StringIds<RepoUpdate>;
type StringIds<U> = U extends unknown ? { [K in keyof U]: U[K] extends Uint8Array ? string : U[K] } : never;

/**
 * One update applied to the repository (a commit, a branch or tag change, ...), as listed by
 * {@link Repository.opsLog}, newest first.
 */
export interface OpsLogItem {
  update: PublicUpdate;
  updatedAt: Date;
  /** Name under `overwritten/` of the repo file as this update left it; null for the newest. */
  backupPath: string | null;
}

export function toPublicItem(entry: OpsLogEntry): OpsLogItem {
  const update = Object.fromEntries(
    Object.entries(entry.update).map(([k, v]) => [k, v instanceof Uint8Array ? idToString(v as Parameters<typeof idToString>[0]) : v]),
  ) as PublicUpdate;
  return { update, updatedAt: new Date(Math.floor(entry.updatedAt / 1000)), backupPath: entry.backupPath };
}

/** One repo info file visited by the walk: the current one (key `repo`) or a backup. */
export interface VisitedFile {
  key: string;
  info: RepoInfo;
}

/**
 * Walks the log from `current` back through backups, yielding raw entries newest first.
 * `onFile` sees every file read (GC uses it to learn which backups the log still needs).
 * `maxFiles` bounds the walk against a damaged chain.
 */
export async function* walkOpsLog(
  storage: ObjectStorage,
  current: RepoInfo,
  onFile: (file: VisitedFile) => void = () => {},
  maxFiles = 1_000_000,
  options?: AbortOptions,
): AsyncGenerator<OpsLogEntry> {
  const visited = new Set<string>();
  let file: VisitedFile | undefined = { key: 'repo', info: current };
  let lastEmitted = Number.POSITIVE_INFINITY;
  while (file) {
    onFile(file);
    let emitted = 0;
    for (const entry of file.info.latestUpdates) {
      if (entry.updatedAt >= lastEmitted) continue;
      lastEmitted = entry.updatedAt;
      emitted++;
      yield entry;
    }
    const next = nextFileName(file.info, visited, emitted > 0 || file.key === 'repo');
    if (next === undefined) return;
    if (visited.size >= maxFiles) throw floeError('CORRUPT_OBJECT', `the ops log chain is longer than ${maxFiles} files; it may be damaged`, { where: file.key });
    visited.add(next);
    file = { key: backupKey(next), info: await readBackup(storage, backupKey(next), options) };
  }
}

/** The next backup to read, or undefined when the log is complete. */
function nextFileName(info: RepoInfo, visited: ReadonlySet<string>, madeProgress: boolean): string | undefined {
  const oldest = info.latestUpdates[info.latestUpdates.length - 1];
  // The oldest entry's backup holds that entry and up to a file of older ones: a big jump back.
  // If it yields nothing new (a file of one entry), `repo_before_updates` is the way on.
  const candidates = [madeProgress ? oldest?.backupPath : null, info.repoBeforeUpdates];
  for (const name of candidates) if (name && !visited.has(name)) return name;
  return undefined;
}

async function readBackup(storage: ObjectStorage, key: string, options: AbortOptions | undefined): Promise<RepoInfo> {
  const got = await storage.get(key, undefined, options);
  if (!got) {
    throw floeError('NOT_FOUND', 'a repo info backup the ops log points at is missing; older history cannot be read', { where: key });
  }
  return decodeRepoInfo(got.bytes, key);
}

/** Every update, newest first, as public items. */
export async function* opsLog(storage: ObjectStorage, current: RepoInfo, options?: AbortOptions): AsyncGenerator<OpsLogItem> {
  for await (const entry of walkOpsLog(storage, current, undefined, undefined, options)) yield toPublicItem(entry);
}
