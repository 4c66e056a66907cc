// Versioned repositories: the public surface of src/txn.
export { Repository, type RepositoryOptions, type ReadonlySessionOptions, type VersionOptions, type DiffOptions, type FeatureFlag } from './repository.ts';
export { Storage, type S3Credentials, type S3StorageConstructorOptions, type StorageLike } from './storage.ts';
export { Session, type SessionMode } from './session.ts';
export { SessionStore } from './session-store.ts';
export { ChangeSet, type ChunkChange } from './change-set.ts';
export type { CommitOptions, BranchMoved, BranchMovedHandler } from './commit.ts';
export type { RepositoryConfig, VirtualChunkContainer, ObjectStoreConfig } from './config.ts';
export type { DiffResult, SnapshotDescription } from './history.ts';
export type { VirtualChunkAuthorization, VirtualCredentials } from './virtual-chunks.ts';
