// Repository configuration. The public shape mirrors the reference JS API (camelCase fields,
// `manifest` as the serde JSON of the reference's ManifestConfig); the repo info file stores the
// reference's serde form (snake_case, FlexBuffers), which `toStoredConfig` / `fromStoredConfig`
// translate. Fields Floe does not interpret are carried along so a round trip loses nothing.
import { floeError } from '../errors.ts';
import type { MetadataValue } from '../format/icechunk/metadata-value.ts';

export type ObjectStoreConfig =
  | { type: 'InMemory' }
  | { type: 'LocalFileSystem'; field0: string }
  | { type: 'Http'; field0: { opts?: Record<string, string>; headers?: Record<string, string> } }
  | { type: 'S3Compatible'; field0: S3Options }
  | { type: 'S3'; field0: S3Options }
  | { type: 'Gcs'; field0: Record<string, string> }
  | { type: 'Azure'; field0: Record<string, string> }
  | { type: 'Tigris'; field0: S3Options };

export interface S3Options {
  region?: string;
  endpointUrl?: string;
  allowHttp?: boolean;
  anonymous?: boolean;
  forcePathStyle?: boolean;
  networkStreamTimeoutSeconds?: number;
  requesterPays?: boolean;
}

/** Where virtual chunk references with a URL prefix are read from, and how. */
export interface VirtualChunkContainer {
  name?: string;
  /** Locations starting with this prefix are served by this container, e.g. `file:///data/`. */
  urlPrefix: string;
  store: ObjectStoreConfig;
}

/**
 * Repository configuration, in the reference JS API's shape. Stored in the repository by
 * {@link Repository.create} and `saveConfig`; fields Floe does not interpret are kept on round trips.
 */
export interface RepositoryConfig {
  /** Encoded chunks at or below this many bytes are stored inside the manifest. Default 512. */
  inlineChunkThresholdBytes?: number;
  /** The reference's ManifestConfig as serde JSON (`{ splitting: { split_sizes: [...] } }`). */
  manifest?: MetadataValue;
  virtualChunkContainers?: Record<string, VirtualChunkContainer>;
  /** Ops-log entries kept in the repo info file before chaining to a backup. Default 1000. */
  numUpdatesPerRepoInfoFile?: number;
  /** Attempts of a repo-info compare-and-swap before giving up. Default 100. */
  repoUpdateRetries?: number;
}

export const DEFAULT_INLINE_THRESHOLD = 512;
export const DEFAULT_UPDATES_PER_FILE = 1000;
export const DEFAULT_REPO_UPDATE_RETRIES = 100;

/** The configuration with defaults applied: what the rest of txn reads. */
export interface ResolvedConfig {
  inlineChunkThresholdBytes: number;
  manifest: MetadataValue;
  virtualChunkContainers: VirtualChunkContainer[];
  numUpdatesPerRepoInfoFile: number;
  repoUpdateRetries: number;
}

export function resolveConfig(config: RepositoryConfig): ResolvedConfig {
  const positive = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 0) throw floeError('INVALID_ARGUMENT', `config ${name} must be a non-negative integer, got ${value}`);
    return value;
  };
  return {
    inlineChunkThresholdBytes: positive(config.inlineChunkThresholdBytes, DEFAULT_INLINE_THRESHOLD, 'inlineChunkThresholdBytes'),
    manifest: config.manifest ?? null,
    virtualChunkContainers: Object.values(config.virtualChunkContainers ?? {}),
    numUpdatesPerRepoInfoFile: Math.max(1, positive(config.numUpdatesPerRepoInfoFile, DEFAULT_UPDATES_PER_FILE, 'numUpdatesPerRepoInfoFile')),
    repoUpdateRetries: Math.max(1, positive(config.repoUpdateRetries, DEFAULT_REPO_UPDATE_RETRIES, 'repoUpdateRetries')),
  };
}

