// Local filesystem backend, the embedded default. Keys map to files under one root with the same
// layout an object store would have. Safe under concurrent writers in several OS processes:
// - every write goes to a temp file (`.floe-tmp-*`, fsynced) that is never visible under the
//   final name, and appears there atomically: `link` for create-only (fails if the name exists),
//   `rename` under the key's lock file for every other write;
// - conditional updates compare the version token while holding the key's lock;
// - the directory is fsynced after the name changes.
// That is durability 'fsync' (the default). 'atomic' skips the fsyncs; 'none' also writes
// unconditional puts in place, without temp file, lock or rename (docs/storage.md, "Durability").
// A signal is checked before every step (reads and create-only writes are one synchronous step);
// an aborted replace removes its temp file, and once a name has changed the write has happened
// and resolves. See docs/storage.md for the version token and the reasoning.
import { linkSync, renameSync, unlinkSync, closeSync, type BigIntStats } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { floeError, isFloeError } from '../../errors.ts';
import { throwIfAborted } from '../abort.ts';
import { systemClock, type Clock } from './clock.ts';
import { fsFailure, openObjectFile, symlinkRefused } from './fs-containment.ts';
import {
  baseNameOf, dirKeyOf, forgetCachedDirectories, inside, readInDirectory, removeEmptyDirectories, walkTo, type DirectoryWalk,
} from './fs-dirs.ts';
import type { FileLockOptions } from './fs-lock.ts';
import {
  RESERVED_PREFIX, fsyncDirectory, infoOf, isErrno, lockPathOf, lstatOrNull, readRange, readRangeInto,
  stampMtime, versionOf, writeInPlace, writeStampedTempFileSync, writeTempFile,
} from './fs-files.ts';
import { validateDirPrefix, validateKey, validatePrefix } from './keys.ts';
import { checkPrecondition, preconditionFailed, validatePutOptions } from './preconditions.ts';
import { checkObjectSize } from './object-bound.ts';
import { resolveRange, validateRange } from './ranges.ts';
import type {
  AbortOptions, ByteRange, CopyOptions, ObjectGetOptions, GetResult, ListDirResult, ListOptions, ObjectInfo, ObjectStorage, PutOptions, VersionToken,
} from './types.ts';

/**
 * What a filesystem write promises (docs/storage.md, "Durability"):
 * - `'fsync'`: atomic (readers see the old or the new object, never part of one; a failed write
 *   leaves the old one), and an acknowledged write survives an OS crash or power loss;
 * - `'atomic'`: atomic, not fsynced: survives the process crashing, not the OS;
 * - `'none'`: unconditional puts write the file in place: fastest, but a reader may see a partly
 *   written object and a failed or interrupted write leaves one. Conditional puts stay atomic.
 */
export type Durability = 'none' | 'atomic' | 'fsync';

const DURABILITIES: readonly Durability[] = ['none', 'atomic', 'fsync'];

/** Options of {@link FsStorage}. */
export interface FsStorageOptions {
  /** Directory holding the objects; created if missing. */
  root: string;
  /** What a write promises: `'fsync'` (default), `'atomic'` or `'none'`; see {@link Durability}. */
  durability?: Durability;
  /** The older spelling: `true` is `durability: 'fsync'`, `false` is `'atomic'`. */
  durable?: boolean;
  /** Per-key lock: wait limit and stale-lock age. */
  lock?: FileLockOptions;
  /**
   * Time for the mtimes written objects get (their `lastModified`), lock waits and staleness, and
   * temp-file sweeps. Default: the system clock. Lock and temp files carry mtimes the OS sets, so a
   * fake clock should start near real time.
   */
  clock?: Clock;
}

/**
 * Local-filesystem {@link ObjectStorage}, the embedded default: one file per key under `root`.
 * Safe with concurrent writers in several processes: writes land atomically (temp file, then
 * `link`/`rename` under a per-key lock) and conditional updates compare versions under that lock.
 */
