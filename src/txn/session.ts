// A session: a view of one snapshot, read-only or writable on a branch. A writable session
// collects changes in its ChangeSet (through `store` or its own methods) until commit, amend or
// flush turns them into a new snapshot. Names and shapes follow the reference's JS Session.
// Every method that reads or writes storage takes `{ signal }` in its options (ABORTED); an
// aborted commit leaves the branch where it was and the session's changes in place.
import type { ReadCaches } from '../cache/read-caches.ts';
import { floeError } from '../errors.ts';
import { throwIfAborted } from '../engine/abort.ts';
import type { CacheUse, ChunkLocation, ManifestPlanner, NodeInfo, ReadSource, StoredChunk } from '../engine/read-source.ts';
import type { Clock } from '../engine/storage/clock.ts';
import type { AbortOptions, ByteRange } from '../engine/storage/types.ts';
import { idsEqual, idToString, type ChunkId, type NodeId, type SnapshotId } from '../format/icechunk/ids.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { RepoInfo } from '../format/icechunk/repo-info.ts';
import { ChangeSet, copyChangeSet } from './change-set.ts';
import type { BranchMovedHandler, CommitKind, CommitOptions } from './commit.ts';
import { ConflictError } from './conflicts/conflict-error.ts';
import { ConflictDetector } from './conflicts/detector.ts';
import type { ConflictSolver } from './conflicts/solver.ts';
import { ChunkPacker, type ChunkPacking } from './chunk-packer.ts';
import { changeSetFromJSON, changeSetToJSON, FORK_FORMAT, mergeForkChanges, packsFromJSON, packsToJSON, parseForkJSON, type ForkJSON } from './fork.ts';
import type { ResolvedConfig } from './config.ts';
import { diffChangeSet, type DiffResult } from './history.ts';
import { moveSubtree, type WriteContext } from './node-ops.ts';
import { NodeView } from './node-view.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { requireFeature } from './refs.ts';
import type { RepoInfoStore } from './repo-info-store.ts';
import { SessionReader } from './session-reader.ts';
import { SessionStore, type StoreContext } from './session-store.ts';
import type { VirtualChunkAccess } from './virtual-chunks.ts';
import { viewVirtualLocations } from './virtual-locations.ts';

export interface SessionDeps {
  objects: RepoObjects;
  /** Undefined for repositories Floe opens read-only (spec 1). */
  repoInfo: RepoInfoStore | undefined;
  config: ResolvedConfig;
  virtual: VirtualChunkAccess;
  clock: Clock;
  /** Storage requests in flight when the session fans out over a list (RepositoryOptions.concurrency). */
  concurrency: number;
  /** How small chunks share objects (a Floe option, not stored in the repository). */
  packing: ChunkPacking;
}

/**
 * `rearrange`: a session that only moves nodes (the reference's rearrange session); Floe's
 * writable sessions may move nodes too, among other changes.
 */
export type SessionMode = 'readonly' | 'writable' | 'rearrange';

/**
 * The commit machinery (commit loop, builder, manifest splitting) is not part of `import 'floe'`:
 * a writable session starts loading it when it is made, so readers never load it and a commit
 * does not wait for it.
 */
let commitModule: Promise<typeof import('./commit.ts')> | undefined;
// Imported once and kept: an import() per session costs a module-map lookup (through the
// loader's hooks, when there are any), which 10,000 revived forks of one write felt.
const commitMachinery = () => (commitModule ??= import('./commit.ts'));

/**
 * What reviving a fork needs of a repository: a read-only session on a snapshot. (The Repository
 * satisfies it; naming only this keeps session.ts free of an import of repository.ts, which
 * imports this module to build sessions.)
 */
export interface SnapshotOpener {
  /** A read-only session on the snapshot with this id (base32). */
  readonlySession(options: { snapshotId: string } & AbortOptions): Promise<Session>;
}

/**
 * A view of one snapshot of a {@link Repository}, read-only or writable on a branch. A writable
 * session collects changes (through {@link Session.store}, a Zarr store, or its own methods) in its
 * {@link ChangeSet} until `commit`, `amend` or `flush` turns them into a new snapshot; if the branch
 * moved meanwhile, commit fails with `CONFLICT` unless it is asked to rebase.
 */
