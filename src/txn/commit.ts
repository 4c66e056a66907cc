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
// Between attempts the commit waits (retry-policy.ts: the more rounds it lost, the sooner it
// retries) while it already loads the transaction logs and snapshots of the commits it will
// rebase over and the manifests the next attempt will read, so the retry reaches its
// compare-and-swap soon after it read the tip. A lost round costs one request to learn the new
// tip: the repo-info GET that follows the failed swap (repo-info-store.ts), whose decoded file
// then travels with the CONFLICT (`BranchMoved.info`) to the rebase instead of being read again,
// and the retry swaps against it without a HEAD first (`reuseKept`). Nothing read ahead decides
// anything: the swap's `ifMatch` does, so a commit that landed meanwhile makes the retry lose its
// swap, never land on a stale base. A retry after one lost round costs 9 requests
// (test/txn/commit-rounds.test.ts), 12 before.
//
// Commit keys (issue 29): every commit and amend records one in its snapshot's metadata
// (`floe_commit_key`, the caller's `commitKey` or a random UUID). The change function first looks
// for the key among the branch's newest snapshots: found, the commit returns that snapshot and
// writes no ref, so a caller's retry after COMMIT_OUTCOME_UNKNOWN (the swap's answer lost and not
// settled by a read: repo-info-store.ts) never commits twice.
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
import { idsEqual, idToString, newSnapshotId, parseSnapshotId, type ManifestId, type NodeId, type SnapshotId } from '../format/icechunk/ids.ts';
import { sortMetadata, type MetadataItem, type MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { RepoInfo, SnapshotInfo } from '../format/icechunk/repo-info.ts';
import type { TransactionLog } from '../format/icechunk/transaction-log.ts';
import type { ChangeSet } from './change-set.ts';
import { buildCommit, type BuildCommitInput } from './commit-builder.ts';
import type { ConflictSolver } from './conflicts/solver.ts';
import { COMMIT_KEY_METADATA, findCommitByKey } from './commit-keys.ts';
import { ancestors } from './history.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { addCommit, addDetachedSnapshot, amendCommit, branchTip, findSnapshotInfo } from './refs.ts';
import type { RepoInfoStore, RepoUpdateOptions } from './repo-info-store.ts';
import { retryDelayMs, type RetryBackoff } from './retry-policy.ts';

export type { RetryBackoff } from './retry-policy.ts';

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
  /** Waits between attempts: shorter the more rounds the commit already lost (retry-policy.ts). */
  retryBackoff?: RetryBackoff;
  /**
   * The commit's idempotency key (a non-empty string; default: a random UUID), recorded in the
   * snapshot's metadata as `floe_commit_key`. A commit or amend whose key is already among the
   * branch's newest 1000 snapshots writes nothing and returns that snapshot; `repo.lookupCommit`
   * finds it after a COMMIT_OUTCOME_UNKNOWN (docs/transactions.md). Flushes record none.
   */
  commitKey?: string;
}

/** What `onBranchMoved` learns when the branch moved. */
export interface BranchMoved {
  branch: string;
  expected: SnapshotId;
  current: SnapshotId;
  error: FloeError<'CONFLICT'>;
  /**
   * The repo info in which the branch was found at `current` (read by the lost compare-and-swap's
   * retry), so a rebase onto `current` need not read it again. Absent when the CONFLICT came
   * from elsewhere.
   */
  info?: RepoInfo;
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
  const key = commitKeyOf(kind, options);
  const { commitKey: _given, ...rest } = options;
  const keyed: CommitOptions = key === undefined ? rest : { ...rest, commitKey: key };
  const tries = Math.max(1, options.rebaseTries ?? (options.rebaseWith ? 1000 : 5));
  const signal = options.signal;
  const request = signal ? { signal } : undefined;
  for (let attempt = 1; ; attempt++) {
    const startedMs = target.clock.nowMs();
    const seen: SeenRepoInfo = {};
    try {
      return await commitOnce(target, kind, message, keyed, request, seen, attempt > 1);
    } catch (err) {
      const moved = branchMovedOf(err, seen.info);
      if (!moved || !onBranchMoved || attempt >= tries) throw err;
      const lost = { attempt, attemptMs: target.clock.nowMs() - startedMs };
      const warming = warmForRetry(target, moved, request);
      try {
        await sleepAbortably(target.clock, retryDelayMs(lost, options.retryBackoff), signal, moved.branch);
        if (!(await onBranchMoved(moved, request))) throw err;
      } finally {
        await warming; // never rejects; awaited so no load outlives the commit
      }
    }
  }
}