export class FsStorage implements ObjectStorage {
  readonly kind = 'fs';
  readonly root: string;
  readonly durability: Durability;
  private readonly lockOptions: FileLockOptions;
  private readonly clock: Clock;

  constructor(options: FsStorageOptions) {
    if (typeof options.root !== 'string' || options.root === '' || options.root.includes('\0')) {
      throw floeError('INVALID_ARGUMENT', `the filesystem storage root must be a non-empty path without NUL, got ${JSON.stringify(String(options.root))}`);
    }
    this.root = path.resolve(options.root);
    this.durability = resolveDurability(options);
    this.lockOptions = options.lock ?? {};
    this.clock = options.clock ?? systemClock;
  }

  async get(key: string, range?: ByteRange, options?: ObjectGetOptions): Promise<GetResult | null> {
    try {
      // Files are never modified in place (but in durability 'none'), so bytes read from this
      // descriptor belong to the version its fstat gave, even if the key is replaced meanwhile.
      return this.withObjectFile(key, range, options, (fd, stats, start, end) => {
        checkObjectSize(key, end - start, range, options);
        return { bytes: readRange(fd, start, end), version: versionOf(stats) };
      });
    } catch (err) {
      throw fsFailure(err, key, this.root);
    }
  }

  /**
   * Opens `key`'s file (never through a link out of the root), resolves `range` against its size
   * and runs `read` on the descriptor, closing it afterwards; null when the object does not exist.
   */
  private withObjectFile<T>(
    key: string, range: ByteRange | undefined, options: AbortOptions | undefined,
    read: (fd: number, stats: BigIntStats, start: number, end: number) => T,
  ): T | null {
    throwIfAborted(options?.signal, key);
    this.pathOf(key);
    if (range) validateRange(range, key);
    const opened = this.openForReading(key);
    if (!opened) return null;
    try {
      const { start, end } = resolveRange(range, Number(opened.stats.size));
      return read(opened.fd, opened.stats, start, end);
    } finally {
      closeSync(opened.fd);
    }
  }

  /** Opens `key`'s file, every directory on the way and the name itself reached without following a link. */
  private openForReading(key: string): { fd: number; stats: BigIntStats } | null {
    return readInDirectory(this.root, key, (file) => openObjectFile(file, key, this.root));
  }

  /** Readers open it with local-file.ts, which walks from the root without following links as `get` does. */
  localFile(key: string): { root: string; key: string } {
    this.pathOf(key);
    return { root: this.root, key };
  }

  async readInto(key: string, target: Uint8Array, range?: ByteRange, options?: AbortOptions): Promise<number | null> {
    try {
      return this.withObjectFile(key, range, options, (fd, _stats, start, end) =>
        end - start > target.length ? end - start : readRangeInto(fd, start, end, target));
    } catch (err) {
      throw fsFailure(err, key, this.root);
    }
  }

  async head(key: string, options?: AbortOptions): Promise<ObjectInfo | null> {
    try {
      throwIfAborted(options?.signal, key);
      this.pathOf(key);
      return readInDirectory(this.root, key, (file) => {
        const stats = lstatOrNull(file);
        if (stats?.isSymbolicLink()) throw symlinkRefused(key, key, this.root);
        return stats?.isFile() ? infoOf(key, stats) : null;
      });
    } catch (err) {
      throw fsFailure(err, key, this.root);
    }
  }

