// A repository: create / open over a Storage, sessions, refs, history, config, metadata,
// feature flags and status. Names and argument order mirror the reference's JS `Repository`;
// snapshot ids are base32 strings at this API, branded ids inside.
//
// Cancellation: every method that reads or writes storage takes `{ signal }` as its last
// options argument (after the reference's positional arguments) and passes it down (ABORTED).
// A change of the repo info (refs, config, status, expiry, a commit) is cancelled only before
// its compare-and-swap, so an aborted call has changed no ref.
import { requireDate, requireObject } from '../format/arguments.ts';
import { floeError, isFloeError } from '../errors.ts';
import { requestOf } from '../engine/abort.ts';
import type { AbortOptions, ObjectStorage } from '../engine/storage/types.ts';
import { idToString, INITIAL_SNAPSHOT_ID, parseSnapshotId, type SnapshotId } from '../format/icechunk/ids.ts';
import { REPO_INFO_KEY, V1_CONFIG_KEY } from '../format/icechunk/keys.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import { decodeRepoConfig, encodeRepoConfig, type RepoInfo, type RepoStatus } from '../format/icechunk/repo-info.ts';
import type { Snapshot } from '../format/icechunk/snapshot.ts';
import { configuredBackoff, decodeConfig, loadConfigCodec, mergeConfig, resolveConfig, validateConfig, type RepositoryConfig, type ResolvedConfig } from './config.ts';
import type { CommitLookup } from './commit-keys.ts';
import { ancestors, describeSnapshot, diffSnapshots, snapshotAsOf, type DiffResult, type SnapshotDescription } from './history.ts';
import { RepoObjects, type CacheBudgets } from './objects.ts';
import type { ResolvedRef } from './ref-expression.ts';
import * as refs from './refs.ts';
import { systemClock, type Clock } from '../engine/storage/clock.ts';
import { checkConcurrency, DEFAULT_CONCURRENCY, HTTP_CONCURRENCY } from '../engine/storage/limiter.ts';
import { RepoInfoStore, type RepoInfoStoreOptions } from './repo-info-store.ts';
import { resolveChunkPacking, type ChunkPacking } from './chunk-packer.ts';
import { Session } from './session.ts';
import type { ExpireOptions, ExpireResult } from './maintenance/expire.ts';
import { GarbageCollection, type GcOptions, type GcSummary } from './maintenance/gc.ts';
import type { OpsLogItem } from './maintenance/ops-log.ts';
import type { VerifyOptions, VerifyReport } from './maintenance/verify.ts';
import { isSpec1Repository, readSpec1Config, readSpec1RepoInfo } from './spec1-repo.ts';
import { objectStorageOf, type StorageLike } from './storage.ts';
import type { VirtualChunkAuthorization } from './virtual-chunks.ts';
import { snapshotsVirtualLocations } from './virtual-locations.ts';

/** Floe-only options, after the reference's positional arguments. */
export interface RepositoryOptions {
  /** Cancels this `open`/`create`/`openOrCreate` call only (`ABORTED`); later calls take their own. */
  signal?: AbortSignal | undefined;
  /** Time for snapshot and ops-log timestamps, backup names, GC cutoffs and commit backoff. Default: the system clock. */
  clock?: Clock;
  /**
   * Storage requests a session keeps in flight when it fans out over a list (manifest loads,
   * `getPartialValues`, per-node commit work). Default 8; must be a positive integer.
   */
  concurrency?: number;
  cache?: CacheBudgets;
  /**
   * How a session stores small chunks: up to `maxChunkBytes` (default 64 KiB) they share pack
   * objects of up to `packBytes` (default 4 MiB), read back by byte range; `false` gives every
   * chunk an object of its own, as the reference does. Both are valid Icechunk.
   */
  chunkPacking?: Partial<ChunkPacking> | false;
}

/** A version of a repository: a branch's tip, a tag's target, or a snapshot id (base32). */
export type VersionOptions = { branch: string } | { tag: string } | { snapshotId: string };
/**
 * Which version a read-only session reads: a {@link VersionOptions}, or the newest snapshot of a
 * branch written at or before `asOf` (time travel).
 */
export type ReadonlySessionOptions = (VersionOptions | ({ branch: string; asOf: Date })) & AbortOptions;

/** The two versions {@link Repository.diff} compares: one `from*` and one `to*` (branch, tag or snapshot id). */
export interface DiffOptions extends AbortOptions {
  fromBranch?: string;
  fromTag?: string;
  fromSnapshotId?: string;
  toBranch?: string;
  toTag?: string;
  toSnapshotId?: string;
}