export class Session implements StoreContext, ReadSource {
  readonly changes = new ChangeSet();
  readonly packer: ChunkPacker;
  private base: LoadedSnapshot;
  private currentBranch: string | null;
  private currentMode: SessionMode;
  private cachedView: NodeView | undefined;
  private readonly sessionStore: SessionStore;
  private readonly reader: SessionReader;
  /** A fork writes but cannot commit: it is merged into a session on a branch. */
  private forked = false;
  /**
   * Seam for part 2: called when a commit finds its branch moved. It may rebase this session
   * onto `moved.current` (via `rebaseOnto`) and return true to retry the commit.
   */
  onBranchMoved: BranchMovedHandler | undefined;

  constructor(
    private readonly deps: SessionDeps,
    base: LoadedSnapshot,
    branch: string | null,
    mode: SessionMode,
  ) {
    this.base = base;
    this.currentBranch = branch;
    this.currentMode = mode;
    this.packer = new ChunkPacker(deps.objects, deps.packing);
    this.sessionStore = new SessionStore(this);
    this.reader = new SessionReader(this);
    // A failed load (it cannot fail short of a broken install) surfaces at commit, not here.
    if (mode !== 'readonly') commitMachinery().catch(() => undefined);
  }

  get objects(): RepoObjects {
    return this.deps.objects;
  }
  get virtual(): VirtualChunkAccess {
    return this.deps.virtual;
  }
  get concurrency(): number {
    return this.deps.concurrency;
  }
  get inlineThreshold(): number {
    return this.deps.config.inlineChunkThresholdBytes;
  }
  get readOnly(): boolean {
    return this.currentMode === 'readonly';
  }
  get mode(): SessionMode {
    return this.currentMode;
  }
  get snapshotId(): string {
    return idToString(this.base.snapshot.id);
  }
  get branch(): string | null {
    return this.currentBranch;
  }
  get isFork(): boolean {
    return this.forked;
  }
  get hasUncommittedChanges(): boolean {
    return !this.changes.isEmpty;
  }
  get store(): SessionStore {
    return this.sessionStore;
  }
  /** The snapshot this session reads (and commits on top of). */
  get baseSnapshot(): LoadedSnapshot {
    return this.base;
  }

  // ReadSource: the read seam (src/engine/read-source.ts), implemented in session-reader.ts.

  /** The node at `path` as this session sees it; undefined when there is none (read from memory). */
  async node(path: string, options?: AbortOptions): Promise<NodeInfo | undefined> {
    throwIfAborted(options?.signal, path);
    return this.reader.node(path);
  }
  /** The nodes directly under `path` (a group, or the root before it has a zarr.json), in node-path order. */
  async children(path: string, options?: AbortOptions): Promise<readonly NodeInfo[]> {
    throwIfAborted(options?.signal, path);
    return this.reader.children(path);
  }
  /** Where a chunk's bytes lie: inline, a native chunk object's byte range, or a virtual range. */
  locateChunk(path: string, coords: readonly number[], options?: AbortOptions): Promise<ChunkLocation> {
    return this.reader.locateChunk(path, coords, options);
  }
  /** Every chunk the array at `path` stores, uncommitted ones included, in grid order. */
  chunks(path: string, options?: AbortOptions): AsyncIterable<StoredChunk> {
    return this.reader.chunks(path, options);
  }
  /** For queries: loads the manifests a selection needs before its chunks are read. */
  get manifests(): ManifestPlanner {
    return this.reader.manifests;
  }
  /** For queries: cache entries are keyed by this session's snapshot. */
  get cacheScope(): string {
    return this.reader.cacheScope;
  }
  /** For queries: how the repository's read caches may be used now (see session-reader.ts). */
  get cacheUse(): CacheUse {
    return this.reader.cacheUse;
  }
  /** The repository's read caches, which queries on this session use by default. */
  get caches(): ReadCaches {
    return this.reader.caches;
  }

