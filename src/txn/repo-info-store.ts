// The one place the repo info file (`$ROOT/repo`) is read and changed. Every change is a
// compare-and-swap: read the file and its version, apply a pure change to the decoded object,
// back the old bytes up under `overwritten/`, append to the ops log, then write with `ifMatch`.
// A lost race re-reads (a GET: the failed swap already said the file changed) and re-applies the
// change (bounded); a change that no longer applies (a branch moved or vanished) throws from the
// change function and stops the loop.
//
// Cancellation: reads, the backup and the backoff between attempts take the caller's signal; the
// compare-and-swap itself does not. It is the point of no return of every repository change (a
// commit's last step), so the signal is checked just before it and the write then runs to its
// end: an aborted change has changed no ref, and one that returned was not half cancelled (over
// S3 an aborted conditional write could not tell whether it happened).
//
// A swap that failed in transport (after the storage's retries) may have happened. With `landed`
// (a commit), one read settles it where it can (`swap`); what stays unknown is reported as
// `outcomeUnknown` says (COMMIT_OUTCOME_UNKNOWN, docs/transactions.md, issue 29).
import { floeError, isFloeError } from '../errors.ts';
import { abortable, sleepAbortably, throwIfAborted, yieldDue, yieldToEventLoop } from '../engine/abort.ts';
import { systemClock, type Clock } from '../engine/storage/clock.ts';
import { bytesEqual } from '../format/bytes.ts';
import type { AbortOptions, ObjectStorage, VersionToken } from '../engine/storage/types.ts';
import { newSnapshotId } from '../format/icechunk/ids.ts';
import { overwrittenRepoKey, PREFIXES, REPO_INFO_KEY } from '../format/icechunk/keys.ts';
import { createOnce } from './objects.ts';
import { decodeRepoInfo, encodeRepoInfo, type OpsLogEntry, type RepoInfo, type RepoUpdate } from '../format/icechunk/repo-info.ts';

export interface RepoInfoState {
  info: RepoInfo;
  bytes: Uint8Array;
  version: VersionToken;
}

/** What a change function returns: the new object and the ops-log entry describing it. */
export interface RepoChange {
  info: RepoInfo;
  update: RepoUpdate;
}

export type ChangeFunction = (current: RepoInfo) => RepoChange | Promise<RepoChange>;

