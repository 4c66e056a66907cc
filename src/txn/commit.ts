// The commit sequence, in the order that makes it crash-safe: chunks (already written at `set`
// time), manifests, transaction log, snapshot — all new immutable objects under fresh ids — and
// only then the conditional repo-info update that makes the snapshot reachable. A crash before
// that last step leaves unreferenced objects (garbage for GC), never a branch pointing at a
// missing or partial snapshot.
//
// When the branch moved under the session, the repo-info change throws CONFLICT (branch-moved).
// `onBranchMoved` is the seam where rebase plugs in: it may patch the session onto the new tip
// and ask for another attempt; by default the CONFLICT reaches the caller.
//
// Cancellation (`options.signal`): every step up to the repo-info update takes the signal, and so
// do the backoff and rebase between attempts; the update checks it last before its
// compare-and-swap, which then runs to its end (repo-info-store.ts). So an aborted commit moved
// no branch: what it wrote is unreferenced garbage, the session keeps its changes and can commit
// again; a commit that returned is complete.
import { floeError, isFloeError, type FloeError } from '../errors.ts';
import { sleepAbortably, throwIfAborted } from '../engine/abort.ts';
import type { Clock } from '../engine/storage/clock.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { idsEqual, idToString, newSnapshotId, parseSnapshotId, type NodeId, type SnapshotId } from '../format/icechunk/ids.ts';
import { sortMetadata, type MetadataItem, type MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { SnapshotInfo } from '../format/icechunk/repo-info.ts';
import type { TransactionLog } from '../format/icechunk/transaction-log.ts';
import type { ChangeSet } from './change-set.ts';
import { buildCommit } from './commit-builder.ts';
import type { ConflictSolver } from './conflicts/solver.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { addCommit, addDetachedSnapshot, amendCommit, findSnapshotInfo } from './refs.ts';
import type { RepoInfoStore } from './repo-info-store.ts';

/** Options of {@link Session.commit} (and `amend`/`flush`); `signal` cancels it (`ABORTED`, branch unmoved). */
export interface CommitOptions extends AbortOptions {
  /** Snapshot properties (JSON values). */
  metadata?: Record<string, MetadataValue>;
  /** Commit even when the session has no changes. Default false. */
  allowEmpty?: boolean;
  /**
   * Rebase with this solver and retry when the branch moved (the reference's `rebaseWith`).
   * Without it a moved branch is a CONFLICT (unless the session's `onBranchMoved` handles it).
   */
  rebaseWith?: ConflictSolver;
  /** Commit attempts in all (the first plus retries after a rebase). Default 1000 with `rebaseWith`, else 5. */
  rebaseTries?: number;
  /** Jittered exponential backoff between attempts. */
  retryBackoff?: RetryBackoff;
}

/**
 * Waits between commit attempts: a random delay in [0, min(maxMs, initialMs * 2^(attempt-1))]
 * ("full jitter"). Writers that lost a race then retry at different times instead of together,
 * so N writers on disjoint chunks finish in about N rounds rather than colliding forever.
 */
export interface RetryBackoff {
  /** Default 2 ms. */
  initialMs?: number;
  /** Default 250 ms. */
  maxMs?: number;
  /** Injectable for tests; default Math.random. The waits run on the repository's clock. */
  random?: () => number;
}

export function backoffDelayMs(attempt: number, backoff: RetryBackoff = {}): number {
  const initial = backoff.initialMs ?? 2;
  const max = backoff.maxMs ?? 250;
  const ceiling = Math.min(max, initial * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  return (backoff.random ?? Math.random)() * ceiling;
}

/** What `onBranchMoved` learns when the branch moved. */
export interface BranchMoved {
  branch: string;
  expected: SnapshotId;
  current: SnapshotId;
  error: FloeError<'CONFLICT'>;
}

/** Returns true after moving the session onto `current` (rebase) to try again; `options` carry the commit's signal. */
export type BranchMovedHandler = (moved: BranchMoved, options?: AbortOptions) => Promise<boolean>;

export interface CommitTarget {
  objects: RepoObjects;
  repoInfo: RepoInfoStore;
  clock: Clock;
  /** Array manifests rewritten in parallel. */
  concurrency: number;
  manifestConfig: MetadataValue;
  /** Current base and changes; read again on every attempt (a rebase replaces them). */
  base(): LoadedSnapshot;
  changes(): ChangeSet;
}

export type CommitKind = { kind: 'commit'; branch: string } | { kind: 'amend'; branch: string } | { kind: 'flush' };

export interface CommitResult {
  snapshot: LoadedSnapshot;
}

export async function runCommit(
  target: CommitTarget,
  kind: CommitKind,
  message: string,
  options: CommitOptions = {},
  onBranchMoved?: BranchMovedHandler,
): Promise<CommitResult> {
  if (typeof message !== 'string') throw floeError('INVALID_ARGUMENT', 'a commit message must be a string');
  if (!options.allowEmpty && kind.kind !== 'amend' && target.changes().isEmpty) {
    throw floeError('INVALID_ARGUMENT', 'there are no changes to commit; pass allowEmpty: true to commit anyway', { details: { reason: 'no-changes' } });
  }
  const tries = Math.max(1, options.rebaseTries ?? (options.rebaseWith ? 1000 : 5));
  const signal = options.signal;
  const request = signal ? { signal } : undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await commitOnce(target, kind, message, options, request);
    } catch (err) {
      const moved = branchMovedOf(err);
      if (!moved || !onBranchMoved || attempt >= tries) throw err;
      await sleepAbortably(target.clock, backoffDelayMs(attempt, options.retryBackoff), signal, moved.branch);
      if (!(await onBranchMoved(moved, request))) throw err;
    }
  }
}