  async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    return this.putParts(key, [bytes], options);
  }

  /** `put` of the parts' concatenation, written with `writev`: the parts are never joined in memory. */
  async putParts(key: string, parts: readonly Uint8Array[], options?: PutOptions): Promise<{ version: VersionToken }> {
    try {
      throwIfAborted(options?.signal, key);
      this.pathOf(key);
      validatePutOptions(options, key);
      return await this.inWritableDirectory(key, (walk) => this.putIn(key, walk, parts, options));
    } catch (err) {
      throw fsFailure(err, key, this.root);
    }
  }

  /**
   * Runs `write` in `key`'s directory, walked afresh from the root (made where missing, never
   * through a link) and open while it runs. When a concurrent delete removed the emptied
   * directory before the write created anything in it, walks again.
   */
  private async inWritableDirectory<T>(key: string, write: (walk: DirectoryWalk) => Promise<T> | T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const walk = walkTo(this.root, dirKeyOf(key), key, true);
      if (!walk) {
        if (attempt < WALK_ATTEMPTS) continue; // a directory on the way removed meanwhile
        throw conflictWithObject(key); // a file stands where a directory of the key must be
      }
      try {
        return await write(walk);
      } catch (err) {
        if (!(err instanceof DirectoryGone) || attempt >= WALK_ATTEMPTS) throw err instanceof DirectoryGone ? err.cause : err;
      } finally {
        walk.close();
      }
    }
  }

  private async putIn(key: string, walk: DirectoryWalk, parts: readonly Uint8Array[], options: PutOptions | undefined): Promise<{ version: VersionToken }> {
    const file = inside(walk.dir, baseNameOf(key));
    if (options?.ifNoneMatch === '*') return this.createOnly(key, file, parts, walk);
    if (this.durability === 'none' && options?.ifMatch === undefined) {
      const written = await this.writeInPlace(key, file, parts);
      if (written) return written;
    }
    const temp = await this.writeTemp(key, file, parts, walk, options?.signal);
    try {
      return await this.replaceLocked(key, file, temp, walk, options); // renames the temp file away
    } catch (err) {
      unlinkQuietly(temp);
      removeEmptyDirectories(walk); // a refused write leaves no directory behind
      throw err;
    }
  }

  async copy(from: string, to: string, options?: CopyOptions): Promise<{ version: VersionToken }> {
    try {
      throwIfAborted(options?.signal, to);
      this.pathOf(from);
      this.pathOf(to); // validate before any I/O
      const opened = this.openForReading(from);
      if (!opened) {
        if (options?.ifMatch !== undefined) throw preconditionFailed(from, 'the copy source does not exist (ifMatch)');
        throw floeError('NOT_FOUND', `cannot copy ${JSON.stringify(from)}: no such object`, { where: from });
      }
      let bytes: Uint8Array;
      try {
        if (options?.ifMatch !== undefined) checkPrecondition(from, versionOf(opened.stats), { ifMatch: options.ifMatch });
        bytes = readRange(opened.fd, 0, Number(opened.stats.size));
      } finally {
        closeSync(opened.fd);
      }
      return this.put(to, bytes, { signal: options?.signal });
    } catch (err) {
      throw fsFailure(err, to, this.root);
    }
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo> {
    try {
      throwIfAborted(options?.signal, prefix);
      validatePrefix(prefix);
      yield* (await loadTree()).listObjects(this.root, prefix, options?.startAfter, options?.signal);
    } catch (err) {
      throw fsFailure(err, prefix, this.root);
    }
  }

  async listDir(prefix: string, options?: AbortOptions): Promise<ListDirResult> {
    try {
      throwIfAborted(options?.signal, prefix);
      validateDirPrefix(prefix);
      return (await loadTree()).listDirectory(this.root, prefix);
    } catch (err) {
      throw fsFailure(err, prefix, this.root);
    }
  }

  async delete(keys: readonly string[], options?: AbortOptions): Promise<void> {
    try {
      throwIfAborted(options?.signal, keys[0]);
      for (const key of keys) this.pathOf(key);
      const lock = { options: this.lockOptions, clock: this.clock, fsync: this.durability === 'fsync' };
      await (await loadTree()).deleteObjects(this.root, keys, lock, options?.signal);
    } catch (err) {
      throw fsFailure(err, keys[0], this.root);
    }
  }

  /** Closes this thread's cached directories of the root (reads open them again if used again). */
  async close(): Promise<void> {
    forgetCachedDirectories(this.root);
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Removes temp files that crashed writers left behind (`.floe-tmp-*`, broken locks), if older
   * than `olderThanMs` (default 1 hour, far longer than any write). Returns how many it removed.
   */
  async sweepTempFiles(olderThanMs = 3_600_000): Promise<number> {
    try {
      return (await loadTree()).sweepTempFiles(this.root, this.clock.nowMs() - olderThanMs);
    } catch (err) {
      throw fsFailure(err, undefined, this.root);
    }
  }

  /** Removes the whole root directory (tests, ephemeral repositories). */
  async destroy(): Promise<void> {
    try {
      forgetCachedDirectories(this.root);
      await rm(this.root, { recursive: true, force: true });
    } catch (err) {
      throw fsFailure(err, undefined, this.root);
    }
  }

  private pathOf(key: string): string {
    validateKey(key);
    for (const segment of key.split('/')) {
      if (segment.startsWith(RESERVED_PREFIX)) {
        throw floeError('INVALID_KEY', `invalid storage key ${JSON.stringify(key)}: names starting with '${RESERVED_PREFIX}' are reserved by the filesystem backend`, { where: key });
      }
    }
    const file = path.join(this.root, ...key.split('/'));
    // Defence in depth: validated keys cannot leave the root, and this proves it.
    if (!file.startsWith(this.root + path.sep)) {
      throw floeError('INVALID_KEY', `invalid storage key ${JSON.stringify(key)}: resolves outside the root`, { where: key });
    }
    return file;
  }

  private async writeTemp(key: string, file: string, parts: readonly Uint8Array[], walk: DirectoryWalk, signal: AbortSignal | undefined): Promise<string> {
    try {
      return await writeTempFile(file, parts, this.durability === 'fsync', signal);
    } catch (err) {
      if (isFloeError(err, 'ABORTED')) {
        removeEmptyDirectories(walk); // an aborted write leaves no directory behind
        throw err;
      }
      if (isErrno(err, 'ENOENT')) throw new DirectoryGone(err);
      if (isErrno(err, 'ENOTDIR', 'EEXIST')) throw conflictWithObject(key, err);
      throw floeError('STORAGE_ERROR', `cannot write ${JSON.stringify(key)} under ${this.root}`, { where: key, cause: err });
    }
  }

  /**
   * Durability 'none': the bytes go straight into the object's file. Undefined when the name is a
   * symlink or has other hard links: the caller then replaces it atomically instead.
   */
  private async writeInPlace(key: string, file: string, parts: readonly Uint8Array[]): Promise<{ version: VersionToken } | undefined> {
    try {
      const stats = await writeInPlace(file, parts, this.clock.nowMs());
      return stats && { version: versionOf(stats) };
    } catch (err) {
      if (isFloeError(err)) throw err;
      if (isErrno(err, 'ENOENT')) throw new DirectoryGone(err);
      if (isErrno(err, 'ENOTDIR', 'EISDIR')) throw conflictWithObject(key, err);
      throw floeError('STORAGE_ERROR', `cannot write ${JSON.stringify(key)} under ${this.root}`, { where: key, cause: err });
    }
  }

  /**
   * Create-only write, all synchronous (one event-loop turn, no thread-pool round trips): a temp
   * file written, stamped, fsynced in durability 'fsync', then `link`ed to the name, which fails if the
   * name exists, so of racing creators exactly one succeeds and the object never shows partly.
   */
  private createOnly(key: string, file: string, parts: readonly Uint8Array[], walk: DirectoryWalk): { version: VersionToken } {
    let temp: string;
    let stats: BigIntStats;
    try {
      ({ temp, stats } = writeStampedTempFileSync(file, parts, this.durability === 'fsync', this.clock.nowMs()));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) throw new DirectoryGone(err);
      removeEmptyDirectories(walk);
      if (isErrno(err, 'ENOTDIR', 'EEXIST')) throw conflictWithObject(key, err);
      throw floeError('STORAGE_ERROR', `cannot write ${JSON.stringify(key)} under ${this.root}`, { where: key, cause: err });
    }
    try {
      linkSync(temp, file);
    } catch (err) {
      unlinkQuietly(temp);
      removeEmptyDirectories(walk); // a refused write leaves no directory behind
      if (!isErrno(err, 'EEXIST')) throw floeError('STORAGE_ERROR', `cannot create ${JSON.stringify(key)}`, { where: key, cause: err });
      if (lstatOrNull(file)?.isDirectory()) throw conflictWithObject(key, err);
      // The object may be this write, linked by an attempt whose directory fsync then failed: a
      // caller that finds its bytes there (create-once.ts) calls it stored, so make the name durable.
      if (this.durability === 'fsync') fsyncDirectory(walk.dir.path);
      throw preconditionFailed(key, 'the object already exists (ifNoneMatch: *)');
    }
    unlinkQuietly(temp);
    if (this.durability === 'fsync') fsyncDirectory(walk.dir.path);
    return { version: versionOf(stats) };
  }

  /**
   * Check the precondition and rename into place, all under the key's lock. The signal is checked
   * last before the rename: after it the write has happened and resolves.
   */
  private async replaceLocked(key: string, file: string, temp: string, walk: DirectoryWalk, options?: PutOptions): Promise<{ version: VersionToken }> {
    const signal = options?.signal;
    const { withFileLock } = await loadLock();
    return withFileLock(lockPathOf(file), async () => {
      throwIfAborted(signal, key);
      const current = lstatOrNull(file);
      if (current?.isDirectory()) throw conflictWithObject(key);
      checkPrecondition(key, current ? versionOf(current) : undefined, options);
      stampMtime(temp, current?.mtimeNs, this.clock.nowMs());
      const stats = lstatOrNull(temp);
      if (!stats) throw floeError('STORAGE_ERROR', `temp file for ${JSON.stringify(key)} vanished`, { where: key });
      throwIfAborted(signal, key);
      renameSync(temp, file);
      if (this.durability === 'fsync') fsyncDirectory(walk.dir.path);
      return { version: versionOf(stats) };
    }, this.lockOptions, this.clock, signal, lockPathOf(path.join(this.root, key)));
  }
}

