// Keeps the filesystem backend inside its root when the tree under the root holds symbolic
// links. Keys are already safe as text (keys.ts: no '..', absolute paths, empty segments, NUL,
// backslashes); a symlink is the remaining way out: `chunks/` linked to /elsewhere would make a
// commit write chunk files outside the repository, and a linked file would be read as an object.
// Directories are reached without following links by fs-dirs.ts; the final name is opened with
// O_NOFOLLOW here. A link found is INVALID_KEY (the key would resolve outside the root), never
// followed. This module also turns system errors into FloeErrors.
import { closeSync, constants, fstatSync, openSync, type BigIntStats } from 'node:fs';
import { floeError, isFloeError, type FloeError } from '../../errors.ts';
import { isErrno } from './fs-files.ts';

export function symlinkRefused(key: string, link: string, root: string): FloeError<'INVALID_KEY'> {
  return floeError(
    'INVALID_KEY',
    `storage key ${JSON.stringify(key)} passes through ${JSON.stringify(link)}, a symbolic link inside the storage root ${root}; ` +
      'the filesystem backend never follows links, which could lead outside its root. Replace the link with a real directory or file, or open the storage at the link target',
    { where: key },
  );
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
