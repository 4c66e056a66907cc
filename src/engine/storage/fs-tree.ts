// Listing, deleting and temp-file sweeping of the filesystem backend, loaded with the first call
// that needs them. Every directory is entered through an open descriptor of its parent, opened without
// following a link (fs-dirs.ts), and walked afresh for every call: a directory checked by an
// earlier call may be a link now. Links found inside are skipped (a readdir entry that is a link
// is neither file nor directory); a directory swapped for a link between readdir and opening it
// is INVALID_KEY.
import { readdirSync, unlinkSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { throwIfAborted } from '../abort.ts';
import type { Clock } from './clock.ts';
import {
  baseNameOf, closeDirectory, dirKeyOf, inside, keyInside, openChild, openRoot, removeEmptyDirectories, walkTo, type Directory, type DirectoryWalk,
} from './fs-dirs.ts';
import { fsyncDirectory, infoOf, isErrno, lockPathOf, lstatOrNull, RESERVED_PREFIX } from './fs-files.ts';
import { withFileLock, type FileLockOptions } from './fs-lock.ts';
import { compareKeys } from './memory.ts';
import type { ListDirResult, ObjectInfo } from './types.ts';

/** Every object whose key starts with `prefix`, in key order, after `startAfter`. */
export function* listObjects(root: string, prefix: string, startAfter: string | undefined, signal: AbortSignal | undefined): Generator<ObjectInfo> {
  const walk = walkTo(root, dirKeyOf(prefix), prefix, false);
  if (!walk) return;
  try {
    yield* objectsIn(root, walk.dir, baseNameOf(prefix), startAfter, signal);
  } finally {
    walk.close();
  }
}

/** One level below `prefix` ('' or ending in '/'). */
export function listDirectory(root: string, prefix: string): ListDirResult {
  const walk = walkTo(root, prefix.slice(0, -1), prefix, false);
  if (!walk) return { objects: [], prefixes: [] };
  try {
    const objects: ObjectInfo[] = [];
    const prefixes: string[] = [];
    for (const entry of entries(walk.dir)) {
      const key = keyInside(walk.dir, entry.name);
      if (entry.isFile()) {
        const stats = lstatOrNull(inside(walk.dir, entry.name));
        if (stats?.isFile()) objects.push(infoOf(key, stats));
      } else if (entry.isDirectory() && holdsAnObject(root, walk.dir, entry.name)) {
        prefixes.push(`${key}/`);
      }
    }
    return { objects, prefixes };
  } finally {
    walk.close();
  }
}

/** How deletes take the per-key lock, and whether they fsync the directory. */
export interface DeleteLocking {
  options: FileLockOptions;
  clock: Clock;
  fsync: boolean;
}

/**
 * Deletes `keys` (validated), each under its lock, its directory walked afresh for every key: a
 * directory checked for an earlier key may be a link now (INVALID_KEY, nothing deleted through it).
 */
export async function deleteObjects(root: string, keys: readonly string[], lock: DeleteLocking, signal: AbortSignal | undefined): Promise<void> {
  for (const key of keys) {
    throwIfAborted(signal, key); // keys deleted before the abort stay deleted
    const walk = walkTo(root, dirKeyOf(key), key, false);
    if (!walk) continue;
    try {
      await deleteIn(root, key, walk, lock, signal);
    } finally {
      walk.close();
    }
  }
}

async function deleteIn(root: string, key: string, walk: DirectoryWalk, lock: DeleteLocking, signal: AbortSignal | undefined): Promise<void> {
  const file = inside(walk.dir, baseNameOf(key));
  if (!lstatOrNull(file)) return;
  try {
    // Under the key's lock so a delete cannot slip between a conditional write's check and rename.
    await withFileLock(lockPathOf(file), () => {
      unlinkQuietly(file);
      if (lock.fsync) fsyncDirectory(walk.dir.path);
    }, lock.options, lock.clock, signal, lockPathOf(path.join(root, key)));
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err; // directory removed meanwhile: nothing to delete
  }
  removeEmptyDirectories(walk);
}

/**
 * Removes the backend's temp files and broken locks (`.floe-tmp-*`, `*.stale-*`) last modified
 * before `cutoffMs`, anywhere under the root; returns how many.
 */
export function sweepTempFiles(root: string, cutoffMs: number): number {
  let removed = 0;
  const sweep = (dir: Directory) => {
    for (const entry of readdirQuietly(dir)) {
      if (entry.isDirectory()) {
        inChild(root, dir, entry.name, sweep);
      } else if (entry.name.startsWith(`${RESERVED_PREFIX}tmp-`) || /\.stale-[0-9a-f]+$/.test(entry.name)) {
        const file = inside(dir, entry.name);
        const stats = lstatOrNull(file);
        if (stats && Number(stats.mtimeMs) < cutoffMs && unlinkQuietly(file)) removed += 1;
      }
    }
  };
  const top = openRoot(root);
  if (!top) return 0;
  try {
    sweep(top);
  } finally {
    closeDirectory(top);
  }
  return removed;
}

function readdirQuietly(dir: Directory): Dirent[] {
  try {
    return readdirSync(dir.path, { withFileTypes: true });
  } catch {
    return [];
  }
}

function unlinkQuietly(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Entries of an open directory, in key order, ours (and links, devices...) skipped. */
function entries(dir: Directory): Dirent[] {
  let found: Dirent[];
  try {
    found = readdirSync(dir.path, { withFileTypes: true });
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return [];
    throw err;
  }
  // A directory sorts as its name plus '/', the way its keys sort among the files beside it.
  const sortName = (e: Dirent) => (e.isDirectory() ? `${e.name}/` : e.name);
  return found
    .filter((e) => !e.name.startsWith(RESERVED_PREFIX) && (e.isFile() || e.isDirectory()))
    .sort((a, b) => compareKeys(sortName(a), sortName(b)));
}

/** Objects under `dir` whose names start with `namePrefix`, in key order. */
function* objectsIn(root: string, dir: Directory, namePrefix: string, startAfter: string | undefined, signal: AbortSignal | undefined): Generator<ObjectInfo> {
  throwIfAborted(signal, dir.key); // once per directory: a listing may be long
  for (const entry of entries(dir)) {
    if (!entry.name.startsWith(namePrefix)) continue;
    const key = keyInside(dir, entry.name);
    if (entry.isDirectory()) {
      // Skip a directory whose keys all sort before `startAfter`.
      const inner = `${key}/`;
      if (startAfter !== undefined && compareKeys(inner, startAfter) < 0 && !startAfter.startsWith(inner)) continue;
      const child = openChild(root, dir, entry.name, key, false);
      if (!child) continue; // removed since readdir
      try {
        yield* objectsIn(root, child, '', startAfter, signal);
      } finally {
        closeDirectory(child);
      }
    } else if (startAfter === undefined || compareKeys(key, startAfter) > 0) {
      const stats = lstatOrNull(inside(dir, entry.name));
      if (stats?.isFile()) yield infoOf(key, stats); // may have been deleted since readdir
    }
  }
}

/** Runs `act` on the subdirectory `name` of `dir`, opened without following a link; false when it is gone. */
function inChild<T>(root: string, dir: Directory, name: string, act: (child: Directory) => T): T | false {
  const child = openChild(root, dir, name, keyInside(dir, name), false);
  if (!child) return false;
  try {
    return act(child);
  } finally {
    closeDirectory(child);
  }
}

function holdsAnObject(root: string, dir: Directory, name: string): boolean {
  return inChild(root, dir, name, (child) => entries(child).some((e) => e.isFile() || holdsAnObject(root, child, e.name))) === true;
}
