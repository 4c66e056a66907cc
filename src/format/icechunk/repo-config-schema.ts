// The reference Icechunk 2.2.2's RepositoryConfig as one table: every struct's fields in serde
// declaration order (the order the reference writes them), each field's type and integer width,
// and how two configs merge. repo-config-codec.ts reads, validates, writes and merges by walking
// it, so a field added here is handled everywhere at once. Names and widths were read from the
// reference's source and checked against the 2.2.2 WASM build (it names the expected type when a
// value does not fit).

/** An integer type of the reference, with its range. */
export type IntegerType = 'u8' | 'u16' | 'u32' | 'u64' | 'i32' | 'usize';

export const INTEGER_RANGES: Readonly<Record<IntegerType, readonly [bigint, bigint]>> = {
  u8: [0n, 0xffn],
  u16: [0n, 0xffffn],
  u32: [0n, 0xffff_ffffn],
  u64: [0n, 0xffff_ffff_ffff_ffffn],
  i32: [-0x8000_0000n, 0x7fff_ffffn],
  // usize is u64 natively but u32 in the reference's WASM build: a config both can open stays in u32.
  usize: [0n, 0xffff_ffffn],
};

export type Schema =
  | { readonly kind: 'integer'; readonly type: IntegerType; readonly nonZero?: true }
  | { readonly kind: 'bool' }
  | { readonly kind: 'string' }
  | { readonly kind: 'struct'; readonly name: string; readonly naming: 'camel' | 'snake'; readonly fields: readonly Field[] }
  /** HashMap<String, T>. */
  | { readonly kind: 'map'; readonly value: Schema }
  | { readonly kind: 'list'; readonly item: Schema }
  /** A serde tuple of two. */
  | { readonly kind: 'pair'; readonly items: readonly [Schema, Schema] }
  /**
   * An externally tagged enum: a unit variant (null) is its name as a string, another is
   * `{ name: value }`. `napi`: the public shape is the reference JS API's `{ type, field0 }` with
   * PascalCase names. `storedAliases`: old names Floe wrote, read as the reference's.
   */
  | {
      readonly kind: 'enum';
      readonly name: string;
      readonly variants: Readonly<Record<string, Schema | null>>;
      readonly napi?: true;
      readonly storedAliases?: Readonly<Record<string, string>>;
    }
  /** A unit-only enum whose public values differ from the stored names (the JS API's const enums). */
  | { readonly kind: 'named'; readonly values: readonly (readonly [publicValue: number, stored: string])[] }
  /** HttpConfig: `opts` flattened into the stored map, `headers` under its own key. */
  | { readonly kind: 'http' }
  | { readonly kind: 'lazy'; readonly get: () => Schema };

export interface Field {
  /** The serde name; the public name is its camelCase form when the struct's naming is camel. */
  readonly name: string;
  readonly schema: Schema;
  /** Not an Option in the reference: must be present. */
  readonly required?: true;
  /** Not an Option, with a serde default: written as this value when absent. */
  readonly absentIs?: boolean;
  /** Merging replaces this field as a whole instead of merging its own fields (the reference's rule). */
  readonly mergeReplaces?: true;
  /** Reads an older stored form Floe wrote into the reference's (undefined: not that form). */
  readonly storedLegacy?: (value: unknown) => unknown;
}

const integer = (type: IntegerType, nonZero?: true): Schema => (nonZero ? { kind: 'integer', type, nonZero } : { kind: 'integer', type });
const bool: Schema = { kind: 'bool' };
const string: Schema = { kind: 'string' };
const field = (name: string, schema: Schema, options: Omit<Field, 'name' | 'schema'> = {}): Field => ({ name, schema, ...options });
const struct = (name: string, naming: 'camel' | 'snake', fields: Field[]): Schema => ({ kind: 'struct', name, naming, fields });
const listOf = (get: () => Schema): Schema => ({ kind: 'list', item: { kind: 'lazy', get } });
const regex = struct('regex', 'snake', [field('regex', string, { required: true })]);

const retries = struct('RetriesSettings', 'camel', [
  field('max_tries', integer('u16', true)),
  field('initial_backoff_ms', integer('u32')),
  field('max_backoff_ms', integer('u32')),
]);

const storage = struct('Settings', 'camel', [
  field('concurrency', struct('ConcurrencySettings', 'camel', [
    field('max_concurrent_requests_for_object', integer('u16', true)),
    field('ideal_concurrent_request_size', integer('u64', true)),
  ])),
  field('retries', retries),
  field('timeouts', struct('TimeoutSettings', 'camel', [
    field('connect_timeout_ms', integer('u32')),
    field('read_timeout_ms', integer('u32')),
    field('operation_timeout_ms', integer('u32')),
    field('operation_attempt_timeout_ms', integer('u32')),
  ])),
  field('unsafe_use_conditional_update', bool),
  field('unsafe_use_conditional_create', bool),
  field('unsafe_use_metadata', bool),
  field('storage_class', string),
  field('metadata_storage_class', string),
  field('chunks_storage_class', string),
  field('minimum_size_for_multipart_upload', integer('u64')),
]);

