// Keeps the filesystem backend inside its root when the tree under the root holds symbolic
// links. Keys are already safe as text (keys.ts: no '..', absolute paths, empty segments, NUL,
// backslashes); a symlink is the remaining way out: `chunks/` linked to /elsewhere would make a
// commit write chunk files outside the repository, and a linked file would be read as an object.
//
// Every directory a key passes through is checked with lstat, once: a directory found to be a
// real directory (or created by this backend) is remembered, so the hot path costs one Set
// lookup per operation, not a syscall per component. The final component is opened with
// O_NOFOLLOW. A link found is INVALID_KEY (the key would resolve outside the root), never
// followed. Node has no openat, so a directory swapped for a link after its check is not caught:
// docs/storage.md states that race in its threat model.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { floeError, isFloeError, type FloeError } from '../../errors.ts';
import { isErrno } from './fs-files.ts';

/** Verified directories kept per storage; past this the set starts over (re-checking costs lstats only). */
const MAX_VERIFIED = 65_536;

export function symlinkRefused(key: string, link: string, root: string): FloeError<'INVALID_KEY'> {
  return floeError(
    'INVALID_KEY',
    `storage key ${JSON.stringify(key)} passes through ${JSON.stringify(link)}, a symbolic link inside the storage root ${root}; ` +
      'the filesystem backend never follows links, which could lead outside its root. Replace the link with a real directory or file, or open the storage at the link target',
    { where: key },
  );
}

/** The directories under one root that are known to be real directories, not symlinks. */
export class DirectoryGuard {
  private readonly verified = new Set<string>();

  constructor(private readonly root: string) {}

  /**
   * Checks each existing directory on the way to `key` (a validated key) and, with `create`,
   * makes the missing ones. Throws INVALID_KEY at a symlink. Returns false when a directory on
   * the way is missing (a read finds nothing) or is a file (the caller's own checks report it).
   */
  checkParents(key: string, create: boolean): boolean {
    const slash = key.lastIndexOf('/');
    if (slash < 0) return true; // directly under the root, which is the caller's to trust
    const dirKey = key.slice(0, slash);
    if (this.verified.has(dirKey)) return true;
    let end = -1;
    do {
      end = key.indexOf('/', end + 1);
      const prefix = key.slice(0, end);
      if (this.verified.has(prefix)) continue;
      const dir = path.join(this.root, prefix);
      let stats = lstatSync(dir, { throwIfNoEntry: false });
      if (!stats && create) {
        try {
          mkdirSync(dir);
        } catch (err) {
          // EEXIST: a concurrent writer made it, so check what it is. Anything else (a parent
          // removed meanwhile, a file in the way) is left to the write itself, which retries or
          // reports it with the key.
          if (!isErrno(err, 'EEXIST')) return false;
        }
        stats = lstatSync(dir, { throwIfNoEntry: false });
      }
      if (!stats) return false;
      if (stats.isSymbolicLink()) throw symlinkRefused(key, prefix, this.root);
      if (!stats.isDirectory()) return false;
      if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
      this.verified.add(prefix);
    } while (end < slash);
    return true;
  }

  /** Forgets a directory this backend removed (it may come back as anything). */
  forget(dir: string): void {
    const relative = path.relative(this.root, dir).split(path.sep).join('/');
    this.verified.delete(relative);
  }
}

/**
 * Opens the regular file of `key` for reading without following a symlink: null when there is no
 * such object (missing, a directory), INVALID_KEY when the name is a symlink.
 */
export function openObjectFile(file: string, key: string, root: string): { fd: number; stats: BigIntStats } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, 'ELOOP')) throw symlinkRefused(key, key, root);
    if (isErrno(err, 'ENOENT', 'ENOTDIR', 'EISDIR')) return null;
    throw err;
  }
  const stats = fstatSync(fd, { bigint: true });
  if (!stats.isFile()) {
    closeSync(fd);
    return null;
  }
  return { fd, stats };
}

/** Errno codes that say a name or path is too long for the filesystem. */
const TOO_LONG = ['ENAMETOOLONG'];
/** Errno codes that say the process may not touch the path. */
const DENIED = ['EACCES', 'EPERM', 'EROFS'];
/** Errno codes worth retrying: the resource is busy or momentarily exhausted. */
const TRANSIENT = ['EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE', 'EINTR'];

/**
 * The FloeError every filesystem backend call throws instead of a raw Node error: a name too long
 * is the key's fault (INVALID_KEY), a path Node refuses is the caller's (INVALID_ARGUMENT), any
 * other system error is the storage's (STORAGE_ERROR, the errno kept as `cause`). FloeErrors and
 * errors that are not system errors (bugs) pass through unchanged.
 */
export function fsFailure(err: unknown, key: string | undefined, root: string): unknown {
  if (err instanceof Error && !isFloeError(err) && 'code' in err && typeof err.code === 'string') {
    const where = key ?? root;
    const code = err.code;
    if (TOO_LONG.includes(code)) {
      return floeError('INVALID_KEY', `a name in ${JSON.stringify(where)} under ${root} is longer than the filesystem allows (usually 255 bytes per name); use shorter names`, { where, cause: err });
    }
    if (code.startsWith('ERR_INVALID_ARG')) {
      return floeError('INVALID_ARGUMENT', `the filesystem refused the path of ${JSON.stringify(where)} under ${root}: ${err.message}`, { where, cause: err });
    }
    if (DENIED.includes(code)) {
      return floeError('STORAGE_ERROR', `permission denied (${code}) for ${JSON.stringify(where)} under ${root}; check the directory's owner, mode and mount`, { where, cause: err });
    }
    if (code === 'ENOTDIR') {
      return floeError('STORAGE_ERROR', `a file stands where a directory is expected on the way to ${JSON.stringify(where)} under ${root}; the storage root must be a directory`, { where, cause: err });
    }
    return floeError('STORAGE_ERROR', `filesystem error ${code} for ${JSON.stringify(where)} under ${root}: ${err.message}`, {
      where, cause: err, details: { transient: TRANSIENT.includes(code) },
    });
  }
  return err;
}
