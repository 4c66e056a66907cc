// A session: a view of one snapshot, read-only or writable on a branch. A writable session
// collects changes in its ChangeSet (through `store` or its own methods) until commit, amend or
// flush turns them into a new snapshot. Names and shapes follow the reference's JS Session.
import { floeError } from '../errors.ts';
import { idToString, type NodeId } from '../format/icechunk/ids.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import { ChangeSet } from './change-set.ts';
import { runCommit, type BranchMovedHandler, type CommitKind, type CommitOptions } from './commit.ts';
import type { ResolvedConfig } from './config.ts';
import { diffChangeSet, type DiffResult } from './history.ts';
import { moveSubtree, type WriteContext } from './node-ops.ts';
import { NodeView } from './node-view.ts';
import type { LoadedSnapshot, RepoObjects } from './objects.ts';
import { requireFeature } from './refs.ts';
import type { Clock, RepoInfoStore } from './repo-info-store.ts';
import { SessionStore, type StoreContext } from './session-store.ts';
import type { VirtualChunkAccess } from './virtual-chunks.ts';

export interface SessionDeps {
  objects: RepoObjects;
  /** Undefined for repositories Floe opens read-only (spec 1). */
  repoInfo: RepoInfoStore | undefined;
  config: ResolvedConfig;
  virtual: VirtualChunkAccess;
  clock: Clock;
}

export type SessionMode = 'readonly' | 'writable';

export class Session implements StoreContext {
  readonly changes = new ChangeSet();
  private base: LoadedSnapshot;
  private currentBranch: string | null;
  private currentMode: SessionMode;
  private cachedView: NodeView | undefined;
  private readonly sessionStore: SessionStore;
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
    this.sessionStore = new SessionStore(this);
  }

  get objects(): RepoObjects {
    return this.deps.objects;
  }
  get virtual(): VirtualChunkAccess {
    return this.deps.virtual;
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

  view(): NodeView {
    // The view is cheap, but nodes() sorts; one view per base keeps lookups consistent.
    if (!this.cachedView || this.cachedView.base !== this.base) this.cachedView = new NodeView(this.base, this.changes);
    return this.cachedView;
  }

  assertWritable(what: string): void {
    if (this.currentMode !== 'writable') {
      throw floeError('READ_ONLY', `cannot modify ${what}: this session is read-only (open a writable session on a branch)`, { where: what });
    }
  }

  async status(): Promise<DiffResult> {
    return diffChangeSet(this.base, this.changes);
  }

  discardChanges(): void {
    this.changes.clear();
  }

  async moveNode(fromPath: string, toPath: string): Promise<void> {
    this.assertWritable(fromPath);
    if (this.deps.repoInfo) requireFeature((await this.deps.repoInfo.read()).info, 'move_node');
    moveSubtree(this as WriteContext, fromPath, toPath);
  }

  getNodeId(path: string): string {
    const node = this.view().nodeAt(path);
    if (!node) throw floeError('NOT_FOUND', `no node at ${path}`, { where: path });
    return idToString(node.id as NodeId);
  }

  /** Commits to the session's branch; returns the new snapshot id. CONFLICT if the branch moved. */
  async commit(message: string, options: CommitOptions = {}): Promise<string> {
    return this.finish({ kind: 'commit', branch: this.requireBranch('commit') }, message, options);
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
    this.assertWritable('the session');
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
      copyChanges(changes, this.changes);
    }
  }

  private requireBranch(what: string): string {
    this.assertWritable('the session');
    if (!this.currentBranch) throw floeError('READ_ONLY', `cannot ${what}: this session is not on a branch`);
    return this.currentBranch;
  }

  private async finish(kind: CommitKind, message: string, options: CommitOptions): Promise<string> {
    const repoInfo = this.deps.repoInfo;
    if (!repoInfo) throw floeError('READ_ONLY', 'this repository is read-only in Floe (spec 1); commits need a spec-2 repository');
    const { snapshot } = await runCommit(
      {
        objects: this.deps.objects,
        repoInfo,
        clock: this.deps.clock,
        manifestConfig: this.deps.config.manifest as MetadataValue,
        base: () => this.base,
        changes: () => this.changes,
      },
      kind,
      message,
      options,
      this.onBranchMoved,
    );
    this.base = snapshot;
    this.changes.clear();
    return idToString(snapshot.snapshot.id);
  }
}

function copyChanges(from: ChangeSet, to: ChangeSet): void {
  for (const n of from.newNodes.values()) to.addNode(n);
  for (const u of from.updatedNodes.values()) to.updateNode(u.id, u);
  for (const d of from.deletedNodes.values()) to.deleteNode(d.id, d.kind, d.path);
  for (const m of from.movedNodes.values()) to.moveNode(m.id, m.kind, m.from, m.to);
  for (const [key, changes] of from.chunks) {
    const id = from.chunkNodeId(key);
    if (!id) continue;
    for (const [coords, change] of changes) to.setChunk(id, coords === '' ? [] : coords.split(',').map(Number), change);
  }
}