/** Later fields win; `undefined` keeps the earlier value. */
export function mergeConfig(base: RepositoryConfig, override: RepositoryConfig | undefined): RepositoryConfig {
  if (!override) return { ...base };
  const out: RepositoryConfig = { ...base };
  for (const [key, value] of Object.entries(override) as [keyof RepositoryConfig, unknown][]) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

type Json = { [key: string]: MetadataValue };
const STORE_TAGS: Record<ObjectStoreConfig['type'], string> = {
  InMemory: 'in_memory',
  LocalFileSystem: 'local_file_system',
  Http: 'http',
  S3Compatible: 's3_compatible',
  S3: 's3',
  Gcs: 'gcs',
  Azure: 'azure',
  Tigris: 'tigris',
};
const S3_FIELDS: [keyof S3Options, string][] = [
  ['region', 'region'], ['endpointUrl', 'endpoint_url'], ['anonymous', 'anonymous'], ['allowHttp', 'allow_http'],
  ['forcePathStyle', 'force_path_style'], ['networkStreamTimeoutSeconds', 'network_stream_timeout_seconds'], ['requesterPays', 'requester_pays'],
];

/**
 * The serde form the reference stores. Every top-level field is written (null when unset), as
 * the reference does, so that its deserializer finds the shape it expects.
 */
export function toStoredConfig(config: RepositoryConfig, carried: Json = {}): Json {
  const containers = config.virtualChunkContainers;
  return {
    caching: null,
    compression: null,
    get_partial_values_concurrency: null,
    max_concurrent_requests: null,
    previous_file: null,
    storage: null,
    ...carried,
    inline_chunk_threshold_bytes: config.inlineChunkThresholdBytes ?? null,
    manifest: config.manifest ?? null,
    num_updates_per_repo_info_file: config.numUpdatesPerRepoInfoFile ?? null,
    repo_update_retries: config.repoUpdateRetries ?? null,
    virtual_chunk_containers: containers
      ? Object.fromEntries(Object.entries(containers).map(([key, c]) => [key, { name: c.name ?? null, url_prefix: c.urlPrefix, store: storeToSerde(c.store) }]))
      : null,
  };
}

const INTERPRETED = new Set(['inline_chunk_threshold_bytes', 'manifest', 'num_updates_per_repo_info_file', 'repo_update_retries', 'virtual_chunk_containers']);

/** Parses the stored serde form; `carried` holds the fields Floe keeps without interpreting. */
export function fromStoredConfig(value: MetadataValue): { config: RepositoryConfig; carried: Json } {
  if (value === null) return { config: {}, carried: {} };
  if (typeof value !== 'object' || Array.isArray(value) || typeof value === 'bigint') {
    throw floeError('CORRUPT_OBJECT', 'the repository configuration is not a map');
  }
  const carried: Json = {};
  for (const [k, v] of Object.entries(value)) if (!INTERPRETED.has(k)) carried[k] = v;
  const num = (v: MetadataValue | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);
  const config: RepositoryConfig = {};
  const threshold = num(value.inline_chunk_threshold_bytes);
  if (threshold !== undefined) config.inlineChunkThresholdBytes = threshold;
  if (value.manifest !== undefined && value.manifest !== null) config.manifest = value.manifest;
  const updates = num(value.num_updates_per_repo_info_file);
  if (updates !== undefined) config.numUpdatesPerRepoInfoFile = updates;
  const retries = num(value.repo_update_retries);
  if (retries !== undefined) config.repoUpdateRetries = retries;
  const containers = value.virtual_chunk_containers;
  if (containers && typeof containers === 'object' && !Array.isArray(containers)) {
    config.virtualChunkContainers = {};
    for (const [key, raw] of Object.entries(containers)) {
      const c = raw as Json;
      if (typeof c?.url_prefix !== 'string') continue;
      config.virtualChunkContainers[key] = {
        ...(typeof c.name === 'string' ? { name: c.name } : {}),
        urlPrefix: c.url_prefix,
        store: storeFromSerde(c.store ?? null),
      };
    }
  }
  return { config, carried };
}

function storeToSerde(store: ObjectStoreConfig): MetadataValue {
  const tag = STORE_TAGS[store.type];
  switch (store.type) {
    case 'InMemory':
      return tag;
    case 'LocalFileSystem':
      return { [tag]: store.field0 };
    case 'S3':
    case 'S3Compatible':
    case 'Tigris':
      return { [tag]: Object.fromEntries(S3_FIELDS.map(([js, serde]) => [serde, (store.field0[js] as MetadataValue | undefined) ?? null])) };
    case 'Http':
      return { [tag]: { opts: store.field0.opts ?? {}, headers: store.field0.headers ?? {} } };
    case 'Gcs':
    case 'Azure':
      return { [tag]: store.field0 };
  }
}

function storeFromSerde(value: MetadataValue): ObjectStoreConfig {
  if (value === 'in_memory') return { type: 'InMemory' };
  const entry = value && typeof value === 'object' && !Array.isArray(value) && typeof value !== 'bigint' ? Object.entries(value)[0] : undefined;
  const type = entry ? (Object.keys(STORE_TAGS) as ObjectStoreConfig['type'][]).find((t) => STORE_TAGS[t] === entry[0]) : undefined;
  if (!entry || !type) return { type: 'Gcs', field0: {} }; // unknown store kinds are never read from
  const body = entry[1];
  switch (type) {
    case 'InMemory':
      return { type };
    case 'LocalFileSystem':
      return { type, field0: typeof body === 'string' ? body : '' };
    case 'S3':
    case 'S3Compatible':
    case 'Tigris': {
      const b = (body ?? {}) as Json;
      const options: S3Options = {};
      for (const [js, serde] of S3_FIELDS) if (b[serde] !== null && b[serde] !== undefined) (options as Record<string, unknown>)[js] = b[serde];
      return { type, field0: options };
    }
    case 'Http': {
      const b = (body ?? {}) as Json;
      return { type, field0: { opts: (b.opts ?? {}) as Record<string, string>, headers: (b.headers ?? {}) as Record<string, string> } };
    }
    case 'Gcs':
    case 'Azure':
      return { type, field0: (body ?? {}) as Record<string, string> };
  }
}
