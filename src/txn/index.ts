// Versioned repositories: the public surface of src/txn.
export { Repository, type RepositoryOptions, type ReadonlySessionOptions, type VersionOptions, type DiffOptions, type FeatureFlag, type CommitLookup } from './repository.ts';
export { Storage, type HttpStorageConstructorOptions, type S3Credentials, type S3StorageConstructorOptions, type StorageLike } from './storage.ts';
export { Session, type SessionMode } from './session.ts';
export { SessionStore } from './session-store.ts';
export { ChangeSet, type ChunkChange, type ChunkChangeMap } from './change-set.ts';
export type { CommitOptions, BranchMoved, BranchMovedHandler } from './commit.ts';
export type {
  RepositoryConfig, VirtualChunkContainer, ObjectStoreConfig, CachingConfig, CompressionConfig, HttpConfig, ManifestConfig,
  ManifestPreloadCondition, ManifestPreloadConfig, ManifestSplitCondition, ManifestSplitDim, ManifestSplitDimCondition, ManifestSplitRule,
  ManifestSplittingConfig, RepoUpdateRetryConfig, S3ChecksumAlgorithm, S3Options, StorageConcurrencySettings, StorageRetriesSettings,
  StorageSettings, StorageTimeoutSettings, U32Bound, U64, VirtualChunkLocationCompressionConfig,
} from './config.ts';
export type { DiffResult, SnapshotDescription } from './history.ts';
export type { ResolvedRef } from './ref-expression.ts';
export type { VirtualChunkAuthorization, VirtualCredentials } from './virtual-chunks.ts';
// Straight from the modules: the maintenance index would load expiry, squash and the ops log,
// which Repository loads on first use.
export { GarbageCollection, GC_MINIMUM_GRACE_MS, type GcBudget, type GcCursor, type GcKind, type GcOptions, type GcStepResult, type GcSummary, type KindTotals } from './maintenance/gc.ts';
export type { ExpireOptions, ExpireResult } from './maintenance/expire.ts';
export type { OpsLogItem } from './maintenance/ops-log.ts';
export type { OutOfGridRef, VerifyOptions, VerifyReport } from './maintenance/verify.ts';
export type { RetryBackoff } from './commit.ts';
export {
  BasicConflictSolver, CallbackConflictSolver, ConflictDetector, ConflictError, CONFLICT_TYPES, VersionSelection, describeConflict, detectConflicts, isConflictError,
  type BasicConflictSolverOptions, type Conflict, type ConflictCallback, type ConflictSolver, type ConflictType, type Resolution, type SolveInput,
} from './conflicts/index.ts';
export type { ForkJSON, ChangeSetJSON } from './fork.ts';
