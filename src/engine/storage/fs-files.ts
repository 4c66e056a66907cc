// Low-level file steps of the filesystem backend: version tokens from stat, temp files written
// and fsynced beside their target, directory fsyncs, and positioned reads into right-sized buffers.
import { closeSync, constants, fstatSync, fsyncSync, futimesSync, lstatSync, mkdirSync, openSync, readSync, unlinkSync, writeSync, type BigIntStats } from 'node:fs';
import { open, utimes } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { throwIfAborted } from '../abort.ts';
import type { VersionToken } from './types.ts';

/** Names beginning with this are the backend's own (temp and lock files): never keys, never listed. */
export const RESERVED_PREFIX = '.floe-';

export function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as { code?: string }).code ?? '');
}

/**
 * The version token of a file: inode, modification time in nanoseconds and size. Every write
 * creates a new file (temp + rename), so the inode changes; because an inode can be reused once
 * the old file is gone, writes also give the file a fresh mtime that is later than the one it
 * replaces and carries random sub-millisecond digits (see `stampMtime`).
 */
export function versionOf(stats: BigIntStats): VersionToken {
  return `${stats.ino.toString(36)}.${stats.mtimeNs.toString(36)}.${stats.size.toString(36)}`;
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

export function tempPathBeside(file: string): string {
  return path.join(path.dirname(file), `${RESERVED_PREFIX}tmp-${randomBytes(8).toString('hex')}`);
}

export function lockPathOf(file: string): string {
  return path.join(path.dirname(file), `${RESERVED_PREFIX}lock.${path.basename(file)}`);
}

/**
 * Writes `bytes` to a new temp file (creating parent directories), fsynced when `durable`. A
 * `signal` is checked between the steps; when it fires, the temp file is removed (ABORTED).
 */
export async function writeTempFile(file: string, bytes: Uint8Array, durable: boolean, signal?: AbortSignal): Promise<string> {
  // A concurrent delete may remove an emptied parent directory between mkdir and open: retry.
  for (let attempt = 0; ; attempt++) {
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = tempPathBeside(file);
    let handle;
    try {
      handle = await open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
    } catch (err) {
      if (isErrno(err, 'ENOENT') && attempt < 5) continue;
      throw err;
    }
    try {
      let written = 0;
      while (written < bytes.length) {
        throwIfAborted(signal, file);
        const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
      throwIfAborted(signal, file);
      if (durable) await handle.sync();
    } catch (err) {
      await handle.close();
      unlinkQuietly(temp); // an aborted or failed write leaves no temp file behind
      throw err;
    }
    await handle.close();
    return temp;
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
export function writeStampedTempFileSync(file: string, bytes: Uint8Array, durable: boolean, nowMs: number): { temp: string; stats: BigIntStats } {
  const dir = path.dirname(file);
  // A concurrent delete may remove an emptied parent directory between mkdir and open: retry.
  for (let attempt = 0; ; attempt++) {
    const temp = tempPathBeside(file);
    let fd: number;
    try {
      fd = openSync(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
    } catch (err) {
      if (isErrno(err, 'ENOENT') && attempt < 5) {
        mkdirSync(dir, { recursive: true }); // the common case (directory exists) skips this
        continue;
      }
      throw err;
    }
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      const seconds = Math.floor(nowMs) / 1000 + Math.random() / 1000;
      futimesSync(fd, seconds, seconds);
      if (durable) fsyncSync(fd);
      const stats = fstatSync(fd, { bigint: true });
      closeSync(fd);
      return { temp, stats };
    } catch (err) {
      closeSync(fd);
      try {
        unlinkSync(temp);
      } catch {
        // gone already
      }
      throw err;
    }
  }
}

/**
 * Gives `temp` the mtime `nowMs`, or one later than `previousNs` (the file it will replace), with
 * random sub-millisecond digits, so a token is not repeated even when an inode is reused within
 * one clock tick (Linux file timestamps advance in jiffies, not nanoseconds).
 */
export async function stampMtime(temp: string, previousNs: bigint | undefined, nowMs: number): Promise<void> {
  let seconds = Math.floor(nowMs) / 1000 + Math.random() / 1000;
  if (previousNs !== undefined) {
    const previousSeconds = Number(previousNs) / 1e9;
    if (seconds <= previousSeconds + 2e-6) seconds = previousSeconds + 2e-6 + Math.random() / 1e4;
  }
  await utimes(temp, seconds, seconds);
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