// Listing, deleting and sweeping load with the first call that needs them: reads and writes never do.
let tree: Promise<typeof import('./fs-tree.ts')> | undefined;
const loadTree = () => (tree ??= import('./fs-tree.ts'));
// Per-key locks load with the first write that replaces an object: readers never take one.
let lock: Promise<typeof import('./fs-lock.ts')> | undefined;
const loadLock = () => (lock ??= import('./fs-lock.ts'));

/** Times a write walks to its directory again when concurrent deletes keep removing it. */
const WALK_ATTEMPTS = 5;

/** The write's directory was removed (emptied by a concurrent delete) before anything was written in it. */
class DirectoryGone extends Error {
  constructor(override readonly cause: unknown) {
    super('the directory was removed meanwhile');
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already renamed into place or gone
  }
}

function conflictWithObject(key: string, cause?: unknown): Error {
  return floeError(
    'INVALID_KEY',
    `storage key ${JSON.stringify(key)} collides with another object on the filesystem (a name cannot be both an object and a directory of objects)`,
    { where: key, cause },
  );
}

/** The durability `options` ask for; INVALID_ARGUMENT for an unknown one or a contradiction. */
function resolveDurability(options: FsStorageOptions): Durability {
  const { durability, durable } = options;
  if (durability === undefined) return durable === false ? 'atomic' : 'fsync';
  if (!DURABILITIES.includes(durability)) {
    throw floeError('INVALID_ARGUMENT', `durability must be one of ${DURABILITIES.map((d) => `'${d}'`).join(', ')}, got ${JSON.stringify(String(durability))}`);
  }
  if (durable !== undefined && durable !== (durability === 'fsync')) {
    throw floeError('INVALID_ARGUMENT', `durable: ${durable} contradicts durability: '${durability}'; pass durability alone`);
  }
  return durability;
}
