// Garbage collection: mark what refs (and recent writers) need, drop the rest of the snapshot list
// by compare-and-swap, then sweep the object prefixes deleting what is unmarked AND older than the
// grace cutoff. The sweep is incremental: `run({ maxObjects, maxMs })` stops after a budget and
// returns a plain-data cursor; `GarbageCollection.start(..., { cursor })` resumes it (in this or
// another process). docs/maintenance.md gives the safety argument. A signal (`GcOptions.signal`
// for the mark, `run(budget, { signal })` for a sweep step) stops it with ABORTED; the cursor a
// stopped step leaves is still valid (objects it counted may not all be deleted: a later run
// finds them again).
import { floeError, isFloeError } from '../../errors.ts';
import { throwIfAborted } from '../../engine/abort.ts';
import type { Clock } from '../../engine/storage/clock.ts';
import type { AbortOptions, ObjectInfo } from '../../engine/storage/types.ts';
import { ID12_LENGTH, idToString } from '../../format/icechunk/ids.ts';
import { idFromKey, PREFIXES } from '../../format/icechunk/keys.ts';
import type { RepoInfo } from '../../format/icechunk/repo-info.ts';
import type { RepoObjects } from '../objects.ts';
import type { RepoInfoStore } from '../repo-info-store.ts';
import type { LiveSet } from './gc-mark.ts';

// The marking code (and the ops-log walk it uses) loads when a collection starts: the class is
// public, so this module loads with the package, but few programs ever collect garbage.
const marking = () => import('./gc-mark.ts');

/** What GC deletes, in sweep order: snapshots before what they point at, as the reference does. */
export const GC_KINDS = ['snapshots', 'transactionLogs', 'manifests', 'chunks', 'backups'] as const;
/** The kinds of objects garbage collection deletes. */
export type GcKind = (typeof GC_KINDS)[number];

const PREFIX_OF: Record<GcKind, string> = {
  snapshots: PREFIXES.snapshots,
  transactionLogs: PREFIXES.transactions,
  manifests: PREFIXES.manifests,
  chunks: PREFIXES.chunks,
  backups: PREFIXES.overwritten,
};

/** Only keys this repository's layout produces are ever deleted; anything else under a prefix is left alone. */
function isRepositoryObject(kind: GcKind, key: string): boolean {
  if (kind === 'backups') return /^overwritten\/repo\.\d{14}\.[0-9A-Z]{20}$/.test(key);
  const prefix = PREFIX_OF[kind] as typeof PREFIXES.snapshots;
  return idFromKey(prefix, key)?.length === ID12_LENGTH;
}

/** Objects and bytes of one {@link GcKind}. */
export interface KindTotals {
  objects: number;
  bytes: number;
}

/** What garbage collection deleted (or, in a dry run, would delete). */
export interface GcSummary {
  /** Objects listed and examined so far. */
  scanned: number;
  /** Deleted (or, in a dry run, to be deleted) per kind. */
  deleted: Record<GcKind, KindTotals>;
  /** Dry runs only: the keys that would be deleted. */
  wouldDelete?: string[];
  /** Snapshots dropped from the repo info list by this run's compare-and-swap. */
  snapshotsDroppedFromRepoInfo: number;
  /** False when the ops-log chain was broken, so no backup was deleted. */
  backupsSwept: boolean;
}

/**
 * Options of {@link Repository.garbageCollect} and {@link GarbageCollection}; `signal` cancels the
 * mark (and, for `garbageCollect`, the whole run) with `ABORTED`.
 */
