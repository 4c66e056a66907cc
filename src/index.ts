/**
 * Floe: an embedded, transactional, versioned array store. Plain Zarr v3 (and v1) stores and
 * arrays, Icechunk repositories with branches, tags and conflict-solving commits, object storage
 * backends, and a declarative query DSL.
 * @module floe
 */
// Floe's public API: re-exports only. A test pins this list (test/unit/public-api.test.ts).
export { FloeError, isFloeError, ERROR_CODES, type ErrorCode } from './errors.ts';
export type {
  ConflictDetails, ConflictEntry, ErrorDetails, ErrorDetailsByCode, FloeErrorConstructor, FloeErrorOf, FloeErrorOptions, FloeErrorOptionsArg, NoDetails,
  LimitDetails, LimitKind,
} from './errors.ts';

// Resource limits: decoded sizes, JSON, shapes and paths (docs/limits.md).
export {
  configureLimits, resourceLimits, DEFAULT_LIMITS, MAX_RANK, MAX_ELEMENTS, MAX_CHUNK_BYTES, MAX_INNER_CHUNKS,
  MAX_NODE_NAME_BYTES, MAX_PATH_DEPTH, MAX_JSON_DEPTH, type ResourceLimits,
} from './format/limits.ts';

// Plain Zarr v3: stores, arrays, groups, selections.
export { StorageStore, type ZarrStore, type ListDir, type StorageStoreOptions, type DecodedChunkSource } from './engine/store.ts';
export { ZarrArray, type ArrayIoOptions, type GetOptions, type CfGetOptions, type SetOptions, type CfSetOptions, type OpenArrayOptions, type WriteValue } from './engine/array.ts';
export type { CfNdArray } from './engine/cf-read.ts';
export type { CfWriteValue } from './engine/cf-write.ts';
export type { CfWriteValues } from './format/cf/encode.ts';
export type { CfVariable } from './format/cf/variable.ts';
export type { CfDate, CfDateFields } from './format/cf/cf-date.ts';
export type { CfCalendarName } from './format/cf/calendar.ts';
export type { CfTimeCoding } from './format/cf/time.ts';
export type { CfValueCoding } from './format/cf/values.ts';
export type { CfMetadata, CfFlags, CfCellMethod, CfGridMapping } from './format/cf/metadata.ts';
export { ZarrGroup, openNode, type ChildInfo, type NodeOpenOptions, type GroupCreateOptions, type AnyArrayInput } from './engine/group.ts';
export { slice, type Slice, type Selection, type SelectionItem } from './engine/selection.ts';
export { openStore, createArray, openArray, createGroup, openGroup, get, set } from './engine/api.ts';
export type { OpenStoreOptions } from './engine/api.ts';

// Zarr v2 arrays (groups are ZarrGroups with zarrFormat 2), consolidated metadata (v2 and v3).
export { V2Array, type V2ArrayInput } from './engine/v2-array.ts';
export type { V2ArrayMetadataInput, V2Descr } from './format/zarr-v2/create.ts';
export type { NumcodecsConfig } from './format/numpy/numcodecs.ts';
export { consolidate, type ConsolidateResult } from './engine/consolidated.ts';

// Zarr v1 (one array per store) and conversion of v1 and v2 to v3.
export { V1Array, type V1ArrayInput } from './engine/v1-array.ts';
// The conversions load their code on first call (engine/conversions.ts).
export { convertV1ToV3, convertV2ToV3 } from './engine/conversions.ts';
export type { ConvertOptions, ConvertResult } from './engine/convert.ts';
export type { ConvertV2Options, ConvertV2Result } from './engine/convert-v2.ts';

// Formats and data model.
export type { NdArray } from './format/zarr/ndarray.ts';
export type { Float16Data, Float16Representation } from './format/zarr/float16-array.ts';
export type { ArrayData, TypedArray, DataType } from './format/zarr/data-types.ts';
export type { DataTypeKind } from './format/zarr/data-types.ts';
export type { VlenArrayElement, VlenArrayForm } from './format/numpy/vlen-array.ts';
export type { JsonValue } from './format/json.ts';
export type { FillValue, FillValueInput } from './format/zarr/fill-value.ts';
export type { ChunkKeyEncoding } from './format/zarr/chunk-keys.ts';
export type { ArrayMetadata, GroupMetadata, ArrayMetadataInput, Attributes } from './format/zarr/metadata.ts';
export type { CodecMetadata } from './format/codecs/types.ts';