  /** A native chunk's bytes: from this session's unwritten packs, else from storage. */
  async readChunk(chunkId: ChunkId, range: ByteRange & { offset: number; length: number }, options?: AbortOptions): Promise<Uint8Array> {
    return this.packer.pending(chunkId, range) ?? this.deps.objects.readChunk(chunkId, range, options);
  }

  /** The node tree as this session sees it: the base snapshot with the uncommitted changes applied. */
  view(): NodeView {
    // The view is cheap, but nodes() sorts; one view per base keeps lookups consistent.
    if (!this.cachedView || this.cachedView.base !== this.base) this.cachedView = new NodeView(this.base, this.changes);
    return this.cachedView;
  }

  assertWritable(what: string): void {
    if (this.currentMode === 'rearrange') {
      throw floeError('READ_ONLY', `cannot modify ${what}: this session only rearranges the hierarchy (moveNode); commit it and open a writable session`, { where: what });
    }
    if (this.currentMode !== 'writable') {
      throw floeError('READ_ONLY', `cannot modify ${what}: this session is read-only (open a writable session on a branch)`, { where: what });
    }
  }

  /** The uncommitted changes, in the shape of {@link Repository.diff}. */
  async status(): Promise<DiffResult> {
    return diffChangeSet(this.base, this.changes);
  }

  /** Drops every uncommitted change (and pending packed chunks); the session stays on its snapshot. */
  discardChanges(): void {
    this.changes.clear();
    this.packer.clear();
  }

  /**
   * Moves a node and its subtree to another path (needs the `move_node` feature flag). Allowed
   * in rearrange sessions, as in the reference, and in writable ones, with other changes
   * pending: chunks and metadata written before the move follow the node.
   */
  async moveNode(fromPath: string, toPath: string, options?: AbortOptions): Promise<void> {
    if (this.currentMode !== 'rearrange') this.assertWritable(fromPath);
    await this.requireMoveFeature(options);
    moveSubtree(this as WriteContext, fromPath, toPath);
  }

  private async requireMoveFeature(options?: AbortOptions): Promise<void> {
    if (this.deps.repoInfo) requireFeature((await this.deps.repoInfo.read(options)).info, 'move_node');
  }

  /**
   * Every distinct virtual chunk location (URL) this session's arrays reference, uncommitted
   * changes included, sorted. Reads each array's manifests, `concurrency` arrays at a time.
   */
  async allVirtualChunkLocations(options?: AbortOptions): Promise<string[]> {
    const arrays = this.view().nodes().filter((n) => n.kind === 'array').map((n) => n.path);
    return viewVirtualLocations(this, arrays, this.deps.concurrency, options);
  }

  /** This fresh writable session as a rearrange session (Repository.rearrangeSession). */
  asRearrange(): Session {
    if (this.currentMode !== 'writable' || this.hasUncommittedChanges) {
      throw floeError('INVALID_ARGUMENT', 'only a fresh writable session becomes a rearrange session; use Repository.rearrangeSession');
    }
    this.currentMode = 'rearrange';
    return this;
  }

  /** The base32 node id of the node at `path`; `NOT_FOUND` when there is none. */
  getNodeId(path: string): string {
    const node = this.view().nodeAt(path);
    if (!node) throw floeError('NOT_FOUND', `no node at ${path}`, { where: path });
    return idToString(node.id as NodeId);
  }

  /**
   * Commits to the session's branch; returns the new snapshot id. If the branch moved: with
   * `rebaseWith`, rebases and retries (up to `rebaseTries` attempts, jittered backoff between);
   * otherwise CONFLICT.
   */
  async commit(message: string, options: CommitOptions = {}): Promise<string> {
    const branch = this.requireBranch('commit');
    // As the reference: the flag may have been turned off since the session started.
    if (this.currentMode === 'rearrange') await this.requireMoveFeature(options);
    const solver = options.rebaseWith;
    const onMoved: BranchMovedHandler | undefined = solver
      ? async (moved, request) => {
          await this.rebaseWithSolver(branch, solver, moved.current, request, moved.info);
          return true;
        }
      : this.onBranchMoved;
    return this.finish({ kind: 'commit', branch }, message, options, onMoved);
  }