/** A repository feature flag: its default, the stored setting (if any) and the effective value. */
export interface FeatureFlag {
  id: number;
  name: string;
  defaultEnabled: boolean;
  setting?: boolean;
  enabled: boolean;
}

const INITIAL_MESSAGE = 'Repository initialized';

/** The repo info store's limits from the configuration (`repoUpdateRetries`, ops-log length). */
function repoInfoStoreOptions(clock: Clock, resolved: ResolvedConfig): RepoInfoStoreOptions {
  const { repoUpdateBackoff: bounds } = resolved;
  return {
    clock, retries: resolved.repoUpdateRetries, updatesPerFile: resolved.numUpdatesPerRepoInfoFile,
    ...(bounds ? { backoff: configuredBackoff(bounds, clock) } : {}),
  };
}

/**
 * A versioned Icechunk repository over a {@link Storage}: branches, tags and snapshots of a Zarr node
 * tree, read and changed through {@link Session}s. Names and argument order mirror
 * `@earthmover/icechunk`'s JS API; snapshot ids are base32 strings. Spec-1 repositories open read-only.
 * @example
 * ```ts
 * const repo = await Repository.create(Storage.newLocalFilesystem('data.icechunk'));
 * const session = await repo.writableSession('main');
 * const array = await createArray(session.store, '/t', { shape: [10], dataType: 'float32', chunkShape: [5] });
 * await array.set(undefined, 1);
 * const snapshotId = await session.commit('fill t');
 * ```
 */
export class Repository {
  private constructor(
    private readonly objects: RepoObjects,
    /** Undefined for spec-1 repositories, which are read-only. */
    private readonly infoStore: RepoInfoStore | undefined,
    private readonly spec1Info: RepoInfo | undefined,
    /** The stored configuration, read, and its stored form (whose unknown fields a save carries over). */
    private storedConfig: { config: RepositoryConfig; stored: MetadataValue },
    private userConfig: RepositoryConfig,
    private readonly authorized: VirtualChunkAuthorization,
    private readonly clock: Clock,
    private readonly packing: ChunkPacking,
    private readonly concurrency: number,
  ) {}

  /** Whether the storage holds a repository (spec 2, or a spec-1 repository Floe can read). */
  static async exists(storage: StorageLike, options?: AbortOptions): Promise<boolean> {
    const backend = objectStorageOf(storage);
    const request = requestOf(options);
    return (await backend.head(REPO_INFO_KEY, request)) !== null || (await isSpec1Repository(backend, request));
  }

