// The repository configuration, field for field with the reference Icechunk 2.2.2's
// `RepositoryConfig` (stored in the repo info file as FlexBuffers, serde's form). The public
// shape is the reference JS API's: camelCase fields, with `manifest` given in serde's own
// snake_case form. Every number field names the reference's integer type; values outside it are
// refused before anything is written (repo-config-codec.ts, docs/icechunk-format.md).
// Absent fields take the reference's defaults (noted per field).

/** An unsigned 64-bit value: a number when it is a safe integer, else a bigint. */
export type U64 = number | bigint;

/**
 * Repository configuration, stored in the repository by {@link Repository.create} and
 * `saveConfig`. Every field is optional; absent ones take the reference's defaults.
 */
export interface RepositoryConfig {
  /** u16. Encoded chunks at or below this many bytes are stored in the manifest. Default 512. */
  inlineChunkThresholdBytes?: number;
  /** u16. Keys fetched in parallel by a partial-values read (reference; Floe has its own limits). Default 10. */
  getPartialValuesConcurrency?: number;
  compression?: CompressionConfig;
  /** u16. The reference's cap on concurrent storage requests. Default 256. */
  maxConcurrentRequests?: number;
  /** u16. The reference's cap on concurrent chunk decodes. */
  maxConcurrentDecodes?: number;
  caching?: CachingConfig;
  /** Storage settings the reference applies to its own storage client. */
  storage?: StorageSettings;
  /** Keyed by URL prefix (the reference's compatibility key); replaced as a whole on merge. */
  virtualChunkContainers?: Record<string, VirtualChunkContainer>;
  /** Manifest preload, splitting and virtual-location compression, in serde's snake_case form. */
  manifest?: ManifestConfig;
  /** The spec-1 config file this one was migrated from. */
  previousFile?: string;
  /** Compare-and-swap retries of repo info updates (commits, refs, config). */
  repoUpdateRetries?: RepoUpdateRetryConfig;
  /** u16. Ops-log entries kept in the repo info file before older ones move to a backup. Default 1000. */
  numUpdatesPerRepoInfoFile?: number;
}

/** The reference JS API's `CompressionAlgorithm` (a const enum there): 0 is zstd, stored as `"zstd"`. */
export const CompressionAlgorithm = { Zstd: 0 } as const;
export type CompressionAlgorithm = (typeof CompressionAlgorithm)[keyof typeof CompressionAlgorithm];

/** How the reference compresses metadata files. */
export interface CompressionConfig {
  /** Default zstd. */
  algorithm?: CompressionAlgorithm;
  /** u8. Default 3. */
  level?: number;
}

/** The reference's in-memory cache sizes (u64 each). */
export interface CachingConfig {
  numSnapshotNodes?: U64;
  numChunkRefs?: U64;
  numTransactionChanges?: U64;
  numBytesAttributes?: U64;
  numBytesChunks?: U64;
}

/** The reference's storage client settings (Floe keeps them; its own storage options are separate). */
export interface StorageSettings {
  concurrency?: StorageConcurrencySettings;
  retries?: StorageRetriesSettings;
  timeouts?: StorageTimeoutSettings;
  unsafeUseConditionalUpdate?: boolean;
  unsafeUseConditionalCreate?: boolean;
  unsafeUseMetadata?: boolean;
  storageClass?: string;
  metadataStorageClass?: string;
  chunksStorageClass?: string;
  /** u64. */
  minimumSizeForMultipartUpload?: U64;
}

/** How the reference splits large requests. */
export interface StorageConcurrencySettings {
  /** u16, not 0. */
  maxConcurrentRequestsForObject?: number;
  /** u64, not 0. */
  idealConcurrentRequestSize?: U64;
}

/** Retry settings (the reference's `RetriesSettings`). */
export interface StorageRetriesSettings {
  /** u16, not 0. */
  maxTries?: number;
  /** u32. */
  initialBackoffMs?: number;
  /** u32. */
  maxBackoffMs?: number;
}

/** The reference's storage request timeouts, in milliseconds. */
export interface StorageTimeoutSettings {
  /** u32 each. */
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  operationTimeoutMs?: number;
  operationAttemptTimeoutMs?: number;
}

/**
 * Stored as `{ default: { max_tries, initial_backoff_ms, max_backoff_ms } }`. Defaults (the
 * reference's): 100 tries, backoff from 50 ms up to 30 s.
 */
export interface RepoUpdateRetryConfig {
  default?: StorageRetriesSettings;
}