  /**
   * Replays this session's changes on the branch's current tip, over every commit made since the
   * session's snapshot. Conflicts go to `solver` (default: fail listing them, ConflictError);
   * on failure the session is unchanged.
   */
  async rebase(solver: ConflictSolver = new ConflictDetector(), options?: AbortOptions): Promise<void> {
    await this.rebaseWithSolver(this.requireBranch('rebase'), solver, undefined, options);
  }

  private async rebaseWithSolver(
    branch: string, solver: ConflictSolver, onto: SnapshotId | undefined, request: AbortOptions | undefined, info?: RepoInfo,
  ): Promise<void> {
    const repoInfo = this.requireRepoInfo();
    const { rebaseChanges } = await import('./rebase.ts');
    const result = await rebaseChanges(
      { objects: this.deps.objects, repoInfo, branch, base: this.base, changes: this.changes, request, info, ...(onto ? { onto } : {}) },
      solver,
    );
    this.rebaseOnto(result.tip, result.changes);
  }

  /**
   * A cheap writable session on this session's snapshot, for another worker to write into; merge
   * it back with `merge`. Serialise it with `toJSON()` and revive it with `Session.fromFork` to
   * hand it to another thread or process. Like the reference, a session with uncommitted
   * changes cannot fork (the forks would carry copies of them): commit first.
   */
  fork(): Session {
    this.assertWritable('the session');
    if (this.hasUncommittedChanges) {
      throw floeError('INVALID_ARGUMENT', 'cannot fork a session with uncommitted changes; commit them, open a new writable session, then fork it');
    }
    return Session.forkOf(this.deps, this.base);
  }

  /**
   * A fork as JSON: its snapshot and changes; chunk bytes stay in the repository, except the
   * small chunks of packs not yet written (at most one partly filled pack), which travel along.
   */
  toJSON(): ForkJSON | { snapshotId: string; branch: string | null; mode: SessionMode } {
    if (!this.forked) return { snapshotId: this.snapshotId, branch: this.currentBranch, mode: this.currentMode };
    const packs = this.packer.unwrittenPacks();
    return {
      format: FORK_FORMAT, version: 1, snapshotId: this.snapshotId, changes: changeSetToJSON(this.changes),
      ...(packs.length > 0 ? { packs: packsToJSON(packs) } : {}),
    };
  }

  /** Revives a fork serialised with `toJSON()` (a JSON string or the parsed value). */
  static async fromFork(repo: SnapshotOpener, json: unknown, options?: AbortOptions): Promise<Session> {
    const fork = parseForkJSON(json);
    const reader = await repo.readonlySession({ snapshotId: fork.snapshotId, signal: options?.signal });
    const session = Session.forkOf(reader.deps, reader.base);
    changeSetFromJSON(fork.changes, session.changes); // a new fork's change set is empty
    session.packer.adopt(packsFromJSON(fork.packs));
    return session;
  }

  private static forkOf(deps: SessionDeps, base: LoadedSnapshot): Session {
    const fork = new Session(deps, base, null, 'writable');
    fork.forked = true;
    return fork;
  }

  /**
   * Takes the changes of forks of this session's snapshot into this session, to commit them
   * together. Where two forks wrote the same chunk or zarr.json the later one wins; forks that
   * created nodes at one path, or wrote into a node another deleted, are a ConflictError and
   * nothing is merged.
   */
  async merge(...forks: Session[]): Promise<void> {
    this.assertWritable('the session');
    for (const fork of forks) {
      if (fork === this) throw floeError('INVALID_ARGUMENT', 'a session cannot merge itself');
      if (!idsEqual(fork.base.snapshot.id, this.base.snapshot.id)) {
        throw floeError('INVALID_ARGUMENT', `cannot merge a fork of snapshot ${fork.snapshotId} into a session on ${this.snapshotId}; fork this session again`);
      }
    }
    // Merged in place, in one pass (no copy of the merged set): a conflict puts back what the
    // session had, which is nothing in the usual case (a fresh session taking its forks).
    const before = this.changes.isEmpty ? null : this.changes.clone();
    for (const fork of forks) {
      const conflicts = mergeForkChanges(this.base, this.changes, fork.changes);
      if (conflicts.length > 0) {
        this.changes.clear();
        if (before) copyChangeSet(before, this.changes);
        throw new ConflictError(conflicts, 'cannot merge forks');
      }
    }
    for (const fork of forks) this.packer.adopt(fork.packer.unwrittenPacks());
  }

