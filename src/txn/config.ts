// Repository configuration as the rest of txn uses it. The model, its stored form and its
// validation live in src/format/icechunk/repo-config*.ts (field for field with the reference
// Icechunk); this module applies the defaults Floe acts on. The codec (schema table, reader,
// writer) loads on first need: a repository that stores no config and is opened without
// overrides never needs it, and `import 'floe'` should not pay for it. The async entry points
// (Repository.open/create/fetchConfig/saveConfig/replaceConfig) load it before any sync use.
import { sleepAbortably } from '../engine/abort.ts';
import { systemClock, type Clock } from '../engine/storage/clock.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';
import type { RepositoryConfig, VirtualChunkContainer } from '../format/icechunk/repo-config.ts';

export type {
  CachingConfig, CompressionConfig, HttpConfig, ManifestConfig, ManifestPreloadCondition, ManifestPreloadConfig,
  ManifestSplitCondition, ManifestSplitDim, ManifestSplitDimCondition, ManifestSplitRule, ManifestSplittingConfig,
  ObjectStoreConfig, RepositoryConfig, RepoUpdateRetryConfig, S3ChecksumAlgorithm, S3Options, StorageConcurrencySettings,
  StorageRetriesSettings, StorageSettings, StorageTimeoutSettings, U32Bound, U64, VirtualChunkContainer,
  VirtualChunkLocationCompressionConfig,
} from '../format/icechunk/repo-config.ts';

export const DEFAULT_INLINE_THRESHOLD = 512;
/** The reference 2.2.2's default (measured: its 1001st update moved the oldest entries to a backup). */
export const DEFAULT_UPDATES_PER_FILE = 1000;
/** The reference's `repo_update_retries` default attempts. */
export const DEFAULT_REPO_UPDATE_TRIES = 100;

/** The configuration with defaults applied: what the rest of txn reads. */
export interface ResolvedConfig {
  inlineChunkThresholdBytes: number;
  /** The reference's ManifestConfig in its stored (serde) form; null when unset. */
  manifest: MetadataValue;
  virtualChunkContainers: VirtualChunkContainer[];
  numUpdatesPerRepoInfoFile: number;
  /** Compare-and-swap attempts of a repo info update. */
  repoUpdateRetries: number;
  /** Backoff between those attempts when the configuration sets it (else the store's own). */
  repoUpdateBackoff: { initialMs: number; maxMs: number } | undefined;
}

/** Defaults applied to a valid configuration (the codec has checked every range). */
export function resolveConfig(config: RepositoryConfig): ResolvedConfig {
  const retries = config.repoUpdateRetries?.default;
  const initialMs = retries?.initialBackoffMs;
  const maxMs = retries?.maxBackoffMs;
  return {
    inlineChunkThresholdBytes: config.inlineChunkThresholdBytes ?? DEFAULT_INLINE_THRESHOLD,
    manifest: storedManifest(config),
    virtualChunkContainers: Object.values(config.virtualChunkContainers ?? {}),
    // 0 is storable (u16); Floe keeps at least the entry being written.
    numUpdatesPerRepoInfoFile: Math.max(1, config.numUpdatesPerRepoInfoFile ?? DEFAULT_UPDATES_PER_FILE),
    repoUpdateRetries: retries?.maxTries ?? DEFAULT_REPO_UPDATE_TRIES,
    repoUpdateBackoff: initialMs === undefined && maxMs === undefined ? undefined : { initialMs: initialMs ?? 50, maxMs: maxMs ?? 30_000 },
  };
}

/**
 * Later fields win, nested settings merge field by field (the reference's merge). `base` is
 * canonical (read by the codec); an override that sets nothing leaves it as it is.
 */
export function mergeConfig(base: RepositoryConfig, override: RepositoryConfig | undefined): RepositoryConfig {
  if (override === undefined || isUnset(override)) return base;
  return loadedConfigCodec().mergeRepoConfig(base, override);
}

/** Whether a configuration sets nothing (as the codec's isEmptyConfig, without loading it). */
function isUnset(config: RepositoryConfig): boolean {
  return Object.values(config).every((v) => v === undefined);
}

type ConfigCodec = typeof import('../format/icechunk/repo-config-codec.ts');
let configCodec: ConfigCodec | undefined;

/** The config codec, loaded once. */
export async function loadConfigCodec(): Promise<ConfigCodec> {
  configCodec ??= await import('../format/icechunk/repo-config-codec.ts');
  return configCodec;
}

/**
 * The codec, for sync code that holds a config the codec read (so it is loaded). A config that
 * sets anything came through it: only a caller that built one by hand can get here first.
 */
function loadedConfigCodec(): ConfigCodec {
  if (configCodec === undefined) throw new Error('repository config codec used before loadConfigCodec()');
  return configCodec;
}

/** A configuration a caller passed, checked (`INVALID_CONFIG`); none is the empty one. */
export async function validateConfig(config: unknown): Promise<RepositoryConfig> {
  if (config === undefined || config === null) return {};
  return (await loadConfigCodec()).validateRepoConfig(config);
}

/**
 * A stored (serde) configuration, read (`INVALID_CONFIG`). null, and a map of nulls (what the
 * reference stores for a default config), are the empty one: every top-level field is optional.
 */
export async function decodeConfig(value: MetadataValue, where: string): Promise<RepositoryConfig> {
  if (value === null || isMapOfNulls(value)) return {};
  return (await loadConfigCodec()).decodeStoredConfig(value, where);
}

function isMapOfNulls(value: MetadataValue): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return false;
  return Object.values(value).every((v) => v === null);
}

function storedManifest(config: RepositoryConfig): MetadataValue {
  if (config.manifest === undefined) return null;
  const stored = loadedConfigCodec().encodeStoredConfig({ manifest: config.manifest });
  return stored !== null && typeof stored === 'object' && !Array.isArray(stored) && !(stored instanceof Uint8Array) ? (stored.manifest ?? null) : null;
}

/** Exponential backoff with full jitter between the configured bounds, on `clock`; an abort ends it (ABORTED). */
export function configuredBackoff(bounds: { initialMs: number; maxMs: number }, clock: Clock = systemClock): (attempt: number, signal?: AbortSignal) => Promise<void> {
  return (attempt, signal) => {
    const ceiling = Math.min(bounds.maxMs, bounds.initialMs * 2 ** Math.min(attempt, 30));
    return sleepAbortably(clock, ceiling * Math.random(), signal); // on the clock, and ended by an abort
  };
}