export interface GcOptions extends AbortOptions {
  /** Count and list, delete nothing, write nothing. Default false. */
  dryRun?: boolean;
  /** Delete batches (of up to `deleteBatchSize` keys) in flight at once. Default 4. */
  maxConcurrentDeletes?: number;
  /**
   * @internal Keys per delete request. Default 1,000 (the most one S3 DeleteObjects call takes);
   * tests set it small to exercise batching and the in-flight cap on a few objects.
   */
  deleteBatchSize?: number;
  /** Snapshot / manifest loads in flight during marking. Default 16. */
  markConcurrency?: number;
  /** Resume a run from the cursor an earlier `run` returned (the cutoff is taken from it). */
  cursor?: GcCursor;
  /**
   * Accept a cutoff closer to now than {@link GC_MINIMUM_GRACE_MS}. Only safe when no writer is
   * active (a commit in flight writes its chunks and manifests before its snapshot is referenced).
   * Default false.
   */
  allowShortGrace?: boolean;
}

/**
 * The smallest grace period (now minus the cutoff) garbage collection accepts without
 * `allowShortGrace`: one hour. A commit in flight has objects newer than any snapshot that refs
 * reach; a 300 ms grace deleted them and broke a branch tip under concurrent writers.
 */
export const GC_MINIMUM_GRACE_MS = 60 * 60 * 1000;

/** A budget for one `run`: stop after this many listed objects or this much time (whichever first). */
export interface GcBudget {
  maxObjects?: number;
  maxMs?: number;
}

/** Where a run stands; plain JSON, safe to persist between processes. */
export interface GcCursor {
  version: 1;
  cutoffMs: number;
  dryRun: boolean;
  /** The kind being swept, or 'done'. */
  phase: GcKind | 'done';
  /** Last key examined in `phase`; the listing resumes after it. */
  startAfter: string | null;
  summary: GcSummary;
}

/**
 * What one {@link GarbageCollection.run} step did: whether the sweep is done, the cursor that
 * resumes it, and the running totals.
 */
export interface GcStepResult {
  done: boolean;
  cursor: GcCursor;
  summary: GcSummary;
}

function requireMinimumGrace(graceMs: number): void {
  if (graceMs >= GC_MINIMUM_GRACE_MS) return;
  throw floeError(
    'INVALID_ARGUMENT',
    `the GC grace period (now minus the cutoff) is ${formatDuration(graceMs)}, below the minimum of ${formatDuration(GC_MINIMUM_GRACE_MS)}: ` +
      'a commit in flight has written chunks and manifests that no snapshot references yet, and a short grace deletes them ' +
      '(a 300 ms grace broke a branch tip under concurrent writers). Pass a cutoff at least that far in the past, ' +
      'or allowShortGrace: true when no writer can be active',
  );
}

function formatDuration(ms: number): string {
  if (ms >= 60 * 60 * 1000 && ms % (60 * 60 * 1000) === 0) return `${ms / (60 * 60 * 1000)} h`;
  if (ms >= 1000) return `${ms / 1000} s`;
  return `${ms} ms`;
}

export interface GcDeps {
  /** A GC-private object loader, so marking does not evict the repository's caches. */
  objects: RepoObjects;
  store: RepoInfoStore;
  clock: Clock;
}

const DELETE_BATCH = 1000;
const MARK_ATTEMPTS = 8;

const emptySummary = (): GcSummary => ({
  scanned: 0,
  deleted: Object.fromEntries(GC_KINDS.map((k) => [k, { objects: 0, bytes: 0 }])) as Record<GcKind, KindTotals>,
  snapshotsDroppedFromRepoInfo: 0,
  backupsSwept: true,
});

/**
 * Incremental garbage collection: marks what refs need, then sweeps unmarked objects older than a
 * cutoff. `run()` stops after a budget and returns a plain-data cursor that resumes the sweep in this
 * or another process (`cursor` option). Throws `INVALID_ARGUMENT` for a cutoff in the future.
 */
export class GarbageCollection {
  private constructor(
    private readonly deps: GcDeps,
    private readonly live: LiveSet,
    private cursor: GcCursor,
    private readonly maxConcurrentDeletes: number,
    private readonly markConcurrency: number,
    private readonly deleteBatchSize: number,
  ) {}