  /**
   * Creates a spec-2 repository with an initial snapshot on `main`. Throws `ALREADY_EXISTS` when the
   * storage holds one, `UNSUPPORTED` for another `specVersion`. `config` is stored in the repository.
   */
  static async create(
    storage: StorageLike,
    config: RepositoryConfig = {},
    specVersion: number | null = 2,
    authorizeVirtualChunkAccess: VirtualChunkAuthorization = {},
    options: RepositoryOptions = {},
  ): Promise<Repository> {
    if (specVersion !== null && specVersion !== 2) throw floeError('UNSUPPORTED', `Floe creates spec-2 repositories only, not spec ${specVersion}`);
    // Refused before anything is written: the reference could not open a repository holding it.
    const codec = await loadConfigCodec();
    const canonical = codec.validateRepoConfig(config);
    const packing = resolveChunkPacking(options.chunkPacking);
    const concurrency = checkConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY);
    const backend = objectStorageOf(storage);
    const request = requestOf(options);
    if (await Repository.exists(backend, request)) throw floeError('ALREADY_EXISTS', 'a repository already exists in this storage; use Repository.open');
    const clock = options.clock ?? systemClock;
    const resolved = resolveConfig(canonical);
    const objects = new RepoObjects(backend, options.cache);
    const now = Math.floor(clock.nowMs() * 1000);
    // The initial snapshot and its log have a fixed id: a concurrent creator may have written
    // them already, which is fine when they are an empty root; only one repo info file can win below.
    const initial = await writeInitialObjects(objects, now, request);
    // As the reference: a repository created without settings stores no config.
    const storedValue = codec.isEmptyConfig(canonical) ? null : codec.encodeStoredConfig(canonical);
    const stored = { config: canonical, stored: storedValue };
    const store = new RepoInfoStore(backend, repoInfoStoreOptions(clock, resolved));
    await store.create({
      specVersion: 2, repoSpecVersion: 2, tags: [], branches: [{ name: refs.MAIN_BRANCH, snapshotId: INITIAL_SNAPSHOT_ID }], deletedTags: [],
      snapshots: [{ id: INITIAL_SNAPSHOT_ID, parentId: null, flushedAt: initial.flushedAt, message: initial.message, metadata: initial.metadata }],
      status: { availability: 'online', setAt: now, limitedAvailabilityReason: null }, metadata: [],
      latestUpdates: [{ update: { kind: 'repoInitialized' }, updatedAt: now, backupPath: null }], repoBeforeUpdates: null,
      config: storedValue === null ? null : encodeRepoConfig(storedValue), enabledFeatureFlags: null, disabledFeatureFlags: null,
    }, request);
    return new Repository(objects, store, undefined, stored, {}, authorizeVirtualChunkAccess, clock, packing, concurrency);
  }

  /**
   * Opens the repository in a storage; `NOT_FOUND` when there is none. `config` overrides the stored
   * configuration for this process (see {@link Repository.saveConfig}).
   */
  static async open(
    storage: StorageLike,
    config?: RepositoryConfig | null,
    authorizeVirtualChunkAccess: VirtualChunkAuthorization = {},
    options: RepositoryOptions = {},
  ): Promise<Repository> {
    const packing = resolveChunkPacking(options.chunkPacking);
    const backend = objectStorageOf(storage);
    const concurrency = checkConcurrency(options.concurrency ?? (backend.kind === 'http' ? HTTP_CONCURRENCY : DEFAULT_CONCURRENCY));
    const clock = options.clock ?? systemClock;
    const objects = new RepoObjects(backend, options.cache);
    const request = requestOf(options);
    // One GET, not a HEAD then a GET: over HTTP every round trip shows (a missing file is NOT_FOUND).
    const probe = new RepoInfoStore(backend, { clock, retries: 1, updatesPerFile: 1000 });
    const read = await probe.read(request).catch((err: unknown) => {
      if (isFloeError(err, 'NOT_FOUND') && err.where === REPO_INFO_KEY) return undefined;
      throw err;
    });
    if (read) {
      const { info } = read;
      const storedValue = info.config ? decodeRepoConfig(info.config, REPO_INFO_KEY) : null;
      const stored = { config: await decodeConfig(storedValue, REPO_INFO_KEY), stored: storedValue };
      const overrides = await validateConfig(config);
      const resolved = resolveConfig(mergeConfig(stored.config, overrides));
      const store = new RepoInfoStore(backend, repoInfoStoreOptions(clock, resolved));
      store.adopt(read); // decoded once: the first use revalidates it with a HEAD
      return new Repository(objects, store, undefined, stored, overrides, authorizeVirtualChunkAccess, clock, packing, concurrency);
    }
    if (await isSpec1Repository(backend, request)) {
      const storedValue = await readSpec1Config(backend, request);
      const stored = { config: await decodeConfig(storedValue, V1_CONFIG_KEY), stored: storedValue };
      const info = await readSpec1RepoInfo(backend, objects, request);
      return new Repository(objects, undefined, info, stored, await validateConfig(config), authorizeVirtualChunkAccess, clock, packing, concurrency);
    }
    throw floeError('NOT_FOUND', 'no Icechunk repository in this storage; use Repository.create');
  }

  /**
   * The configuration stored in the repository, read without opening it: null when none is
   * stored (a repository created without settings); `NOT_FOUND` when there is no repository.
   */
  static async fetchConfig(storage: StorageLike, options?: AbortOptions): Promise<RepositoryConfig | null> {
    const backend = objectStorageOf(storage);
    const request = requestOf(options);
    if (await backend.head(REPO_INFO_KEY, request)) {
      const { info } = await new RepoInfoStore(backend, { clock: systemClock, retries: 1, updatesPerFile: 1000 }).read(request);
      return info.config ? await decodeConfig(decodeRepoConfig(info.config, REPO_INFO_KEY), REPO_INFO_KEY) : null;
    }
    if (await isSpec1Repository(backend, request)) {
      const stored = await readSpec1Config(backend, request);
      return stored === null ? null : await decodeConfig(stored, V1_CONFIG_KEY);
    }
    throw floeError('NOT_FOUND', 'no Icechunk repository in this storage, so no configuration to fetch');
  }

  /** The spec version of the repository in a storage, read without opening it; null when there is none. */
  static async fetchSpecVersion(storage: StorageLike, options?: AbortOptions): Promise<number | null> {
    const backend = objectStorageOf(storage);
    const request = requestOf(options);
    if (await backend.head(REPO_INFO_KEY, request)) {
      return (await new RepoInfoStore(backend, { clock: systemClock, retries: 1, updatesPerFile: 1000 }).read(request)).info.repoSpecVersion;
    }
    return (await isSpec1Repository(backend, request)) ? 1 : null;
  }

  /** Opens the repository in a storage, or creates one; safe against a concurrent creator. */
  static async openOrCreate(
    storage: StorageLike,
    config?: RepositoryConfig | null,
    specVersion: number | null = 2,
    authorizeVirtualChunkAccess: VirtualChunkAuthorization = {},
    options: RepositoryOptions = {},
  ): Promise<Repository> {
    if (await Repository.exists(storage, options)) return Repository.open(storage, config, authorizeVirtualChunkAccess, options);
    try {
      return await Repository.create(storage, config ?? {}, specVersion, authorizeVirtualChunkAccess, options);
    } catch (err) {
      if (isFloeError(err, 'ALREADY_EXISTS')) return Repository.open(storage, config, authorizeVirtualChunkAccess, options);
      throw err;
    }
  }

  /**
   * Closes the repository's storage (a SQLite file is checkpointed and left as one file); its
   * sessions cannot read or write afterwards. Safe to call again; `await using` calls it.
   */
  async close(): Promise<void> {
    await this.objects.storage.close();
  }

  /** {@link close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The effective configuration: the stored one with this process's overrides on top. */
  get config(): RepositoryConfig {
    return mergeConfig(this.storedConfig.config, this.userConfig);
  }

  get specVersion(): number {
    return this.spec1Info ? 1 : 2;
  }

  /**
   * The storage the repository lives in, for reading its objects as they are (`floe serve`'s raw
   * route, copies). Write only through sessions and the repository's methods.
   */
  get storage(): ObjectStorage {
    return this.objects.storage;
  }

  private get resolved(): ResolvedConfig {
    return resolveConfig(this.config);
  }

  /** The current repo info (re-read for spec 2: another process may have changed it). */
  async repoInfo(options?: AbortOptions): Promise<RepoInfo> {
    if (this.spec1Info) return this.spec1Info;
    return (await this.infoStore!.read(requestOf(options))).info;
  }

  private writable(): RepoInfoStore {
    if (!this.infoStore) throw floeError('READ_ONLY', 'spec-1 repositories are read-only in Floe; migrate the repository to spec 2 with the reference to write');
    return this.infoStore;
  }

  private sessionDeps() {
    const resolved = this.resolved;
    return {
      objects: this.objects,
      repoInfo: this.infoStore,
      config: resolved,
      virtual: { containers: resolved.virtualChunkContainers, authorized: this.authorized },
      clock: this.clock,
      packing: this.packing,
      concurrency: this.concurrency,
    };
  }

  /**
   * A session on a branch's tip that only moves nodes (`moveNode`), as the reference's: other
   * writes are refused (`READ_ONLY`). `UNSUPPORTED` when the `move_node` flag is disabled.
   */
  async rearrangeSession(branch: string, options?: AbortOptions): Promise<Session> {
    const session = await this.writableSession(branch, options);
    refs.requireFeature(await this.repoInfo(options), 'move_node');
    return session.asRearrange();
  }

  /**
   * Every distinct virtual chunk location (URL) in the snapshots reachable from a branch or a
   * tag, sorted: what must stay readable for the repository's whole history. Loads each
   * snapshot and manifest once, `concurrency` (RepositoryOptions) at a time.
   */
  async allVirtualChunkLocations(options?: AbortOptions): Promise<string[]> {
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    const tips = [...info.branches, ...info.tags].map((r) => r.snapshotId);
    const reachable = new Map<string, SnapshotId>();
    for (const tip of tips) for (const s of ancestors(info, tip)) reachable.set(idToString(s.id), s.id);
    return snapshotsVirtualLocations(this.objects, reachable.values(), this.concurrency, request);
  }

  /**
   * A read-only session at a version (default: the tip of `main`). `NOT_FOUND` for an unknown branch,
   * tag or snapshot, or when nothing was written by `asOf`.
   */
  async readonlySession(options: ReadonlySessionOptions = { branch: refs.MAIN_BRANCH }): Promise<Session> {
    requireObject(options, 'readonlySession options');
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    let id = await this.resolveVersion(info, options, request);
    if ('asOf' in options) {
      const found = snapshotAsOf(info, id, options.asOf);
      if (!found) throw floeError('NOT_FOUND', `branch '${options.branch}' has no snapshot written at or before ${options.asOf.toISOString()}`);
      id = found.id;
    }
    return new Session(this.sessionDeps(), await this.objects.loadSnapshot(id, request), 'branch' in options ? options.branch : null, 'readonly');
  }

  /**
   * A writable session on a branch's tip; its commit moves the branch. `READ_ONLY` when the repository
   * is spec 1 or not online (see {@link Repository.setStatus}).
   */
  async writableSession(branch: string, options?: AbortOptions): Promise<Session> {
    this.writable();
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    if (info.status.availability !== 'online') throw floeError('READ_ONLY', `the repository is ${info.status.availability}; writable sessions are refused`);
    return new Session(this.sessionDeps(), await this.objects.loadSnapshot(refs.branchTip(info, branch), request), branch, 'writable');
  }

  private async resolveVersion(info: RepoInfo, options: VersionOptions, request: AbortOptions | undefined): Promise<SnapshotId> {
    if ('snapshotId' in options) {
      const id = parseSnapshotId(options.snapshotId);
      if (!refs.findSnapshotInfo(info, id) && !(await this.objects.snapshotExists(id, request))) {
        throw floeError('NOT_FOUND', `snapshot ${options.snapshotId} is not in this repository`, { where: options.snapshotId });
      }
      return id;
    }
    return 'tag' in options ? refs.tagTarget(info, options.tag) : refs.branchTip(info, options.branch);
  }

  /** Branch names, sorted. */
  async listBranches(options?: AbortOptions): Promise<string[]> {
    return (await this.repoInfo(options)).branches.map((b) => b.name).sort();
  }
  /** Tag names, sorted. */
  async listTags(options?: AbortOptions): Promise<string[]> {
    return (await this.repoInfo(options)).tags.map((t) => t.name).sort();
  }
  /** The snapshot id a branch points at; `NOT_FOUND` for an unknown branch. */
  async lookupBranch(branch: string, options?: AbortOptions): Promise<string> {
    return idToString(refs.branchTip(await this.repoInfo(options), branch));
  }
  /** The snapshot id a tag points at; `NOT_FOUND` for an unknown tag. */
  async lookupTag(tag: string, options?: AbortOptions): Promise<string> {
    return idToString(refs.tagTarget(await this.repoInfo(options), tag));
  }

  /** A snapshot's id, parent, time, message and metadata; `NOT_FOUND` when it is not in the repository. */
  async lookupSnapshot(snapshotId: string, options?: AbortOptions): Promise<SnapshotDescription> {
    const found = refs.findSnapshotInfo(await this.repoInfo(options), parseSnapshotId(snapshotId));
    if (!found) throw floeError('NOT_FOUND', `snapshot ${snapshotId} is not in this repository`, { where: snapshotId });
    return describeSnapshot(found);
  }

  /**
   * Whether the commit with this key (its `commitKey`, as a COMMIT_OUTCOME_UNKNOWN names it) is on
   * `branch` (default `main`): searched among the branch's newest `horizon` snapshots (default
   * 1000, as a commit does), in the repo info alone: `committed: false` says how many it searched
   * and whether that was the whole history. It is final only once nothing can still land the
   * commit: commit again with the same key to settle it (docs/transactions.md).
   */
  async lookupCommit(commitKey: string, options: { branch?: string; horizon?: number } & AbortOptions = {}): Promise<CommitLookup> {
    const info = await this.repoInfo(requestOf(options));
    const { lookupCommitIn } = await import('./commit-keys.ts');
    return lookupCommitIn(info, options.branch ?? refs.MAIN_BRANCH, commitKey, options.horizon);
  }

  /** The manifest files a snapshot references, with their sizes and chunk reference counts. */
  async lookupManifestFiles(snapshotId: string, options?: AbortOptions): Promise<{ id: string; sizeBytes: number; numChunkRefs: number }[]> {
    const { snapshot } = await this.objects.loadSnapshot(parseSnapshotId(snapshotId), requestOf(options));
    return snapshot.manifestFiles.map((f) => ({ id: idToString(f.id), sizeBytes: f.sizeBytes, numChunkRefs: f.numChunkRefs }));
  }

  /** Creates a branch at a snapshot; `ALREADY_EXISTS` when the name is taken. */
  async createBranch(name: string, snapshotId: string, options?: AbortOptions): Promise<void> {
    refs.validateRefName(name, 'branch'); // before any I/O
    const id = parseSnapshotId(snapshotId);
    await this.writable().update((info) => refs.createBranch(info, name, id), requestOf(options));
  }
  /** Deletes a branch (its snapshots stay until expired and collected); `main` cannot be deleted. */
  async deleteBranch(name: string, options?: AbortOptions): Promise<void> {
    await this.writable().update((info) => refs.deleteBranch(info, name), requestOf(options));
  }
  /** Points `branch` at `toSnapshotId`; with `fromSnapshotId`, only if the branch is still there (else CONFLICT). */
  async resetBranch(branch: string, toSnapshotId: string, fromSnapshotId?: string | null, options?: AbortOptions): Promise<void> {
    const to = parseSnapshotId(toSnapshotId);
    const expected = fromSnapshotId ? parseSnapshotId(fromSnapshotId) : undefined;
    await this.writable().update((info) => refs.resetBranch(info, branch, to, expected), requestOf(options));
  }
  /** Creates a tag at a snapshot. Tags are immutable: a taken (or deleted) name is refused. */
  async createTag(name: string, snapshotId: string, options?: AbortOptions): Promise<void> {
    refs.validateRefName(name, 'tag'); // before any I/O
    const id = parseSnapshotId(snapshotId);
    await this.writable().update((info) => refs.createTag(info, name, id), requestOf(options));
  }
  /** Deletes a tag; its name cannot be reused. */
  async deleteTag(name: string, options?: AbortOptions): Promise<void> {
    await this.writable().update((info) => refs.deleteTag(info, name), requestOf(options));
  }

  /**
   * The snapshot a ref expression names, as git reads revisions: a branch, a tag, a snapshot id or
   * a unique prefix of one (4+ characters), then `~N`, `^` and `@{DATE}` steps, e.g. `main~3`,
   * `v1.0^`, `3KJ9`, `main@{2026-11-01}` (docs/refs.md). `NOT_FOUND` (with the closest names),
   * `AMBIGUOUS` for a prefix of several ids, `INVALID_ARGUMENT` for bad syntax or an impossible date.
   */
  async resolve(expression: string, options?: AbortOptions): Promise<ResolvedRef> {
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    // The expression parser (and its date syntax) loads on first use: most programs name versions by branch, tag or id.
    const { resolveRefExpression } = await import('./ref-expression.ts');
    return resolveRefExpression(expression, { info, snapshotExists: (id) => this.objects.snapshotExists(id, request) });
  }

  /** The snapshot of a branch, tag or id and its ancestors, newest first. */
  async *ancestry(options: VersionOptions & AbortOptions): AsyncGenerator<SnapshotDescription> {
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    for (const s of ancestors(info, await this.resolveVersion(info, options, request))) yield describeSnapshot(s);
  }

  /**
   * What changed between two versions: nodes added, deleted, moved and updated, and chunks changed.
   * Throws `INVALID_ARGUMENT` without a from and a to version.
   */
  async diff(options: DiffOptions): Promise<DiffResult> {
    const request = requestOf(options);
    const info = await this.repoInfo(request);
    const pick = (branch?: string, tag?: string, snapshotId?: string): VersionOptions => {
      if (branch !== undefined) return { branch };
      if (tag !== undefined) return { tag };
      if (snapshotId !== undefined) return { snapshotId };
      throw floeError('INVALID_ARGUMENT', 'diff needs a from and a to version (branch, tag or snapshot id)');
    };
    const from = await this.resolveVersion(info, pick(options.fromBranch, options.fromTag, options.fromSnapshotId), request);
    const to = await this.resolveVersion(info, pick(options.toBranch, options.toTag, options.toSnapshotId), request);
    return diffSnapshots(this.objects, await this.objects.loadSnapshot(from, request), await this.objects.loadSnapshot(to, request), request);
  }

  /** Persists this process's config overrides into the repository. */
  async saveConfig(options?: AbortOptions): Promise<void> {
    const codec = await loadConfigCodec();
    const merged = this.config;
    const stored = codec.encodeStoredConfig(merged, this.storedConfig.stored);
    await this.writable().update((info) => ({ info: { ...info, config: encodeRepoConfig(stored) }, update: { kind: 'configChanged' } }), requestOf(options));
    this.storedConfig = { config: merged, stored };
    this.userConfig = {};
  }

  /** The stored configuration in its serde form (null when none is stored), as last read or saved. */
  get storedConfigValue(): MetadataValue {
    return this.storedConfig.stored;
  }

  /**
   * Stores `config` as the whole configuration: fields it leaves out become unset, where
   * saveConfig merges overrides into what is stored. Fields the stored form has that Floe does
   * not know are kept. This process's overrides still apply on top.
   */
  async replaceConfig(config: RepositoryConfig, options?: AbortOptions): Promise<void> {
    const codec = await loadConfigCodec();
    const canonical = codec.validateRepoConfig(config);
    const stored = codec.encodeStoredConfig(canonical, this.storedConfig.stored);
    await this.writable().update((info) => ({ info: { ...info, config: encodeRepoConfig(stored) }, update: { kind: 'configChanged' } }), requestOf(options));
    this.storedConfig = { config: canonical, stored };
  }

  /** The repository's metadata (user key/value pairs). */
  async getMetadata(options?: AbortOptions): Promise<Record<string, MetadataValue>> {
    return Object.fromEntries((await this.repoInfo(options)).metadata.map((m) => [m.name, m.value]));
  }

  /** Replaces the repository's metadata. */
  async setMetadata(metadata: Record<string, MetadataValue>, options?: AbortOptions): Promise<void> {
    const items = Object.entries(metadata).map(([name, value]) => ({ name, value }));
    await this.writable().update((info) => ({ info: { ...info, metadata: items }, update: { kind: 'metadataChanged' } }), requestOf(options));
  }

  /** Every feature flag Floe knows, with the repository's settings. */
  async featureFlags(options?: AbortOptions): Promise<FeatureFlag[]> {
    const info = await this.repoInfo(options);
    return refs.FEATURE_FLAGS.map((f) => {
      const setting = info.enabledFeatureFlags?.includes(f.id) ? true : info.disabledFeatureFlags?.includes(f.id) ? false : undefined;
      return { id: f.id, name: f.name, defaultEnabled: f.defaultEnabled, ...(setting === undefined ? {} : { setting }), enabled: setting ?? f.defaultEnabled };
    });
  }

  /** The feature flags in effect (by default or set), as the reference lists them. */
  async enabledFeatureFlags(options?: AbortOptions): Promise<FeatureFlag[]> {
    return (await this.featureFlags(options)).filter((f) => f.enabled);
  }

  /** The feature flags turned off. */
  async disabledFeatureFlags(options?: AbortOptions): Promise<FeatureFlag[]> {
    return (await this.featureFlags(options)).filter((f) => !f.enabled);
  }

  /** `setting` undefined clears the explicit setting (back to the default). */
  async setFeatureFlag(name: string, setting?: boolean | null, options?: AbortOptions): Promise<void> {
    const flag = refs.FEATURE_FLAGS.find((f) => f.name === name);
    if (!flag) throw floeError('INVALID_ARGUMENT', `unknown feature flag '${name}' (known: ${refs.FEATURE_FLAGS.map((f) => f.name).join(', ')})`);
    await this.writable().update((info) => {
      const enabled = (info.enabledFeatureFlags ?? []).filter((id) => id !== flag.id);
      const disabled = (info.disabledFeatureFlags ?? []).filter((id) => id !== flag.id);
      if (setting === true) enabled.push(flag.id);
      if (setting === false) disabled.push(flag.id);
      const isSet = setting !== undefined && setting !== null;
      return {
        info: { ...info, enabledFeatureFlags: enabled, disabledFeatureFlags: disabled },
        update: { kind: 'featureFlagChanged', id: flag.id, newValue: setting ?? flag.defaultEnabled, isSet },
      };
    }, requestOf(options));
  }

  /** The repository's availability (online, read-only, ...) and why, when it was set. */
  async status(options?: AbortOptions): Promise<RepoStatus> {
    return (await this.repoInfo(options)).status;
  }

  /** Online, read-only or offline. Allowed in any state, so a read-only repository can be reopened. */
  async setStatus(availability: RepoStatus['availability'], reason?: string, options?: AbortOptions): Promise<void> {
    const status: RepoStatus = { availability, setAt: Math.floor(this.clock.nowMs() * 1000), limitedAvailabilityReason: reason ?? null };
    await this.writable().update((info) => ({ info: { ...info, status }, update: { kind: 'repoStatusChanged', status } }), requestOf(options));
  }

  /**
   * The caches every session of this repository shares (budgets: `RepositoryOptions.cache`):
   * snapshots, manifests, the query read caches, and the repo info file's revalidations.
   */
  cacheStats() {
    return { ...this.objects.cacheStats(), repoInfo: this.infoStore?.cacheStats() };
  }

  // Maintenance (src/txn/maintenance): expiry, garbage collection, squash, the ops log. Expiry,
  // squash and the ops log load on first use (import 'floe' should not pay for them); the
  // GarbageCollection class is public, so gc.ts loads with the package.

  /** Makes snapshots flushed before `olderThan` unreachable from refs (one ExpirationRan update; `dryRun`: none). */
  async expireSnapshots(olderThan: Date, options: ExpireOptions = {}): Promise<ExpireResult> {
    const { expireSnapshots } = await import('./maintenance/expire.ts');
    return expireSnapshots(this.writable(), olderThan, options);
  }

  /** Deletes unreachable objects last modified before `deleteObjectsOlderThan`, to the end. */
  async garbageCollect(deleteObjectsOlderThan: Date, options: GcOptions = {}): Promise<GcSummary> {
    return (await this.garbageCollector(deleteObjectsOlderThan, options)).runToCompletion(requestOf(options));
  }

  /** An incremental GC: `run({ maxObjects, maxMs })` sweeps a budget and returns a resumable cursor. */
  async garbageCollector(deleteObjectsOlderThan: Date, options: GcOptions = {}): Promise<GarbageCollection> {
    requireDate(deleteObjectsOlderThan, 'the garbage collection cutoff');
    // A private loader with small caches: marking reads every live snapshot and manifest once.
    const objects = new RepoObjects(this.objects.storage, { snapshotBytes: 8 << 20, manifestBytes: 32 << 20 });
    return GarbageCollection.start({ objects, store: this.writable(), clock: this.clock }, deleteObjectsOlderThan, options);
  }

  /**
   * Reads every snapshot a branch or tag reaches and reports chunk refs outside their array's
   * chunk grid (reads skip them silently). Writes nothing; works on spec-1 repositories too.
   */
  async verify(options: VerifyOptions = {}): Promise<VerifyReport> {
    const { verifyRepository } = await import('./maintenance/verify.ts');
    const objects = new RepoObjects(this.objects.storage, { snapshotBytes: 8 << 20, manifestBytes: 32 << 20 });
    return verifyRepository(objects, await this.repoInfo(options), options);
  }

  /** Replaces `fromSnapshot`..`toSnapshot` of `branch`'s history by one snapshot; returns its id. */
  async squash(branch: string, fromSnapshot: string, toSnapshot: string, message: string, options?: AbortOptions): Promise<string> {
    const { squash } = await import('./maintenance/squash.ts');
    return squash({ objects: this.objects, store: this.writable() }, branch, fromSnapshot, toSnapshot, message, requestOf(options));
  }

  /** Every update of the repo info file, newest first, across `overwritten/` backups. */
  async *opsLog(options?: AbortOptions): AsyncGenerator<OpsLogItem> {
    const request = requestOf(options);
    const { opsLog } = await import('./maintenance/ops-log.ts');
    yield* opsLog(this.objects.storage, (await this.writable().read(request)).info, request);
  }
}