/** The repo info the last run of a commit's change function was given (see BranchMoved.info). */
interface SeenRepoInfo {
  info?: RepoInfo;
}

/**
 * Loads, into the repository's caches, what the rebase onto the new tip and the next attempt
 * read: the transaction logs and snapshots of the commits landed since our base, oldest first (at
 * most `concurrency` of them; with `moved.info`), the tip's snapshot, and for the arrays this
 * session changed the manifests the tip has that our base has not (the other commits rewrote
 * them), at most `concurrency` of them. It runs during the backoff, so those reads are done or in
 * flight (single-flight caches) when the retry needs them. All are immutable objects named by id.
 * Its failures are dropped: the rebase loads the same objects and reports what went wrong.
 */
async function warmForRetry(target: CommitTarget, moved: BranchMoved, request: AbortOptions | undefined): Promise<void> {
  const width = Math.max(1, target.concurrency);
  const landed = moved.info ? (commitsSince(moved.info, target.base().snapshot.id, moved.current) ?? []).slice(0, width) : [];
  const logs = landed.map((id) => target.objects.loadTransactionLog(id, request).catch(() => undefined));
  const snapshots = landed.filter((id) => !idsEqual(id, moved.current)).map((id) => target.objects.loadSnapshot(id, request).catch(() => undefined));
  try {
    const { snapshot } = await target.objects.loadSnapshot(moved.current, request);
    const changes = target.changes();
    const known = new Set(target.base().snapshot.manifestFiles.map((f) => idToString(f.id)));
    const wanted: ManifestId[] = [];
    for (const node of snapshot.nodes) {
      if (node.nodeData.kind !== 'array' || !changes.chunkChangesOf(node.id)?.size) continue;
      for (const ref of node.nodeData.manifests) if (!known.has(idToString(ref.objectId))) wanted.push(ref.objectId);
    }
    await Promise.all(wanted.slice(0, width).map((id) => target.objects.loadManifest(id, request)));
  } catch {
    // see above: the rebase's own loads report it
  } finally {
    await Promise.all([...logs, ...snapshots]);
  }
}

/**
 * The commits from `base` (excluded) to `tip` (included) in `info`, oldest first; undefined when
 * `base` is not an ancestor of `tip` there (a reset branch).
 */
export function commitsSince(info: RepoInfo, base: SnapshotId, tip: SnapshotId): SnapshotId[] | undefined {
  const newestFirst: SnapshotId[] = [];
  for (const s of ancestors(info, tip)) {
    if (idsEqual(s.id, base)) return newestFirst.reverse();
    newestFirst.push(s.id);
  }
  return undefined;
}

function branchMovedOf(err: unknown, info: RepoInfo | undefined): BranchMoved | undefined {
  if (!isFloeError(err, 'CONFLICT')) return undefined;
  const d = err.details;
  // A deleted branch (currentSnapshotId null) has no tip to rebase onto.
  if (d.kind !== 'branch-moved' || d.currentSnapshotId === null) return undefined;
  const moved: BranchMoved = { branch: d.branch, expected: parseId(d.expectedSnapshotId), current: parseId(d.currentSnapshotId), error: err };
  // Only the file that showed this very tip (the change function threw on it) may stand in for a read.
  if (info && tipIs(info, d.branch, moved.current)) moved.info = info;
  return moved;
}

function tipIs(info: RepoInfo, branch: string, id: SnapshotId): boolean {
  const ref = info.branches.find((b) => b.name === branch);
  return ref !== undefined && idsEqual(ref.snapshotId, id);
}

const parseId = (text: string): SnapshotId => parseSnapshotId(text);

/** The key a commit records: the caller's, else a fresh one; none for a flush. */
function commitKeyOf(kind: CommitKind, options: CommitOptions): string | undefined {
  const given = options.commitKey ?? options.metadata?.[COMMIT_KEY_METADATA];
  if (given !== undefined && (typeof given !== 'string' || given === '')) {
    throw floeError('INVALID_ARGUMENT', `a commit key must be a non-empty string, got ${JSON.stringify(String(given))}`);
  }
  const inMetadata = options.metadata?.[COMMIT_KEY_METADATA];
  if (options.commitKey !== undefined && inMetadata !== undefined && inMetadata !== options.commitKey) {
    throw floeError('INVALID_ARGUMENT', `metadata.${COMMIT_KEY_METADATA} differs from commitKey; pass the key once`);
  }
  if (kind.kind === 'flush') return undefined;
  return given ?? globalThis.crypto.randomUUID();
}