  /** Marks (and, unless a dry run, drops unneeded snapshots from the repo info list). */
  static async start(deps: GcDeps, deleteObjectsOlderThan: Date, options: GcOptions = {}): Promise<GarbageCollection> {
    const cutoffMs = options.cursor?.cutoffMs ?? deleteObjectsOlderThan.getTime();
    if (!Number.isFinite(cutoffMs)) throw floeError('INVALID_ARGUMENT', 'garbageCollect needs a valid Date as its cutoff');
    if (cutoffMs > deps.clock.nowMs()) {
      throw floeError('INVALID_ARGUMENT', 'the GC cutoff is in the future: objects being written right now would be deleted; pass a time in the past');
    }
    if (options.allowShortGrace !== true) requireMinimumGrace(deps.clock.nowMs() - cutoffMs);
    const maxConcurrentDeletes = positive(options.maxConcurrentDeletes ?? 4, 'maxConcurrentDeletes');
    const markConcurrency = positive(options.markConcurrency ?? 16, 'markConcurrency');
    const deleteBatchSize = positive(options.deleteBatchSize ?? DELETE_BATCH, 'deleteBatchSize');
    const dryRun = options.cursor?.dryRun ?? options.dryRun ?? false;
    const cursor: GcCursor = options.cursor
      ? structuredClone(options.cursor)
      : { version: 1, cutoffMs, dryRun, phase: GC_KINDS[0], startAfter: null, summary: { ...emptySummary(), ...(dryRun ? { wouldDelete: [] } : {}) } };
    const request = options.signal ? { signal: options.signal } : undefined;
    for (let attempt = 0; attempt < MARK_ATTEMPTS; attempt++) {
      const marked = await markOnce(deps, cutoffMs, markConcurrency, dryRun, request);
      if (!marked) continue; // the repository changed under the mark in a way that needs a fresh one
      cursor.summary.snapshotsDroppedFromRepoInfo += marked.dropped;
      cursor.summary.backupsSwept = marked.live.backupsComplete;
      return new GarbageCollection(deps, marked.live, cursor, maxConcurrentDeletes, markConcurrency, deleteBatchSize);
    }
    throw floeError('CONFLICT', `garbage collection could not mark a stable view of the repository in ${MARK_ATTEMPTS} attempts; retry later`, {
      details: { kind: 'gc-mark-unstable' },
    });
  }

  get done(): boolean {
    return this.cursor.phase === 'done';
  }

  /**
   * Sweeps until done or the budget runs out; call again (or resume from the cursor) to go on.
   * `signal` stops the step with ABORTED; calling `run` again goes on from where it stopped.
   */
  async run(budget: GcBudget = {}, options?: AbortOptions): Promise<GcStepResult> {
    const startedMs = this.deps.clock.nowMs();
    const maxObjects = budget.maxObjects ?? Number.POSITIVE_INFINITY;
    const maxMs = budget.maxMs ?? Number.POSITIVE_INFINITY;
    const request = options?.signal ? { signal: options.signal } : undefined;
    let examined = 0;
    await this.markNewSnapshots(request);
    const { markBackups } = await marking();
    await markBackups(this.deps.objects, (await this.deps.store.read(request)).info, this.live, request);
    const deleter = new BatchDeleter(
      this.deps.objects, this.deleteBatchSize, this.maxConcurrentDeletes, this.cursor.dryRun, (batch) => this.confirmGarbage(batch, request), request,
    );
    try {
      while (this.cursor.phase !== 'done') {
        const kind = this.cursor.phase;
        if (kind === 'backups' && !this.live.backupsComplete) {
          this.advancePhase();
          continue;
        }
        const listing = { startAfter: this.cursor.startAfter ?? undefined, signal: request?.signal };
        let exhausted = false;
        for await (const object of this.deps.objects.storage.list(PREFIX_OF[kind], listing)) {
          examined++;
          this.cursor.summary.scanned++;
          this.cursor.startAfter = object.key;
          if (this.isGarbage(kind, object)) {
            await deleter.add({ kind, object });
          }
          if (examined >= maxObjects || this.deps.clock.nowMs() - startedMs >= maxMs) {
            exhausted = true;
            break;
          }
        }
        if (exhausted) break;
        this.advancePhase();
      }
    } finally {
      await deleter.flush();
    }
    throwIfAborted(request?.signal);
    if (this.done && !this.cursor.dryRun) await sweepCrashedWriterTempFiles(this.deps);
    return { done: this.done, cursor: structuredClone(this.cursor), summary: structuredClone(this.cursor.summary) };
  }

