// Directories under a filesystem storage root, reached without following a symbolic link, for
// the backend (fs.ts) and the threads that read its files (local-file.ts).
//
// Node has no openat, but on Linux a path through /proc/self/fd/<fd> continues from the open
// directory itself, not from its name. So each directory is opened with O_DIRECTORY | O_NOFOLLOW
// relative to its parent, one component at a time from the root, and every later step (open,
// lstat, link, rename, unlink, readdir, rmdir, fsync) acts through that descriptor: a directory
// swapped for a link after the walk changes nothing we touch. Where /proc/self/fd is missing
// (macOS, Windows, a chroot without /proc) each component is lstat-ed just before the act, which
// then uses the plain path: a swap between the two is the residual race docs/security.md states.
//
// Writes, deletes, renames and listings walk afresh every time. Reads (get, head, the chunk-file
// fast path) may start from a cached open directory of this thread: what it holds is a directory
// that was inside the root when opened, never a verdict about a name. See `readInDirectory`.
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, rmdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { symlinkRefused } from './fs-containment.ts';
import { isErrno } from './fs-files.ts';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Whether paths may continue from an open directory here; tests may turn it off to probe the fallback. */
let fdPaths = process.platform === 'linux' && existsSync('/proc/self/fd');

/** @internal Tests: run the lstat fallback (false) or the descriptor walk (true, where available). */
export function useDescriptorPaths(on: boolean): boolean {
  const before = fdPaths;
  fdPaths = on && process.platform === 'linux' && existsSync('/proc/self/fd');
  if (!fdPaths) clearReadCache();
  return before;
}

/** One directory under the root: `path` names it for the calls that act inside it. */
export interface Directory {
  /** Its key ('' for the root, else 'a/b'), for messages and the cache. */
  readonly key: string;
  /** `/proc/self/fd/<fd>` when `fd` is set, else the directory's plain path. */
  readonly path: string;
  readonly fd: number | undefined;
}

/** The path acting on `name` inside `dir` uses. */
export function inside(dir: Directory, name: string): string {
  return `${dir.path}/${name}`;
}

export function closeDirectory(dir: Directory): void {
  if (dir.fd !== undefined) closeSync(dir.fd);
}

/**
 * The root directory (the caller's to trust, links and all): null when it does not exist, unless
 * `create`, which makes it (the root of a new storage appears with its first write).
 */
export function openRoot(root: string, create = false): Directory | null {
  if (create) mkdirSync(root, { recursive: true });
  if (!fdPaths) return existsSync(root) ? { key: '', path: root, fd: undefined } : null;
  try {
    const fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    return { key: '', path: `/proc/self/fd/${fd}`, fd };
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
}

/**
 * The directory `name` inside `parent`, never through a link: null when it is missing (and not
 * `create`d) or is not a directory; INVALID_KEY (naming the link) when it is a symbolic link.
 * `key` is the storage key being served, for the message.
 */
export function openChild(root: string, parent: Directory, name: string, key: string, create: boolean): Directory | null {
  const childKey = keyInside(parent, name);
  const at = inside(parent, name);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!fdPaths) {
      const stats = lstatSync(at, { throwIfNoEntry: false });
      if (stats) return directoryOrNull(stats, root, childKey, key) ? { key: childKey, path: at, fd: undefined } : null;
    } else {
      try {
        const fd = openSync(at, DIR_FLAGS);
        return { key: childKey, path: `/proc/self/fd/${fd}`, fd };
      } catch (err) {
        // O_DIRECTORY | O_NOFOLLOW gives ENOTDIR for a link as for a file: tell them apart.
        if (isErrno(err, 'ENOTDIR', 'ELOOP')) {
          directoryOrNull(lstatSync(at, { throwIfNoEntry: false }), root, childKey, key);
          return null;
        }
        if (!isErrno(err, 'ENOENT')) throw err;
      }
    }
    if (!create || attempt > 0) return null;
    try {
      mkdirSync(at);
    } catch (err) {
      // EEXIST: a concurrent writer made it, so look again at what it is. ENOENT: the parent
      // was removed meanwhile; the caller walks again.
      if (!isErrno(err, 'EEXIST')) return null;
    }
  }
  return null;
}

/** True for a real directory, false for anything else; INVALID_KEY for a link. */
function directoryOrNull(stats: Stats | undefined, root: string, childKey: string, key: string): boolean {
  if (stats?.isSymbolicLink()) throw symlinkRefused(key, childKey, root);
  return stats?.isDirectory() ?? false;
}

/** The directories from the root down to one directory key, all open while the caller acts. */
export class DirectoryWalk {
  constructor(readonly levels: readonly Directory[]) {}

  /** The directory walked to. */
  get dir(): Directory {
    return this.levels[this.levels.length - 1]!;
  }

  close(): void {
    for (const level of this.levels) closeDirectory(level);
  }
}

/**
 * Removes the emptied directories of a walk, deepest first, each by its name in its parent's
 * open directory (object stores have no directories; deleting a last object removes its own).
 */
export function removeEmptyDirectories(walk: DirectoryWalk): void {
  for (let depth = walk.levels.length - 1; depth > 0; depth--) {
    try {
      rmdirSync(inside(walk.levels[depth - 1]!, baseNameOf(walk.levels[depth]!.key)));
    } catch {
      return; // not empty (or already gone, or a link now): stop climbing
    }
  }
}

