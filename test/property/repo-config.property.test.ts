// Issue 18: the repository configuration round-trips through its stored FlexBuffers form without
// loss, and fields Floe does not know survive a save. The arbitraries below are written from the
// reference's types (docs/icechunk-format.md), not derived from Floe's schema table.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import { decodeStoredConfig, encodeStoredConfig, validateRepoConfig } from '../../src/format/icechunk/repo-config-codec.ts';
import type {
  ManifestConfig, ManifestPreloadCondition, ManifestSplitCondition, ManifestSplitDimCondition, ObjectStoreConfig, RepositoryConfig,
  S3Options, U32Bound,
} from '../../src/format/icechunk/repo-config.ts';
import { decodeRepoConfig, encodeRepoConfig } from '../../src/format/icechunk/repo-info.ts';

const RUNS = Number(process.env.FLOE_CONFIG_PROPERTY_RUNS ?? 200);

const uint = (bits: number, min = 0) => fc.integer({ min, max: 2 ** bits - 1 });
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** u64 values come back as numbers when safe, else as bigints. */
const u64 = (min = 0n) => fc.bigInt({ min, max: 2n ** 64n - 1n }).map((b) => (b <= MAX_SAFE ? Number(b) : b));
const text = fc.string({ maxLength: 12 });
const key = text.filter((k) => !k.includes('\u0000'));
const stringMap = fc.dictionary(key, text, { maxKeys: 3 });
const optional = <T extends object>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(shape, { requiredKeys: [] });

const retries = optional({ maxTries: uint(16, 1), initialBackoffMs: uint(32), maxBackoffMs: uint(32) });

const s3Options: fc.Arbitrary<S3Options> = fc.record({
  region: text, endpointUrl: text, anonymous: fc.boolean(), allowHttp: fc.boolean(), forcePathStyle: fc.boolean(),
  networkStreamTimeoutSeconds: uint(32), requesterPays: fc.boolean(), checksumAlgorithm: fc.constantFrom('crc32', 'crc32c', 'crc64_nvme', 'sha1', 'sha256'),
}, { requiredKeys: ['anonymous', 'allowHttp', 'forcePathStyle', 'requesterPays'] });

const objectStore: fc.Arbitrary<ObjectStoreConfig> = fc.oneof(
  fc.constant({ type: 'InMemory' as const }),
  text.map((field0) => ({ type: 'LocalFileSystem' as const, field0 })),
  fc.record({ opts: stringMap.filter((m) => !('headers' in m)), headers: stringMap }).map((field0) => ({ type: 'Http' as const, field0 })),
  s3Options.map((field0) => ({ type: 'S3' as const, field0 })),
  s3Options.map((field0) => ({ type: 'S3Compatible' as const, field0 })),
  s3Options.map((field0) => ({ type: 'Tigris' as const, field0 })),
  stringMap.map((field0) => ({ type: 'Gcs' as const, field0 })),
  stringMap.map((field0) => ({ type: 'Azure' as const, field0 })),
);

const regex = text.map((r) => ({ regex: r }));

const splitCondition = fc.letrec<{ c: ManifestSplitCondition }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant('any_array' as const),
    regex.map((path_matches) => ({ path_matches })),
    regex.map((name_matches) => ({ name_matches })),
    fc.array(tie('c'), { maxLength: 3 }).map((or) => ({ or })),
    fc.array(tie('c'), { maxLength: 3 }).map((and) => ({ and })),
  ),
})).c;

const dimCondition: fc.Arbitrary<ManifestSplitDimCondition> = fc.oneof(
  fc.constant('Any' as const),
  uint(32).map((Axis) => ({ Axis })),
  text.map((DimensionName) => ({ DimensionName })),
);

const bound: fc.Arbitrary<U32Bound> = fc.oneof(
  fc.constant('Unbounded' as const),
  uint(32).map((Included) => ({ Included })),
  uint(32).map((Excluded) => ({ Excluded })),
);

const preloadCondition = fc.letrec<{ c: ManifestPreloadCondition }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('true' as const, 'false' as const),
    regex.map((path_matches) => ({ path_matches })),
    regex.map((name_matches) => ({ name_matches })),
    fc.record({ from: bound, to: bound }).map((num_refs) => ({ num_refs })),
    fc.array(tie('c'), { maxLength: 3 }).map((or) => ({ or })),
    fc.array(tie('c'), { maxLength: 3 }).map((and) => ({ and })),
  ),
})).c;

const manifest: fc.Arbitrary<ManifestConfig> = optional({
  preload: optional({ max_total_refs: uint(32), preload_if: preloadCondition, max_arrays_to_scan: uint(32) }),
  splitting: optional({
    split_sizes: fc.array(fc.tuple(splitCondition, fc.array(fc.record({ condition: dimCondition, num_chunks: uint(32, 1) }), { maxLength: 3 })), { maxLength: 3 }),
  }),
  virtual_chunk_location_compression: optional({
    min_num_chunks: uint(16), dictionary_max_training_samples: uint(16), dictionary_max_size_bytes: uint(32),
    compression_level: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  }),
  max_concurrent_manifest_fetches_during_commit: uint(16),
});