function branchMovedOf(err: unknown): BranchMoved | undefined {
  if (!isFloeError(err, 'CONFLICT')) return undefined;
  const d = err.details;
  // A deleted branch (currentSnapshotId null) has no tip to rebase onto.
  if (d.kind !== 'branch-moved' || d.currentSnapshotId === null) return undefined;
  return { branch: d.branch, expected: parseId(d.expectedSnapshotId), current: parseId(d.currentSnapshotId), error: err };
}

const parseId = (text: string): SnapshotId => parseSnapshotId(text);

async function commitOnce(
  target: CommitTarget, kind: CommitKind, message: string, options: CommitOptions, request: AbortOptions | undefined,
): Promise<CommitResult> {
  throwIfAborted(request?.signal);
  const base = target.base();
  const changes = target.changes();
  const snapshotId = newSnapshotId();
  const flushedAt = Math.floor(target.clock.nowMs() * 1000);
  const metadata: MetadataItem[] = sortMetadata(Object.entries(options.metadata ?? {}).map(([name, value]) => ({ name, value })));
  const built = await buildCommit({
    objects: target.objects, base, changes, snapshotId, message, metadata, flushedAt, manifestConfig: target.manifestConfig,
    concurrency: target.concurrency, request,
  });
  let log = built.transactionLog;
  if (kind.kind === 'amend') {
    const previous = await target.objects.loadTransactionLog(base.snapshot.id, request);
    if (previous) log = mergeTransactionLogs(snapshotId, previous, log);
  }
  await target.objects.writeTransactionLog(log, request);
  const loaded = await target.objects.writeSnapshot(built.snapshot, request);
  const info = (parentId: SnapshotId | null): SnapshotInfo => ({ id: snapshotId, parentId, flushedAt, message, metadata });
  await target.repoInfo.update((current) => {
    switch (kind.kind) {
      case 'commit':
        return addCommit(current, kind.branch, info(base.snapshot.id));
      case 'flush':
        return addDetachedSnapshot(current, info(base.snapshot.id));
      case 'amend': {
        const parent = findSnapshotInfo(current, base.snapshot.id)?.parentId;
        if (!parent) {
          throw floeError('INVALID_ARGUMENT', `snapshot ${idToString(base.snapshot.id)} has no parent; the first commit of a repository cannot be amended`);
        }
        return amendCommit(current, kind.branch, base.snapshot.id, info(parent));
      }
    }
  }, request);
  return { snapshot: loaded };
}

/**
 * The log of an amended commit covers both commits. A node created then deleted disappears; a
 * node both created and updated counts as created (the spec lists each node once).
 */
export function mergeTransactionLogs(id: SnapshotId, older: TransactionLog, newer: TransactionLog): TransactionLog {
  const key = (n: NodeId) => idToString(n);
  const union = (a: NodeId[], b: NodeId[]) => [...new Map([...a, ...b].map((n) => [key(n), n])).values()];
  const deletedGroups = union(older.deletedGroups, newer.deletedGroups);
  const deletedArrays = union(older.deletedArrays, newer.deletedArrays);
  const createdThenDeleted = new Set(
    [...older.newGroups, ...older.newArrays].filter((n) => [...deletedGroups, ...deletedArrays].some((d) => idsEqual(d, n))).map(key),
  );
  const gone = new Set([...deletedGroups, ...deletedArrays].map(key));
  const without = (ids: NodeId[], drop: Set<string>) => ids.filter((n) => !drop.has(key(n)));
  const newGroups = without(union(older.newGroups, newer.newGroups), gone);
  const newArrays = without(union(older.newArrays, newer.newArrays), gone);
  const created = new Set([...newGroups, ...newArrays].map(key));
  const chunks = new Map<string, { nodeId: NodeId; coords: Map<string, number[]> }>();
  for (const entry of [...older.updatedChunks, ...newer.updatedChunks]) {
    if (gone.has(key(entry.nodeId))) continue;
    let slot = chunks.get(key(entry.nodeId));
    if (!slot) chunks.set(key(entry.nodeId), (slot = { nodeId: entry.nodeId, coords: new Map() }));
    for (const c of entry.chunks) slot.coords.set(c.join(','), c);
  }
  const moves = new Map(older.movedNodes.map((m) => [key(m.nodeId), m]));
  for (const m of newer.movedNodes) {
    const before = moves.get(key(m.nodeId));
    moves.set(key(m.nodeId), before ? { ...m, from: before.from } : m);
  }
  return {
    specVersion: 2,
    id,
    newGroups,
    newArrays,
    deletedGroups: without(deletedGroups, createdThenDeleted),
    deletedArrays: without(deletedArrays, createdThenDeleted),
    updatedGroups: without(union(older.updatedGroups, newer.updatedGroups), new Set([...gone, ...created])),
    updatedArrays: without(union(older.updatedArrays, newer.updatedArrays), new Set([...gone, ...created])),
    updatedChunks: [...chunks.values()].map((s) => ({ nodeId: s.nodeId, chunks: [...s.coords.values()] })),
    movedNodes: [...moves.values()].filter((m) => m.from !== m.to && !gone.has(key(m.nodeId))),
  };
}