export interface RepoInfoStoreOptions {
  /** Timestamps and backup key order, and the backoff's waits. Default: the system clock. */
  clock?: Clock;
  /** Compare-and-swap attempts before giving up. */
  retries: number;
  /** Ops-log entries kept in the file; older ones stay reachable through `repo_before_updates`. */
  updatesPerFile: number;
  /**
   * Wait between attempts; ends early (rejecting) when `signal` fires. Default: a jittered
   * exponential delay on the clock.
   */
  backoff?: (attempt: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of {@link RepoInfoStore.update}. */
export interface RepoUpdateOptions extends AbortOptions {
  /**
   * Swap against the kept copy without revalidating it first (no HEAD): for a caller that has just
   * read the file (a commit retrying after a lost round). A stale copy costs a lost swap and the
   * usual re-read, never a write over a change it did not see: the swap's `ifMatch` decides.
   */
  reuseKept?: boolean;
  /** The first round's read and backup, done by {@link RepoInfoStore.prepareUpdate} beforehand. */
  prepared?: PreparedUpdate;
  /**
   * Whether a file read after a lost swap already holds this change: the swap landed, only its
   * answer was lost (a commit asks whether its fresh snapshot id is there). `update` then returns
   * that file instead of applying the change a second time.
   */
  landed?: (info: RepoInfo) => boolean;
  /**
   * The error for a swap whose outcome stayed unknown (see {@link RepoInfoStore.update}); default:
   * the swap's own error. A commit makes it COMMIT_OUTCOME_UNKNOWN.
   */
  outcomeUnknown?: (cause: unknown) => Error;
}

/** A repo info update's first round begun early: the file it will swap against, already backed up. */
export interface PreparedUpdate {
  readonly current: RepoInfoState;
  readonly backupKey: string;
  readonly nowMs: number;
}

/** Full jitter up to 2^attempt ms, at most 200 ms. */
const backoffDelayMs = (attempt: number): number => Math.min(200, 2 ** Math.min(attempt, 7)) * Math.random();

export interface RepoInfoCacheStats {
  reads: number;
  /** Reads answered by the kept copy after a HEAD showed the same version. */
  unchanged: number;
  /** Reads that downloaded the file. */
  fetched: number;
  /** Downloads that were decoded (a changed version). */
  decoded: number;
  /** Size of the kept file. */
  bytes: number;
}

export class RepoInfoStore {
  private readonly clock: Clock;
  private readonly backoff: (attempt: number, signal?: AbortSignal) => Promise<void>;
  private last: RepoInfoState | undefined;
  private readonly counters = { reads: 0, unchanged: 0, fetched: 0, decoded: 0 };

  constructor(
    private readonly storage: ObjectStorage,
    private readonly options: RepoInfoStoreOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.backoff = options.backoff ?? ((attempt, signal) => sleepAbortably(this.clock, backoffDelayMs(attempt), signal, REPO_INFO_KEY));
  }

  /**
   * The current repo info; NOT_FOUND when the storage holds no repository. The file is mutable,
   * so a kept copy is revalidated by version: a HEAD, and a GET only when the version changed.
   */
  async read(options?: AbortOptions): Promise<RepoInfoState> {
    this.counters.reads++;
    if (this.last && (await this.currentVersion(options)) === this.last.version) {
      this.counters.unchanged++;
      return this.last;
    }
    return this.fetch(options);
  }

  /** Downloads the file (a GET, no HEAD first): for when the kept copy is known to be stale. */
  private async fetch(options: AbortOptions | undefined): Promise<RepoInfoState> {
    const got = await this.storage.get(REPO_INFO_KEY, undefined, options);
    if (!got) throw missingRepoInfo();
    this.counters.fetched++;
    // Changed back between the HEAD and the GET (or a backend without versions in HEAD).
    if (this.last && this.last.version === got.version) return this.last;
    this.counters.decoded++;
    this.last = { info: decodeRepoInfo(got.bytes, REPO_INFO_KEY), bytes: got.bytes, version: got.version };
    return this.last;
  }

  /**
   * Keeps a state another store read (opening a repository reads the file before its options are
   * known): the next read revalidates it with a HEAD instead of downloading and decoding again.
   */
  adopt(state: RepoInfoState): void {
    this.last = state;
  }

  /** How reads were answered: revalidated unchanged, fetched, decoded; `bytes` of the kept file. */
  cacheStats(): RepoInfoCacheStats {
    return { ...this.counters, bytes: this.last?.bytes.byteLength ?? 0 };
  }

  private fetchAfterLostSwap(options: AbortOptions | undefined): Promise<RepoInfoState> {
    this.counters.reads++;
    return this.fetch(options);
  }

  private async currentVersion(options: AbortOptions | undefined): Promise<VersionToken | undefined> {
    const head = await this.storage.head(REPO_INFO_KEY, options);
    if (!head) throw missingRepoInfo();
    return head.version;
  }

  /** Writes the first repo info file; ALREADY_EXISTS when another one won. */
  async create(info: RepoInfo, options?: AbortOptions): Promise<void> {
    const bytes = encodeRepoInfo(info);
    throwIfAborted(options?.signal, REPO_INFO_KEY); // then, like update's swap, it runs to its end
    try {
      const { version } = await this.storage.put(REPO_INFO_KEY, bytes, { ifNoneMatch: '*' });
      this.last = { info, bytes, version };
    } catch (err) {
      if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
      // Our own create, landed by an attempt whose answer was lost, is this repository: keep it.
      const stored = await this.storage.get(REPO_INFO_KEY);
      if (stored && bytesEqual(stored.bytes, bytes)) {
        this.last = { info, bytes, version: stored.version };
        return;
      }
      throw floeError('ALREADY_EXISTS', 'a repository already exists here', { where: REPO_INFO_KEY, cause: err });
    }
  }

  /**
   * Reads the repo info (with `reuseKept`, takes the kept copy) and writes its backup, so that a
   * commit does both while it writes its own objects; `update(change, { prepared })` then starts
   * at the change and the swap. The spec's order holds: the backup exists before the swap.
   */
  async prepareUpdate(options?: RepoUpdateOptions): Promise<PreparedUpdate> {
    const current = (options?.reuseKept && this.last) || (await this.read(options));
    const nowMs = this.clock.nowMs();
    const backupKey = overwrittenRepoKey(nowMs, newSnapshotId());
    await createOnce(this.storage, backupKey, current.bytes, options);
    return { current, backupKey, nowMs };
  }

  /**
   * Applies `change` by compare-and-swap, retrying lost races; returns the written object. A
   * `signal` stops it (ABORTED) at any point before the swap, never during it (see the header).
   */
  async update(change: ChangeFunction, options?: RepoUpdateOptions): Promise<RepoInfo> {
    const signal = options?.signal;
    let lastError: unknown;
    for (let attempt = 0; attempt < this.options.retries; attempt++) {
      // abortable as well: a custom backoff may not watch the signal itself
      if (attempt > 0) await abortable(this.backoff(attempt, signal), signal, REPO_INFO_KEY);
      // After a lost swap the kept copy is stale for sure: a HEAD would only say so.
      const prepared = attempt === 0 ? options?.prepared : undefined;
      const current = prepared?.current ?? (attempt > 0 ? await this.fetchAfterLostSwap(options) : (options?.reuseKept && this.last) || (await this.read(options)));
      if (attempt > 0 && options?.landed?.(current.info)) return current.info;
      const { info, update } = await change(current.info);
      checkAvailability(current.info, update);
      const nowMs = prepared?.nowMs ?? this.clock.nowMs();
      const backupKey = prepared?.backupKey ?? overwrittenRepoKey(nowMs, newSnapshotId());
      const next = withOpsLogEntry(info, current.info, update, nowMs, backupKey.slice(PREFIXES.overwritten.length), this.options.updatesPerFile);
      const bytes = encodeRepoInfo(next);
      try {
        // The backup goes first: once the new file is visible, its ops log points at it.
        if (!prepared) await createOnce(this.storage, backupKey, current.bytes, { signal });
        if (yieldDue(signal)) await yieldToEventLoop(); // an abort pending in the event loop lands now
        throwIfAborted(signal, REPO_INFO_KEY);
        const { version } = await this.swap(bytes, current.version, options);
        this.last = { info: next, bytes, version };
        return next;
      } catch (err) {
        if (err instanceof SwapSettled) return err.info;
        if (!isFloeError(err, 'PRECONDITION_FAILED')) throw err;
        lastError = err;
      }
    }
    throw floeError('CONFLICT', `the repo info file kept changing; gave up after ${this.options.retries} attempts (raise repoUpdateRetries.default.maxTries)`, {
      where: REPO_INFO_KEY,
      cause: lastError,
      details: { kind: 'repo-update-retries-exhausted' },
    });
  }

  /**
   * The compare-and-swap. A failure other than a lost precondition may have happened on the
   * server (the answer was lost after the storage's retries), so one read settles what it can:
   * the change found there (`landed`) is a success (SwapSettled), a file at another version
   * without it means the swap failed for good (an `ifMatch` on the old version can no longer
   * land), a lost race like PRECONDITION_FAILED. A file still at the swapped version leaves the
   * outcome unknown: the write may still be in flight, so it is `outcomeUnknown`'s error.
   */
  private async swap(bytes: Uint8Array, expected: VersionToken, options: RepoUpdateOptions | undefined): Promise<{ version: VersionToken }> {
    try {
      return await this.storage.put(REPO_INFO_KEY, bytes, { ifMatch: expected });
    } catch (err) {
      // Without `landed` a read cannot tell our change from another's: the error as it came.
      if (isFloeError(err, 'PRECONDITION_FAILED') || !mayHaveHappened(err) || !options?.landed) throw err;
      const unknown = options.outcomeUnknown?.(err) ?? err;
      let after: RepoInfoState;
      try {
        after = await this.fetchAfterLostSwap(undefined); // no signal: the swap already ran
      } catch {
        throw unknown;
      }
      if (options.landed(after.info)) throw new SwapSettled(after.info);
      if (after.version !== expected) throw floeError('PRECONDITION_FAILED', 'the repo info changed under a swap whose answer was lost', { where: REPO_INFO_KEY, cause: err });
      throw unknown;
    }
  }
}

/** A swap whose answer was lost but whose change a read found in place: `update` returns `info`. */
class SwapSettled extends Error {
  constructor(readonly info: RepoInfo) {
    super('the swap landed');
  }
}

/**
 * Whether a failed write may still have happened: a transport failure, a timeout or an abort in
 * flight may hide a write the server applied; Floe's own refusals (a bad key, a read-only store)
 * happen before anything is sent.
 */
function mayHaveHappened(err: unknown): boolean {
  return !isFloeError(err) || isFloeError(err, 'STORAGE_ERROR', 'TIMEOUT', 'ABORTED');
}

function missingRepoInfo(): Error {
  return floeError('NOT_FOUND', 'no Icechunk repository here: the repo info file is missing', { where: REPO_INFO_KEY });
}

function checkAvailability(current: RepoInfo, update: RepoUpdate): void {
  if (current.status.availability === 'online' || update.kind === 'repoStatusChanged') return;
  const reason = current.status.limitedAvailabilityReason ? `: ${current.status.limitedAvailabilityReason}` : '';
  throw floeError('READ_ONLY', `the repository is ${current.status.availability}${reason}; change its status to write`, { where: REPO_INFO_KEY });
}

/**
 * Appends `update` to the ops log. The newest entry has no backup yet; the previous newest entry
 * gains the key of the backup that holds the file as that update left it (the reference's
 * layout). Past `limit` entries the oldest are dropped and `repo_before_updates` points at the
 * backup, which still lists them.
 */
export function withOpsLogEntry(info: RepoInfo, previous: RepoInfo, update: RepoUpdate, nowMs: number, backupName: string, limit: number): RepoInfo {
  const newest = previous.latestUpdates[0];
  const updatedAt = Math.max(Math.floor(nowMs * 1000), newest ? newest.updatedAt + 1 : 0);
  const older: OpsLogEntry[] = previous.latestUpdates.map((entry, i) => (i === 0 ? { ...entry, backupPath: backupName } : entry));
  let latestUpdates: OpsLogEntry[] = [{ update, updatedAt, backupPath: null }, ...older];
  let repoBeforeUpdates = previous.repoBeforeUpdates;
  if (latestUpdates.length > limit) {
    latestUpdates = latestUpdates.slice(0, limit);
    repoBeforeUpdates = backupName;
  }
  return { ...info, latestUpdates, repoBeforeUpdates };
}