  /** Runs to the end; `signal` stops it (ABORTED). */
  async runToCompletion(options?: AbortOptions): Promise<GcSummary> {
    let result = await this.run({}, options);
    while (!result.done) result = await this.run({}, options);
    return result.summary;
  }

  private isGarbage(kind: GcKind, object: ObjectInfo): boolean {
    if (object.lastModified.getTime() >= this.cursor.cutoffMs) return false; // inside the grace period
    if (!isRepositoryObject(kind, object.key)) return false;
    return !this.live[kind].has(object.key);
  }

  /**
   * Last look before a batch goes: snapshots committed since the step began are marked now, so
   * a commit that landed while this batch was being listed keeps its objects. What is left
   * unprotected is a commit whose objects are older than the grace period and whose swap lands
   * after this check: the grace period must outlast any writer's commit (docs/maintenance.md).
   */
  private async confirmGarbage(batch: readonly Candidate[], request: AbortOptions | undefined): Promise<string[]> {
    await this.markNewSnapshots(request);
    const keys: string[] = [];
    for (const { kind, object } of batch) {
      if (this.live[kind].has(object.key)) continue;
      this.count(kind, object);
      keys.push(object.key);
    }
    return keys;
  }

  private count(kind: GcKind, object: ObjectInfo): void {
    const totals = this.cursor.summary.deleted[kind];
    totals.objects++;
    totals.bytes += object.size;
    this.cursor.summary.wouldDelete?.push(object.key);
  }

  private advancePhase(): void {
    const phase = this.cursor.phase;
    const next = phase === 'done' ? -1 : GC_KINDS.indexOf(phase) + 1;
    // An unknown phase (indexOf -1, so next 0) ends the run; past the last kind, GC_KINDS[next] is undefined: done.
    this.cursor.phase = next <= 0 ? 'done' : (GC_KINDS[next] ?? 'done');
    this.cursor.startAfter = null;
  }

  /**
   * Snapshots committed since the mark are in the list now: mark their contents too. (Their
   * parents were kept, or the compare-and-swap that dropped snapshots would have failed.)
   */
  private async markNewSnapshots(request: AbortOptions | undefined): Promise<void> {
    const { info } = await this.deps.store.read(request);
    const fresh = info.snapshots.filter((s) => !this.live.markedSnapshotIds.has(idToString(s.id))).map((s) => s.id);
    if (fresh.length > 0) await (await marking()).markSnapshots(this.deps.objects, fresh, this.live, this.markConcurrency, request);
  }
}

/** One mark: undefined when a concurrent change means the mark must start again. */
async function markOnce(
  deps: GcDeps, cutoffMs: number, concurrency: number, dryRun: boolean, request: AbortOptions | undefined,
): Promise<{ live: LiveSet; dropped: number } | undefined> {
  const { emptyLiveSet, markBackups, markSnapshots, snapshotsToKeep } = await marking();
  // List snapshot objects BEFORE reading the repo info: a snapshot committed in between is in
  // the list but not in the listing, and so counts as new (kept).
  const listed = new Map<string, ObjectInfo>();
  for await (const o of deps.objects.storage.list(PREFIXES.snapshots, request)) listed.set(o.key, o);
  const { info } = await deps.store.read(request);
  const keep = snapshotsToKeep(info, listed, cutoffMs);
  const live = emptyLiveSet();
  await markSnapshots(deps.objects, keep.values(), live, concurrency, request);
  const drop = new Set(info.snapshots.map((s) => idToString(s.id)).filter((id) => !keep.has(id)));
  let written = info;
  if (!dryRun) {
    try {
      written = await deps.store.update((current) => ({ info: dropSnapshots(current, drop), update: { kind: 'gcRan' } }), request);
    } catch (err) {
      if (isFloeError(err, 'CONFLICT') && err.details.kind === 'gc-mark-outdated') return undefined;
      throw err;
    }
  }
  // Snapshots committed between the mark and the swap are kept in the list: mark them too.
  const added = written.snapshots.filter((s) => !live.markedSnapshotIds.has(idToString(s.id)) && !drop.has(idToString(s.id)));
  if (added.length > 0) await markSnapshots(deps.objects, added.map((s) => s.id), live, concurrency, request);
  await markBackups(deps.objects, written, live, request);
  return { live, dropped: dryRun ? 0 : drop.size };
}