/** Any configuration the reference can store, in Floe's canonical public form. */
export const repositoryConfig: fc.Arbitrary<RepositoryConfig> = optional({
  inlineChunkThresholdBytes: uint(16),
  getPartialValuesConcurrency: uint(16),
  compression: optional({ algorithm: fc.constant(0 as const), level: uint(8) }),
  maxConcurrentRequests: uint(16),
  maxConcurrentDecodes: uint(16),
  caching: optional({ numSnapshotNodes: u64(), numChunkRefs: u64(), numTransactionChanges: u64(), numBytesAttributes: u64(), numBytesChunks: u64() }),
  storage: optional({
    concurrency: optional({ maxConcurrentRequestsForObject: uint(16, 1), idealConcurrentRequestSize: u64(1n) }),
    retries,
    timeouts: optional({ connectTimeoutMs: uint(32), readTimeoutMs: uint(32), operationTimeoutMs: uint(32), operationAttemptTimeoutMs: uint(32) }),
    unsafeUseConditionalUpdate: fc.boolean(),
    unsafeUseConditionalCreate: fc.boolean(),
    unsafeUseMetadata: fc.boolean(),
    storageClass: text,
    metadataStorageClass: text,
    chunksStorageClass: text,
    minimumSizeForMultipartUpload: u64(),
  }),
  virtualChunkContainers: fc.dictionary(key, optional({ name: text }).chain((named) =>
    fc.record({ urlPrefix: text, store: objectStore }).map((c) => ({ ...named, ...c }))), { maxKeys: 3 }),
  manifest,
  previousFile: text,
  repoUpdateRetries: optional({ default: retries }),
  numUpdatesPerRepoInfoFile: uint(16),
});

/** Through the bytes the repo info file holds. */
function throughBytes(config: RepositoryConfig, previous: MetadataValue = null): { value: MetadataValue; bytes: Uint8Array } {
  const bytes = encodeRepoConfig(encodeStoredConfig(config, previous));
  return { value: decodeRepoConfig(bytes), bytes };
}

type Json = { [key: string]: MetadataValue };
const isMap = (v: MetadataValue | undefined): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Struct levels of the stored form where a newer reference could add fields. */
const STRUCT_PATHS: readonly (readonly string[])[] = [
  [], ['compression'], ['caching'], ['storage'], ['storage', 'retries'], ['manifest'], ['manifest', 'preload'],
  ['manifest', 'splitting'], ['repo_update_retries'], ['repo_update_retries', 'default'],
];

const futureValue = fc.oneof(fc.integer(), fc.boolean(), text, fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(key, fc.integer(), { maxKeys: 2 }));
const futureFields = fc.array(fc.tuple(fc.constantFrom(...STRUCT_PATHS), key.map((k) => `zz_future_${k}`), futureValue), { maxLength: 6 });

/** Adds fields at the end of the struct maps that exist (as a newer writer appends them). */
function withFutureFields(stored: MetadataValue, fields: readonly (readonly [readonly string[], string, MetadataValue])[]): MetadataValue {
  const copy = structuredClone(stored);
  for (const [at, name, value] of fields) {
    let node: MetadataValue | undefined = copy;
    for (const step of at) node = isMap(node) ? node[step] : undefined;
    if (isMap(node)) node[name] = value;
  }
  return copy;
}

describe('repository config: stored form (issue 18)', () => {
  it('decode(encode(c)) is c for every storable configuration, through the FlexBuffers bytes', () => {
    fc.assert(
      fc.property(repositoryConfig, (config) => {
        expect(validateRepoConfig(config)).toEqual(config);
        expect(decodeStoredConfig(throughBytes(config).value)).toEqual(config);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps fields it does not know on every struct level when saving over a stored config, byte for byte', () => {
    fc.assert(
      fc.property(repositoryConfig, futureFields, (config, fields) => {
        const stored = withFutureFields(throughBytes(config).value, fields);
        const storedBytes = encodeRepoConfig(stored);
        const read = decodeStoredConfig(decodeRepoConfig(storedBytes));
        expect(read).toEqual(config);
        const saved = throughBytes(read, decodeRepoConfig(storedBytes));
        expect(saved.value).toEqual(stored);
        expect(Buffer.from(saved.bytes).equals(Buffer.from(storedBytes))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('a changed config keeps the unknown fields of the levels it still has', () => {
    fc.assert(
      fc.property(repositoryConfig, repositoryConfig, futureFields, (first, second, fields) => {
        const stored = withFutureFields(throughBytes(first).value, fields);
        const saved = throughBytes(second, stored).value;
        expect(decodeStoredConfig(saved)).toEqual(second);
        for (const [at, name] of fields) {
          const lookup = (root: MetadataValue) => at.reduce<MetadataValue | undefined>((node, step) => (isMap(node) ? node[step] : undefined), root);
          const before = lookup(stored);
          const after = lookup(saved);
          // Carried over wherever the level was there before and is there after.
          if (isMap(before) && name in before && isMap(after)) expect(after[name]).toEqual(before[name]);
        }
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
