// A per-key lock for the filesystem backend, shared by every OS process using the same root.
// The lock is a file hard-linked into place next to the object (`.floe-lock.<name>`), so exactly
// one process holds it and it always names its owner. A holder that died leaves its file behind: a waiter breaks such a
// lock when the holder's pid is gone (same host) or the lock is older than `staleMs`.
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { floeError } from '../../errors.ts';
import { parseJson } from '../../format/json.ts';
import { sleepAbortably, throwIfAborted } from '../abort.ts';
import { systemClock, type Clock } from './clock.ts';

/** How {@link FsStorage} waits for, and takes over, another writer's per-key lock file. */
export interface FileLockOptions {
  /** Give up waiting after this long (TIMEOUT). Default 10 000 ms. */
  timeoutMs?: number;
  /** A lock older than this is presumed abandoned. Default 30 000 ms; holders keep it for milliseconds. */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
}

const HOST = hostname();

function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as { code?: string }).code ?? '');
}

/**
 * Takes the lock with its owner already inside: the owner is written to a private file first and
 * then hard-linked to the lock name (atomic, fails if the lock exists). A holder killed at any
 * point therefore never leaves a lock without an owner, which waiters could only break by age.
 */
function tryCreate(lockPath: string, owner: LockOwner): boolean {
  const draft = `${lockPath}.draft-${owner.nonce}`;
  const fd = openSync(draft, constants.O_CREAT | constants.O_TRUNC | constants.O_WRONLY, 0o644);
  try {
    writeSync(fd, JSON.stringify(owner));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, lockPath);
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    throw err;
  } finally {
    try {
      unlinkSync(draft);
    } catch {
      // already gone
    }
  }
}

function readOwner(path: string): LockOwner | null {
  try {
    // A lock file holds a pid, host and time; a large or deep one is not Floe's, so unreadable.
    return parseJson(readFileSync(path), path, { maxBytes: 64 * 1024, maxDepth: 4, exactIntegers: false }) as unknown as LockOwner;
  } catch {
    return null; // missing, or unreadable
  }
}

function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return isErrno(err, 'ESRCH');
  }
}

/** True when the lock at `lockPath` looks abandoned. */
function isStale(lockPath: string, staleMs: number, nowMs: number): LockOwner | null | false {
  let ageMs: number;
  try {
    ageMs = nowMs - statSync(lockPath).mtimeMs;
  } catch {
    return false; // released meanwhile
  }
  const owner = readOwner(lockPath);
  if (ageMs > staleMs) return owner;
  if (owner && owner.host === HOST && owner.pid !== process.pid && processIsGone(owner.pid)) return owner;
  return false;
}

/**
 * Moves an abandoned lock aside. Renaming is atomic, so of several waiters only one moves it;
 * if the file it moved is not the one judged stale (re-taken meanwhile), it is put back.
 */
function breakLock(lockPath: string, judged: LockOwner | null): void {
  const aside = `${lockPath}.stale-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // someone else broke or released it
  }
  const moved = readOwner(aside);
  if (judged && moved && moved.nonce !== judged.nonce) {
    try {
      renameSync(aside, lockPath); // a live holder's lock: restore it
      return;
    } catch {
      // fall through: nothing better to do than drop it
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/**
 * Runs `action` while holding the lock file `lockPath`; the directory must exist. `clock` times
 * the wait and judges staleness against the lock file's mtime. A `signal` that fires while
 * waiting ends the wait with ABORTED (at once: the poll's sleep is abortable). `shownAs` is the
 * lock's path in messages (the backend acts through /proc/self/fd paths, which mean nothing to a user).
 */
export async function withFileLock<T>(
  lockPath: string,
  action: () => Promise<T> | T,
  options: FileLockOptions = {},
  clock: Clock = systemClock,
  signal?: AbortSignal,
  shownAs: string = lockPath,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const owner: LockOwner = { pid: process.pid, host: HOST, nonce: randomBytes(8).toString('hex') };
  const deadline = clock.nowMs() + timeoutMs;
  let delayMs = 1;
  while (!tryCreate(lockPath, owner)) {
    throwIfAborted(signal, shownAs);
    const stale = isStale(lockPath, staleMs, clock.nowMs());
    if (stale !== false) {
      breakLock(lockPath, stale);
      continue;
    }
    if (clock.nowMs() > deadline) {
      throw floeError('TIMEOUT', `could not lock ${shownAs} within ${timeoutMs} ms; if no Floe process uses it, delete the lock file`, {
        where: shownAs,
      });
    }
    await sleepAbortably(clock, delayMs * (0.5 + Math.random()), signal, shownAs);
    delayMs = Math.min(delayMs * 2, 50);
  }
  try {
    return await action();
  } finally {
    try {
      unlinkSync(lockPath);
    } catch {
      // broken by a waiter who judged us stale; nothing to release
    }
  }
}