/** The directory key of a key ('' when it sits directly under the root). */
export function dirKeyOf(key: string): string {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/** The key of `name` inside the directory `dir`. */
export function keyInside(dir: Directory, name: string): string {
  return dir.key === '' ? name : `${dir.key}/${name}`;
}

export function baseNameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * Walks from the root to the directory `dirKey` ('' or 'a/b'), freshly, each component opened
 * (or checked) without following a link and, with `create`, made when missing. Null when a
 * directory on the way is missing or a file; INVALID_KEY at a link. Close the walk when done.
 */
export function walkTo(root: string, dirKey: string, key: string, create: boolean): DirectoryWalk | null {
  const top = openRoot(root, create);
  if (!top) return null;
  const levels: Directory[] = [top];
  try {
    if (dirKey !== '') {
      for (const name of dirKey.split('/')) {
        const child = openChild(root, levels[levels.length - 1]!, name, key, create);
        if (!child) {
          for (const level of levels) closeDirectory(level);
          return null;
        }
        levels.push(child);
      }
    }
  } catch (err) {
    for (const level of levels) closeDirectory(level);
    throw err;
  }
  return new DirectoryWalk(levels);
}

// ---- the read cache ---------------------------------------------------------------------------

/** Open directories kept per thread for reads; past this the oldest opened is closed. */
const MAX_CACHED = 128;
/** `${root}\0${dirKey}` -> an open directory of this thread, oldest first (evicted first). */
const readCache = new Map<string, Directory>();

function clearReadCache(): void {
  for (const dir of readCache.values()) closeDirectory(dir);
  readCache.clear();
}

/** Closes this thread's cached directories of `root` (its storage closed, or a directory looked stale). */
export function forgetCachedDirectories(root: string): void {
  for (const [id, dir] of readCache) {
    if (id.startsWith(`${root}\0`)) {
      closeDirectory(dir);
      readCache.delete(id);
    }
  }
}

/**
 * The cached open directory of `dirKey`, opening (and caching) it and its parents if needed;
 * `cached` is the deepest directory on the way that came from the cache (the one that may be stale).
 */
function cachedDirectory(root: string, dirKey: string, key: string): { dir: Directory | null; cached: Directory | undefined } {
  const id = `${root}\0${dirKey}`;
  const hit = readCache.get(id);
  if (hit) return { dir: hit, cached: hit }; // no reordering on a hit: it costs more than the rare re-walk it saves
  let dir: Directory | null;
  let cached: Directory | undefined;
  if (dirKey === '') dir = openRoot(root);
  else {
    const parent = cachedDirectory(root, dirKeyOf(dirKey), key);
    cached = parent.cached;
    dir = parent.dir && openChild(root, parent.dir, baseNameOf(dirKey), key, false);
  }
  if (!dir) return { dir: null, cached };
  if (readCache.size >= MAX_CACHED) {
    const [oldest, old] = readCache.entries().next().value!;
    readCache.delete(oldest);
    closeDirectory(old);
  }
  readCache.set(id, dir);
  return { dir, cached };
}

/**
 * Runs `act` on the path of `key`'s file inside its directory, reached without following links:
 * on Linux from this thread's cached open directories (a cached directory is one that was inside
 * the root when it was opened; if it was replaced since, a read still looks inside the old
 * one, never through the new name). `act` returns null for "no such file": then, or when a
 * directory on the way is missing, a cached directory may be stale (removed and made again by
 * another process), so it is compared with what the name holds now and, if they differ, the
 * read is retried once from a fresh walk. Without /proc/self/fd, each read walks afresh.
 */
export function readInDirectory<T>(root: string, key: string, act: (file: string) => T | null): T | null {
  const dirKey = dirKeyOf(key);
  const name = baseNameOf(key);
  if (!fdPaths) {
    const walk = walkTo(root, dirKey, key, false);
    if (!walk) return null;
    try {
      return act(inside(walk.dir, name));
    } finally {
      walk.close();
    }
  }
  const { dir, cached } = cachedDirectory(root, dirKey, key);
  const result = dir && act(inside(dir, name));
  if (result !== null || cached === undefined || !isStale(root, cached)) return result;
  forgetCachedDirectories(root);
  const fresh = cachedDirectory(root, dirKey, key).dir;
  return fresh && act(inside(fresh, name));
}

/** Whether an open directory is no longer the one its name holds (removed, replaced, or a link now). */
function isStale(root: string, dir: Directory): boolean {
  if (readCache.get(`${root}\0${dir.key}`) !== dir) return true; // closed since: look again
  const now = lstatSync(path.join(root, dir.key), { throwIfNoEntry: false });
  const open = fstatSync(dir.fd!);
  return !now || now.ino !== open.ino || now.dev !== open.dev;
}

/**
 * Opens `key`'s file for reading through {@link readInDirectory}: null when there is none (or a
 * directory on the way is missing), INVALID_KEY when the name or a directory is a symbolic link.
 */
export function openFileIn(root: string, key: string): number | null {
  return readInDirectory(root, key, (file) => {
    try {
      return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if (isErrno(err, 'ELOOP')) throw symlinkRefused(key, key, root);
      if (isErrno(err, 'ENOENT', 'ENOTDIR')) return null;
      throw err;
    }
  });
}