/**
 * The repo info without the dropped snapshots. Runs inside the compare-and-swap, so `current`
 * may be newer than the mark: a ref or a new snapshot pointing into the dropped set means the
 * mark is outdated (a branch was reset or created onto an old snapshot meanwhile).
 */
export function dropSnapshots(current: RepoInfo, drop: ReadonlySet<string>): RepoInfo {
  const outdated = (why: string) => floeError('CONFLICT', `the repository changed during GC marking (${why})`, { details: { kind: 'gc-mark-outdated' } });
  for (const ref of [...current.branches, ...current.tags]) {
    if (drop.has(idToString(ref.snapshotId))) throw outdated(`'${ref.name}' now points at a snapshot GC meant to drop`);
  }
  const snapshots = current.snapshots.filter((s) => !drop.has(idToString(s.id)));
  for (const s of snapshots) {
    if (s.parentId && drop.has(idToString(s.parentId))) throw outdated(`snapshot ${idToString(s.id)} was written on top of one GC meant to drop`);
  }
  return { ...current, snapshots };
}

interface Candidate {
  kind: GcKind;
  object: ObjectInfo;
}

/** Deletes candidates in batches (each confirmed just before it goes), at most `limit` in flight. */
class BatchDeleter {
  private batch: Candidate[] = [];
  private readonly inFlight: Promise<void>[] = [];

  constructor(
    private readonly objects: RepoObjects,
    private readonly batchSize: number,
    private readonly limit: number,
    private readonly dryRun: boolean,
    private readonly confirm: (batch: readonly Candidate[]) => Promise<string[]>,
    private readonly request: AbortOptions | undefined,
  ) {}

  async add(candidate: Candidate): Promise<void> {
    this.batch.push(candidate);
    if (this.batch.length >= this.batchSize) await this.send();
  }

  async flush(): Promise<void> {
    if (this.batch.length > 0) await this.send();
    await Promise.all(this.inFlight.splice(0));
  }

  private async send(): Promise<void> {
    const candidates = this.batch;
    this.batch = [];
    const keys = await this.confirm(candidates);
    if (this.dryRun || keys.length === 0) return;
    if (this.inFlight.length >= this.limit) await this.inFlight.shift();
    const deleting = this.objects.storage.delete(keys, this.request);
    this.inFlight.push(deleting);
    // Rejections surface at the next await above or in flush(); mark them handled meanwhile.
    deleting.catch(() => {});
  }
}

/** The fs backend's leftovers of crashed writers (temp files) age out with the same grace. */
async function sweepCrashedWriterTempFiles(deps: GcDeps): Promise<void> {
  const storage = deps.objects.storage as { sweepTempFiles?: (olderThanMs: number) => Promise<number> };
  // The backend's own age threshold (an hour), not the GC grace: a live writer's temp and lock files
  // must never look abandoned, and a short grace period would make them.
  if (typeof storage.sweepTempFiles === 'function') await storage.sweepTempFiles(3_600_000);
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw floeError('INVALID_ARGUMENT', `${name} must be a positive integer, got ${value}`);
  return value;
}