/** Where virtual chunk references with a URL prefix are read from, and how. */
export interface VirtualChunkContainer {
  /** Kept for configurations written before 1.0. */
  name?: string;
  /** Locations starting with this prefix are served by this container, e.g. `s3://bucket/data/`. */
  urlPrefix: string;
  store: ObjectStoreConfig;
}

/** The reference JS API's object store kinds (serde stores them snake_case: `s3_compatible`). */
export type ObjectStoreConfig =
  | { type: 'InMemory' }
  | { type: 'LocalFileSystem'; field0: string }
  | { type: 'Http'; field0: HttpConfig }
  | { type: 'S3Compatible'; field0: S3Options }
  | { type: 'S3'; field0: S3Options }
  | { type: 'Gcs'; field0: Record<string, string> }
  | { type: 'Azure'; field0: Record<string, string> }
  | { type: 'Tigris'; field0: S3Options };

/** Stored with `opts` flattened into the map and `headers` under its own key (omitted when empty). */
export interface HttpConfig {
  opts?: Record<string, string>;
  headers?: Record<string, string>;
}

/** The four flags are plain booleans in the reference (stored `false` when absent). */
export interface S3Options {
  region?: string;
  endpointUrl?: string;
  anonymous?: boolean;
  allowHttp?: boolean;
  forcePathStyle?: boolean;
  /** u32. */
  networkStreamTimeoutSeconds?: number;
  requesterPays?: boolean;
  checksumAlgorithm?: S3ChecksumAlgorithm;
}

/** The checksum the reference asks S3 for (serde snake_case names). */
export type S3ChecksumAlgorithm = 'crc32' | 'crc32c' | 'crc64_nvme' | 'sha1' | 'sha256';

// --- manifest: serde's own form, as the reference JS API takes it (`null` is the same as absent) ---

/** The reference's ManifestConfig, in serde's form. */
export interface ManifestConfig {
  preload?: ManifestPreloadConfig | null;
  /** Absent: the reference's default, one manifest per array. */
  splitting?: ManifestSplittingConfig | null;
  virtual_chunk_location_compression?: VirtualChunkLocationCompressionConfig | null;
  /** u16. */
  max_concurrent_manifest_fetches_during_commit?: number | null;
}

/** Which manifests the reference loads when a session opens. */
export interface ManifestPreloadConfig {
  /** u32. Default 10000. */
  max_total_refs?: number | null;
  preload_if?: ManifestPreloadCondition | null;
  /** u32. Default 50. */
  max_arrays_to_scan?: number | null;
}

/** When the reference preloads a manifest. Unit variants are strings (`"true"`); `{ true: null }` is read as the same. */
export type ManifestPreloadCondition =
  | { or: ManifestPreloadCondition[] }
  | { and: ManifestPreloadCondition[] }
  | { path_matches: { regex: string } }
  | { name_matches: { regex: string } }
  | { num_refs: { from: U32Bound; to: U32Bound } }
  | 'true'
  | 'false';

/** Rust's `Bound<u32>` in serde's form. */
export type U32Bound = 'Unbounded' | { Included: number } | { Excluded: number };

/** How each array's chunk references are split across manifests. */
export interface ManifestSplittingConfig {
  /** Rules in order: an array condition and the split sizes of the dimensions it matches. */
  split_sizes?: ManifestSplitRule[] | null;
}

/** One splitting rule: the arrays it applies to and the split size of the dimensions it names. */
export type ManifestSplitRule = [ManifestSplitCondition, ManifestSplitDim[]];

/** Which arrays a splitting rule applies to: serde snake_case names, `"any_array"` (not `AnyArray`). */
export type ManifestSplitCondition =
  | { or: ManifestSplitCondition[] }
  | { and: ManifestSplitCondition[] }
  | { path_matches: { regex: string } }
  | { name_matches: { regex: string } }
  | 'any_array';

/** A split size for the dimensions a condition matches. */
export interface ManifestSplitDim {
  condition: ManifestSplitDimCondition;
  /** u32, not 0 (the reference's commit panics on 0). */
  num_chunks: number;
}

/** serde's default (PascalCase) names: `{ Axis: 0 }`, `{ DimensionName: "time" }` (a Rust regex, found anywhere in the name), `"Any"`. `Axis` is a usize, at most u32 (the WASM build's). */
export type ManifestSplitDimCondition = { Axis: number } | { DimensionName: string } | 'Any';

/** How the reference compresses virtual chunk locations inside manifests. */
export interface VirtualChunkLocationCompressionConfig {
  /** u16. */
  min_num_chunks?: number | null;
  /** u16. */
  dictionary_max_training_samples?: number | null;
  /** u32. */
  dictionary_max_size_bytes?: number | null;
  /** i32. */
  compression_level?: number | null;
}