// Object storage backends, and the wrappers that add retries, deadlines, limits and faults.
export { MemoryStorage, type MemoryStorageOptions } from './engine/storage/memory.ts';
export { FsStorage, type Durability, type FsStorageOptions } from './engine/storage/fs.ts';
export type { FileLockOptions } from './engine/storage/fs-lock.ts';
export { SqliteStorage, type SqliteStorageOptions } from './engine/storage/sqlite.ts';
export { S3Storage, type S3StorageOptions, type S3ClientLike } from './engine/storage/s3.ts';
export { HttpStorage, type HttpStorageOptions, type LinkEstimate } from './engine/storage/http.ts';
export type { HttpStackOptions } from './engine/storage/http-stack.ts';
export type { MultiRangeResult } from './engine/storage/range-batching.ts';
export { KNOWN_SCHEMES, parseLocation, type Location } from './engine/storage/location.ts';
export { wrapStorage, type Around, type StorageCall, type StorageOperation } from './engine/storage/wrap.ts';
export { withRetries, type RetryOptions } from './engine/storage/retries.ts';
export { withTimeouts, type TimeoutOptions } from './engine/storage/timeouts.ts';
export { withConcurrencyLimit } from './engine/storage/concurrency.ts';
export { createLimiter, type Limiter } from './engine/storage/limiter.ts';
export { withFaults, randomFaults, type Fault, type FaultPlan } from './engine/storage/faults.ts';
export { isTransientError } from './engine/storage/transient.ts';
export type {
  ObjectStorage, ByteRange, ObjectInfo, PutOptions, CopyOptions, AbortOptions, ObjectGetOptions, GetResult, ListDirResult, ListOptions, VersionToken, LocalObjectFile,
} from './engine/storage/types.ts';
// The read seam: what a session (and a plain store through its reader) offers every reader.
export type { ReadSource, NodeInfo, ChunkLocation, StoredChunk, ManifestPlanner, ManifestUse, ChunkBox, CacheUse } from './engine/read-source.ts';

// Versioned repositories (Icechunk): the names mirror @earthmover/icechunk's JS API.
export {
  Repository, Storage, Session, SessionStore, ChangeSet, GarbageCollection, GC_MINIMUM_GRACE_MS,
  BasicConflictSolver, CallbackConflictSolver, ConflictDetector, ConflictError, CONFLICT_TYPES, VersionSelection, isConflictError,
} from './txn/index.ts';
export type {
  RepositoryOptions, ReadonlySessionOptions, VersionOptions, DiffOptions, FeatureFlag, CommitLookup, S3Credentials,
  S3StorageConstructorOptions, HttpStorageConstructorOptions, CommitOptions, RepositoryConfig, VirtualChunkContainer, DiffResult,
  SnapshotDescription, Conflict, ConflictType, ConflictSolver, ConflictCallback, BasicConflictSolverOptions,
  ForkJSON, ChunkChangeMap, ResolvedRef, RetryBackoff, ExpireOptions, ExpireResult, GcOptions, GcSummary, GcBudget, GcCursor, OpsLogItem, VerifyOptions, VerifyReport, OutOfGridRef,
  ObjectStoreConfig, CachingConfig, CompressionConfig, HttpConfig, ManifestConfig, ManifestPreloadCondition, ManifestPreloadConfig,
  ManifestSplitCondition, ManifestSplitDim, ManifestSplitDimCondition, ManifestSplitRule, ManifestSplittingConfig, RepoUpdateRetryConfig,
  S3ChecksumAlgorithm, S3Options, StorageConcurrencySettings, StorageRetriesSettings, StorageSettings, StorageTimeoutSettings, U32Bound,
  U64, VirtualChunkLocationCompressionConfig,
} from './txn/index.ts';
// Virtual datasets: existing files as versioned arrays without copying their bytes (docs/virtual.md).
export { virtualize } from './txn/virtual-datasets.ts';
export type { VirtualizeOptions, VirtualizeResult, VirtualizeProgress, VirtualizedVariable, SkippedVariable, ConcatOptions } from './txn/virtualize.ts';
export type { SnapshotOpener } from './txn/session.ts';
export type { StorageLike } from './txn/storage.ts';
export type { MetadataValue } from './format/icechunk/metadata-value.ts';
export type { RepoStatus, RepoAvailability } from './format/icechunk/repo-updates.ts';
export { systemClock, type Clock } from './engine/storage/clock.ts';
export type { CacheBudgets } from './txn/objects.ts';
export type { ChunkPacking } from './txn/chunk-packer.ts';
export type { GcStepResult, GcKind, KindTotals } from './txn/maintenance/gc.ts';

// Declarative queries: a typed builder, a planner with explain(), and an HTTP endpoint.
export { query, formatPlan, ReadCaches } from './query/index.ts';
export { createQueryServer } from './query/http.ts';
export type { QueryBuilder, QueryOptions, Explanation, QueryResult, ArrayResult, CfResult, ExecutionReport, QueryPlan, CoalesceOptions, ReadCacheOptions, QueryLimits } from './query/index.ts';
export type { QueryServer, QueryServerOptions } from './query/http.ts';
export type { NodeServer, ServerLimitOptions, TlsOptions } from './query/http-limits.ts';
export type { WhereOp, WhereValue, ComparisonOp } from './query/nodes/where-node.ts';
export type { LabelValue } from './query/nodes/label.ts';
export type { NearestOptions } from './query/nodes/nearest-node.ts';
export type { DataTypeMap, DataOf, DTypeName } from './query/result-types.ts';
export type { FetchCount, FetchCounts, FetchPurpose } from './query/metered-store.ts';
export type { CacheHits } from './query/plan/planner.ts';
export type { ReadCacheStats } from './cache/read-caches.ts';
export type { ByteLruStats } from './cache/lru.ts';
export type { DecodedChunkStats } from './cache/decoded-chunks.ts';
