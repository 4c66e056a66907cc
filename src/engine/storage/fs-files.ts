// Low-level file steps of the filesystem backend: version tokens from stat, temp files written
// (from one buffer or several parts, with writev) and fsynced beside their target, in-place
// writes, directory fsyncs, and positioned reads into right-sized buffers.
import {
  closeSync, constants, fstatSync, fsync, fsyncSync, ftruncateSync, futimesSync, lstatSync, openSync, readSync, unlinkSync, utimesSync,
  writev, writevSync, type BigIntStats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { throwIfAborted } from '../abort.ts';
import type { ObjectInfo, VersionToken } from './types.ts';

/** Names beginning with this are the backend's own (temp and lock files): never keys, never listed. */
export const RESERVED_PREFIX = '.floe-';

export function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as { code?: string }).code ?? '');
}

/**
 * The version token of a file: inode, modification time in nanoseconds and size. Every atomic
 * write creates a new file (temp + rename), so the inode changes; because an inode can be reused
 * once the old file is gone, and an in-place write (durability 'none') keeps it, writes also give
 * the file a fresh mtime with random sub-millisecond digits, later than the one it replaces
 * (see `stampMtime`).
 */
export function versionOf(stats: BigIntStats): VersionToken {
  return `${stats.ino.toString(36)}.${stats.mtimeNs.toString(36)}.${stats.size.toString(36)}`;
}

/** What a listing or `head` says of an object's file. */
export function infoOf(key: string, stats: BigIntStats): ObjectInfo {
  return { key, size: Number(stats.size), lastModified: new Date(Number(stats.mtimeMs)), version: versionOf(stats) };
}

/** lstat that returns null for a missing path (or a path through a file). */
export function lstatOrNull(file: string): BigIntStats | null {
  try {
    return lstatSync(file, { bigint: true });
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return null;
    throw err;
  }
}

/** Temp names: one random prefix per process and a counter, so naming a temp file costs no syscall. */
const TEMP_PREFIX = `${RESERVED_PREFIX}tmp-${randomBytes(6).toString('hex')}-`;
let tempCounter = 0;

export function tempPathBeside(file: string): string {
  tempCounter += 1;
  return path.join(path.dirname(file), `${TEMP_PREFIX}${tempCounter.toString(36)}`);
}

export function lockPathOf(file: string): string {
  return path.join(path.dirname(file), `${RESERVED_PREFIX}lock.${path.basename(file)}`);
}

/** Writes this small go in one synchronous call: a thread-pool round trip costs more than the copy. */
const SYNC_WRITE_BYTES = 64 * 1024;

/**
 * Bytes one thread-pool write call takes at most. Measured here (Linux 6.18 VM, 1 GiB of 4 MiB
 * chunks): one `writev` of a whole chunk's 1,024 row views spent 2-4x the kernel time of the same
 * bytes in calls of 1 MiB or less (and one 2 MiB call as much); at 1 MiB the extra round trips cost
 * next to nothing.
 */
const WRITE_CALL_BYTES = 1024 * 1024;

/**
 * Opens `file` with `flags` (0o644). Its directory is the caller's, reached without links
 * (fs-dirs.ts); ENOENT means a concurrent delete removed it emptied, and the caller walks again.
 */
function openCreating(file: string, flags: number): number {
  return openSync(file, flags, 0o644);
}

/**
 * Writes `parts` one after the other at the start of a new file: small writes synchronously,
 * others in thread-pool calls of at most {@link WRITE_CALL_BYTES}, the signal checked before each.
 */
async function writeParts(fd: number, parts: readonly Uint8Array[], signal: AbortSignal | undefined, where: string): Promise<void> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  if (total <= SYNC_WRITE_BYTES) return writePartsSync(fd, parts);
  for (const batch of batchesOf(parts, WRITE_CALL_BYTES)) {
    let rest: readonly Uint8Array[] = batch;
    while (rest.length > 0) {
      throwIfAborted(signal, where);
      rest = afterWritten(rest, progressOf(await writevAsync(fd, rest))); // a short write (rare) continues where it stopped
    }
  }
}