/**
 * Writes the initial snapshot and its (empty) transaction log, or takes those a concurrent creator
 * wrote: theirs differ from ours only in the time, and are used only when they are an empty root.
 */
async function writeInitialObjects(objects: RepoObjects, now: number, request: AbortOptions | undefined): Promise<Snapshot> {
  const ours: Snapshot = {
    specVersion: 2, id: INITIAL_SNAPSHOT_ID, parentId: null, flushedAt: now, message: INITIAL_MESSAGE,
    metadata: [{ name: '__icechunk', value: { is_root: true } }], manifestFiles: [], nodes: [], extra: null,
  };
  const initial = await takeExisting(objects.writeSnapshot(ours, request).then(() => ours), async () => {
    const { snapshot } = await objects.loadSnapshot(INITIAL_SNAPSHOT_ID, request);
    return snapshot.parentId === null && snapshot.nodes.length === 0 && snapshot.manifestFiles.length === 0 ? snapshot : undefined;
  });
  await takeExisting(objects.writeTransactionLog({
    specVersion: 2, id: INITIAL_SNAPSHOT_ID, newGroups: [], newArrays: [], deletedGroups: [], deletedArrays: [],
    updatedArrays: [], updatedGroups: [], updatedChunks: [], movedNodes: [],
  }, request).then(() => true), async () => {
    const log = await objects.loadTransactionLog(INITIAL_SNAPSHOT_ID, request);
    const empty = log && [log.newGroups, log.newArrays, log.deletedGroups, log.deletedArrays, log.updatedArrays, log.updatedGroups, log.updatedChunks, log.movedNodes].every((l) => l.length === 0);
    return empty || undefined;
  });
  return initial;
}

/** The write's result, or (when the key held other bytes) what `existing` accepts in their place. */
async function takeExisting<T>(write: Promise<T>, existing: () => Promise<T | undefined>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (!isFloeError(err, 'ALREADY_EXISTS')) throw err;
    const accepted = await existing();
    if (accepted === undefined) throw err;
    return accepted;
  }
}

export type { CommitLookup } from './commit-keys.ts';