  /**
   * Like `merge`, for forks that must not overlap (the tasks of a distributed write): when two of
   * them wrote the same chunk or zarr.json, nothing is merged and a CONFLICT (`overlapping-forks`)
   * names both owners, instead of the later fork winning.
   */
  async mergeDisjoint(forks: readonly { owner: string; fork: Session }[]): Promise<void> {
    const { assertDisjointForks } = await import('./fork-overlap.ts');
    assertDisjointForks(this.base, forks.map(({ owner, fork }) => ({ owner, changes: fork.changes })));
    await this.merge(...forks.map((f) => f.fork));
  }

  /** Replaces the branch tip (this session's base) by a snapshot with the tip's and this session's changes. */
  async amend(message: string, options: CommitOptions = {}): Promise<string> {
    return this.finish({ kind: 'amend', branch: this.requireBranch('amend') }, message, { ...options, allowEmpty: true });
  }

  /**
   * Writes a snapshot no branch points at and returns its id. The session then reads that
   * snapshot and becomes read-only: it no longer follows its branch.
   */
  async flush(message: string, options: CommitOptions = {}): Promise<string> {
    this.assertCanCommit();
    if (this.currentMode === 'rearrange') await this.requireMoveFeature(options);
    if (this.forked) throw floeError('READ_ONLY', 'cannot flush a fork: merge it into a session on a branch');
    const id = await this.finish({ kind: 'flush' }, message, { ...options, allowEmpty: true });
    this.currentBranch = null;
    this.currentMode = 'readonly';
    return id;
  }

  /** Moves the session onto another base snapshot, keeping its changes (rebase's last step). */
  rebaseOnto(base: LoadedSnapshot, changes?: ChangeSet): void {
    this.base = base;
    if (changes && changes !== this.changes) {
      this.changes.clear();
      copyChangeSet(changes, this.changes);
    }
  }

  /** Writable and rearrange sessions commit; read-only ones do not. */
  private assertCanCommit(): void {
    if (this.currentMode !== 'rearrange') this.assertWritable('the session');
  }

  private requireBranch(what: string): string {
    this.assertCanCommit();
    if (this.forked) throw floeError('READ_ONLY', `cannot ${what} a fork: merge it into a session on a branch (session.merge(fork)) and commit that`);
    if (!this.currentBranch) throw floeError('READ_ONLY', `cannot ${what}: this session is not on a branch`);
    return this.currentBranch;
  }

  private requireRepoInfo(): RepoInfoStore {
    const repoInfo = this.deps.repoInfo;
    if (!repoInfo) throw floeError('READ_ONLY', 'this repository is read-only in Floe (spec 1); commits need a spec-2 repository');
    return repoInfo;
  }

  private async finish(kind: CommitKind, message: string, options: CommitOptions, onMoved = this.onBranchMoved): Promise<string> {
    const repoInfo = this.requireRepoInfo();
    // Every pack must be in storage before a snapshot can refer to its chunks.
    await this.packer.flush(options.signal ? { signal: options.signal } : undefined);
    const { runCommit } = await commitMachinery();
    const { snapshot } = await runCommit(
      {
        objects: this.deps.objects,
        repoInfo,
        clock: this.deps.clock,
        concurrency: this.deps.concurrency,
        manifestConfig: this.deps.config.manifest as MetadataValue,
        base: () => this.base,
        changes: () => this.changes,
      },
      kind,
      message,
      options,
      onMoved,
    );
    this.base = snapshot;
    this.changes.clear();
    return idToString(snapshot.snapshot.id);
  }
}