const s3Options = struct('S3Options', 'camel', [
  field('region', string),
  field('endpoint_url', string),
  field('anonymous', bool, { absentIs: false }),
  field('allow_http', bool, { absentIs: false }),
  field('force_path_style', bool, { absentIs: false }),
  field('network_stream_timeout_seconds', integer('u32')),
  field('requester_pays', bool, { absentIs: false }),
  field('checksum_algorithm', { kind: 'enum', name: 'S3ChecksumAlgorithm', variants: { crc32: null, crc32c: null, crc64_nvme: null, sha1: null, sha256: null } }),
]);

const stringMap: Schema = { kind: 'map', value: string };

const objectStore: Schema = {
  kind: 'enum',
  name: 'ObjectStoreConfig',
  napi: true,
  variants: {
    in_memory: null,
    local_file_system: string,
    http: { kind: 'http' },
    s3_compatible: s3Options,
    s3: s3Options,
    gcs: stringMap,
    azure: stringMap,
    tigris: s3Options,
  },
};

const virtualChunkContainer = struct('VirtualChunkContainer', 'camel', [
  field('name', string),
  field('url_prefix', string, { required: true }),
  field('store', objectStore, { required: true }),
]);

const splitCondition: Schema = {
  kind: 'enum',
  name: 'ManifestSplitCondition',
  variants: {
    or: listOf(() => splitCondition),
    and: listOf(() => splitCondition),
    path_matches: regex,
    name_matches: regex,
    any_array: null,
  },
  // Floe before issue 18 wrote the Rust variant name.
  storedAliases: { AnyArray: 'any_array' },
};

const splitDimCondition: Schema = {
  kind: 'enum',
  name: 'ManifestSplitDimCondition',
  variants: { Axis: integer('usize'), DimensionName: string, Any: null },
};

const splitting = struct('ManifestSplittingConfig', 'snake', [
  field('split_sizes', {
    kind: 'list',
    item: {
      kind: 'pair',
      items: [
        splitCondition,
        { kind: 'list', item: struct('ManifestSplitDim', 'snake', [
          field('condition', splitDimCondition, { required: true }),
          field('num_chunks', integer('u32', true), { required: true }),
        ]) },
      ],
    },
  }),
]);

const u32Bound: Schema = { kind: 'enum', name: 'Bound', variants: { Unbounded: null, Included: integer('u32'), Excluded: integer('u32') } };

const preloadCondition: Schema = {
  kind: 'enum',
  name: 'ManifestPreloadCondition',
  variants: {
    or: listOf(() => preloadCondition),
    and: listOf(() => preloadCondition),
    path_matches: regex,
    name_matches: regex,
    num_refs: struct('num_refs', 'snake', [field('from', u32Bound, { required: true }), field('to', u32Bound, { required: true })]),
    true: null,
    false: null,
  },
};

const manifest = struct('ManifestConfig', 'snake', [
  field('preload', struct('ManifestPreloadConfig', 'snake', [
    field('max_total_refs', integer('u32')),
    field('preload_if', preloadCondition),
    field('max_arrays_to_scan', integer('u32')),
  ]), { mergeReplaces: true }),
  field('splitting', splitting, { mergeReplaces: true }),
  field('virtual_chunk_location_compression', struct('ManifestVirtualChunkLocationCompressionConfig', 'snake', [
    field('min_num_chunks', integer('u16')),
    field('dictionary_max_training_samples', integer('u16')),
    field('dictionary_max_size_bytes', integer('u32')),
    field('compression_level', integer('i32')),
  ])),
  field('max_concurrent_manifest_fetches_during_commit', integer('u16')),
]);

/** Floe before issue 18 stored `repo_update_retries` as a bare number of attempts. */
function legacyRetryCount(value: unknown): unknown {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
  return { default: { max_tries: Math.min(0xffff, Math.max(1, value)), initial_backoff_ms: null, max_backoff_ms: null } };
}

export const REPOSITORY_CONFIG: Schema = struct('RepositoryConfig', 'camel', [
  field('inline_chunk_threshold_bytes', integer('u16')),
  field('get_partial_values_concurrency', integer('u16')),
  field('compression', struct('CompressionConfig', 'camel', [
    field('algorithm', { kind: 'named', values: [[0, 'zstd']] }),
    field('level', integer('u8')),
  ])),
  field('max_concurrent_requests', integer('u16')),
  field('max_concurrent_decodes', integer('u16')),
  field('caching', struct('CachingConfig', 'camel', [
    field('num_snapshot_nodes', integer('u64')),
    field('num_chunk_refs', integer('u64')),
    field('num_transaction_changes', integer('u64')),
    field('num_bytes_attributes', integer('u64')),
    field('num_bytes_chunks', integer('u64')),
  ])),
  field('storage', storage),
  field('virtual_chunk_containers', { kind: 'map', value: virtualChunkContainer }),
  field('manifest', manifest),
  field('previous_file', string),
  field('repo_update_retries', struct('RepoUpdateRetryConfig', 'snake', [field('default', retries)]), { storedLegacy: legacyRetryCount }),
  field('num_updates_per_repo_info_file', integer('u16')),
]);

/** `inline_chunk_threshold_bytes` → `inlineChunkThresholdBytes`. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A field's name on the given side. */
export function fieldName(struct: { naming: 'camel' | 'snake' }, field: Field, side: 'public' | 'stored'): string {
  return side === 'public' && struct.naming === 'camel' ? camelCase(field.name) : field.name;
}