/** Thrown by a commit's change function when its key is on the branch already: that snapshot is the result. */
class AlreadyCommitted extends Error {
  constructor(readonly snapshot: SnapshotInfo) {
    super('a snapshot with this commit key is on the branch');
  }
}

async function commitOnce(
  target: CommitTarget, kind: CommitKind, message: string, options: CommitOptions, request: AbortOptions | undefined, seen: SeenRepoInfo,
  retrying: boolean,
): Promise<CommitResult> {
  throwIfAborted(request?.signal);
  const base = target.base();
  const changes = target.changes();
  const snapshotId = newSnapshotId();
  const flushedAt = Math.floor(target.clock.nowMs() * 1000);
  const key = options.commitKey;
  const entries = { ...options.metadata, ...(key !== undefined ? { [COMMIT_KEY_METADATA]: key } : {}) };
  const metadata: MetadataItem[] = sortMetadata(Object.entries(entries).map(([name, value]) => ({ name, value })));
  // The repo info's read and backup run beside the object writes: none of them is reachable before
  // the swap. A retry takes the copy its lost round just read (no HEAD): if yet another commit
  // landed meanwhile, the swap fails and the next round starts, as a HEAD would have said.
  const preparing = target.repoInfo.prepareUpdate(retrying ? { ...request, reuseKept: true } : request);
  const written = writeCommitObjects(target, kind, { base, changes, snapshotId, message, metadata, flushedAt }, request);
  const [loaded, prepared] = await allSettledOrThrow(written, preparing);
  const info = (parentId: SnapshotId | null): SnapshotInfo => ({ id: snapshotId, parentId, flushedAt, message, metadata });
  const branch = kind.kind === 'flush' ? null : kind.branch;
  const outcomeUnknown = (cause: unknown) => floeError('COMMIT_OUTCOME_UNKNOWN',
    `the commit's final swap of the repo info may or may not have happened (its answer was lost); look it up with lookupCommit(${JSON.stringify(key ?? null)}) or commit again with the same commitKey`,
    { where: idToString(snapshotId), cause, details: { snapshotId: idToString(snapshotId), commitKey: key ?? null, branch } });
  try {
    await swapRepoInfo(target, kind, base, key, info, seen, { ...request, prepared, outcomeUnknown, landed: (current) => findSnapshotInfo(current, snapshotId) !== undefined });
  } catch (err) {
    if (!(err instanceof AlreadyCommitted)) throw err;
    return { snapshot: await target.objects.loadSnapshot(err.snapshot.id, request) };
  }
  return { snapshot: loaded };
}

/** The commit's last step: the repo-info change that makes the snapshot reachable, unless its key already did. */
function swapRepoInfo(
  target: CommitTarget, kind: CommitKind, base: LoadedSnapshot, key: string | undefined, info: (parentId: SnapshotId | null) => SnapshotInfo, seen: SeenRepoInfo,
  options: RepoUpdateOptions,
): Promise<RepoInfo> {
  return target.repoInfo.update((current) => {
    seen.info = current;
    if (kind.kind !== 'flush' && key !== undefined) {
      const earlier = findCommitByKey(current, branchTip(current, kind.branch), key).found;
      if (earlier) throw new AlreadyCommitted(earlier);
    }
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
  }, options);
}

type CommitContent = Pick<BuildCommitInput, 'base' | 'changes' | 'snapshotId' | 'message' | 'metadata' | 'flushedAt'>;

/** Manifests, then transaction log and snapshot: every object of the commit, none reachable yet. */
async function writeCommitObjects(target: CommitTarget, kind: CommitKind, content: CommitContent, request: AbortOptions | undefined): Promise<LoadedSnapshot> {
  const { base, snapshotId } = content;
  const built = await buildCommit({
    objects: target.objects, ...content, manifestConfig: target.manifestConfig, concurrency: target.concurrency, request,
  });
  let log = built.transactionLog;
  if (kind.kind === 'amend') {
    const previous = await target.objects.loadTransactionLog(base.snapshot.id, request);
    if (previous) log = mergeTransactionLogs(snapshotId, previous, log);
  }
  // Both before the repo-info update, in either order: neither is reachable until it lands.
  const [, loaded] = await allSettledOrThrow(target.objects.writeTransactionLog(log, request), target.objects.writeSnapshot(built.snapshot, request));
  return loaded;
}

/** Both results once both settled (no write still running when the commit throws), else the first error. */
async function allSettledOrThrow<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
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