/** `parts` regrouped, in order, into lists of at most `limit` bytes (a part may be split). */
function* batchesOf(parts: readonly Uint8Array[], limit: number): Generator<Uint8Array[]> {
  let batch: Uint8Array[] = [];
  let size = 0;
  for (const part of parts) {
    let from = 0;
    while (from < part.length) {
      const take = Math.min(part.length - from, limit - size);
      batch.push(from === 0 && take === part.length ? part : part.subarray(from, from + take));
      from += take;
      size += take;
      if (size < limit) continue;
      yield batch;
      batch = [];
      size = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

function writePartsSync(fd: number, parts: readonly Uint8Array[]): void {
  let rest = parts;
  while (rest.some((p) => p.length > 0)) rest = afterWritten(rest, progressOf(writevSync(fd, rest as Uint8Array[])));
}

/** A write that wrote nothing would loop forever: report it as the I/O error it is. */
function progressOf(written: number): number {
  if (written > 0) return written;
  throw Object.assign(new Error('the filesystem accepted no bytes of a write'), { code: 'EIO' });
}

function writevAsync(fd: number, parts: readonly Uint8Array[]): Promise<number> {
  return new Promise((resolve, reject) => writev(fd, parts as Uint8Array[], (err, n) => (err ? reject(err) : resolve(n))));
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/** What remains of `parts` once `n` bytes of them were written (a short write continues there). */
function afterWritten(parts: readonly Uint8Array[], n: number): readonly Uint8Array[] {
  if (parts.length === 1 && n === parts[0]?.length) return []; // the common case: all written
  let i = 0;
  for (const part of parts) {
    if (n < part.length) return [part.subarray(n), ...parts.slice(i + 1)];
    n -= part.length;
    i += 1;
  }
  return [];
}

/**
 * Writes `parts` (their concatenation) to a new temp file beside `file`, fsynced when `fsyncFile`.
 * The small steps (open, close) are synchronous; only large writes and the fsync go to the thread
 * pool. A `signal` is checked between the steps; when it fires, the temp file is removed (ABORTED),
 * as after any failure.
 */
export async function writeTempFile(file: string, parts: readonly Uint8Array[], fsyncFile: boolean, signal?: AbortSignal): Promise<string> {
  const temp = tempPathBeside(file);
  const fd = openCreating(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
  try {
    await writeParts(fd, parts, signal, file);
    throwIfAborted(signal, file);
    if (fsyncFile) await fsyncAsync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(temp); // an aborted or failed write leaves no temp file behind
    throw err;
  }
  closeSync(fd);
  return temp;
}

/**
 * Durability 'none': writes `parts` straight into `file`, replacing its bytes in place (no temp
 * file, no rename, no lock), never through a symlink. The file is emptied first, so a reader
 * racing the write sees a short object (an error for fixed-size chunks) rather than old and new
 * bytes mixed. Stamps the mtime like `stampMtime`, so the version token changes even when the
 * size does not. Returns undefined, writing nothing, when the name is a symlink or a file with
 * other hard links (writing through would change what they point at: the caller replaces the
 * name by rename instead, as an atomic write does). A failure midway
 * leaves the file partly written; no signal is checked once it started, so an aborted write
 * still means nothing was written.
 */
export async function writeInPlace(file: string, parts: readonly Uint8Array[], nowMs: number): Promise<BigIntStats | undefined> {
  let fd: number;
  try {
    fd = openCreating(file, constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, 'ELOOP')) return undefined;
    throw err;
  }
  try {
    if (fstatSync(fd).nlink > 1) return undefined;
    ftruncateSync(fd, 0);
    await writeParts(fd, parts, undefined, file);
    const seconds = Math.floor(nowMs) / 1000 + Math.random() / 1000;
    futimesSync(fd, seconds, seconds);
    return fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}

/**
 * Synchronous `writeTempFile` for a new object: the temp file also gets its fresh mtime (`nowMs`
 * plus random sub-millisecond digits, see `stampMtime`) before the fsync, and its stats are
 * returned (the version token it will carry).
 */
export function writeStampedTempFileSync(file: string, parts: readonly Uint8Array[], fsyncFile: boolean, nowMs: number): { temp: string; stats: BigIntStats } {
  const temp = tempPathBeside(file);
  const fd = openCreating(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
  try {
    writePartsSync(fd, parts);
    const seconds = Math.floor(nowMs) / 1000 + Math.random() / 1000;
    futimesSync(fd, seconds, seconds);
    if (fsyncFile) fsyncSync(fd);
    const stats = fstatSync(fd, { bigint: true });
    closeSync(fd);
    return { temp, stats };
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw err;
  }
}

/**
 * Gives `temp` the mtime `nowMs`, or one later than `previousNs` (the file it will replace), with
 * random sub-millisecond digits, so a token is not repeated even when an inode is reused within
 * one clock tick (Linux file timestamps advance in jiffies, not nanoseconds). Synchronous: it runs
 * under the key's lock, where a thread-pool round trip would only hold the lock longer.
 */
export function stampMtime(temp: string, previousNs: bigint | undefined, nowMs: number): void {
  let seconds = Math.floor(nowMs) / 1000 + Math.random() / 1000;
  if (previousNs !== undefined) {
    const previousSeconds = Number(previousNs) / 1e9;
    if (seconds <= previousSeconds + 2e-6) seconds = previousSeconds + 2e-6 + Math.random() / 1e4;
  }
  utimesSync(temp, seconds, seconds);
}

/** fsync a directory so a rename, link or unlink in it survives a crash. */
export function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    // Some filesystems refuse fsync on directories; durability there is the filesystem's.
    if (!isErrno(err, 'EINVAL', 'ENOTSUP', 'EISDIR', 'EBADF')) throw err;
  } finally {
    closeSync(fd);
  }
}

/** Reads [start, end) of an open file into the front of `target`; returns the bytes read. */
export function readRangeInto(fd: number, start: number, end: number, target: Uint8Array): number {
  const length = end - start;
  let done = 0;
  while (done < length) {
    const n = readSync(fd, target, done, length - done, start + done);
    if (n === 0) break; // file shorter than its stat said: cannot happen for our immutable files
    done += n;
  }
  return done;
}

/** Reads [start, end) of an open file into a buffer of exactly that size. */
export function readRange(fd: number, start: number, end: number): Uint8Array {
  const length = end - start;
  // allocUnsafe: every byte is overwritten by the read, so zero-filling first is wasted work.
  const bytes = new Uint8Array(Buffer.allocUnsafeSlow(length).buffer, 0, length);
  const done = readRangeInto(fd, start, end, bytes);
  return done === length ? bytes : bytes.subarray(0, done);
}
