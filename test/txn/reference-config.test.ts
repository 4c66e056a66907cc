// Issue 18: the repository configuration, across Floe and the reference Icechunk (WASM, 2.2.2)
// on the same directories. What the reference sets (each kind of split and preload condition),
// Floe reads identically and re-encodes to the same bytes; what Floe sets (retries, ops-log
// length, containers included), the reference opens, reads back and stores again unchanged.
// Two reference children in all: the WASM start-up is the slow part.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import { encodeStoredConfig } from '../../src/format/icechunk/repo-config-codec.ts';
import { decodeRepoConfig, decodeRepoInfo, encodeRepoConfig, encodeRepoInfo } from '../../src/format/icechunk/repo-info.ts';
import type { ManifestConfig, ManifestPreloadCondition, ManifestSplittingConfig } from '../../src/txn/config.ts';
import { Repository, Storage, type RepositoryConfig } from '../../src/txn/index.ts';
import { runReference } from '../support/reference-icechunk.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dirOf = (name: string) => path.join(scratch, name);
const storedConfigBytes = (dir: string): Uint8Array => {
  const config = decodeRepoInfo(readFileSync(path.join(dir, 'repo'))).config;
  if (!config) throw new Error(`no config stored in ${dir}`);
  return config;
};
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The reference JS getter returns unset fields as null; Floe leaves them out. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

// Every split condition (path_matches, name_matches, and, or, any_array) and dimension condition
// (Axis, DimensionName, Any); every preload condition; negative compression level (a positive i32
// is written as an unsigned FlexBuffers int by Floe, a signed one by the reference: same value,
// other bytes).
const splitting: ManifestSplittingConfig = {
  split_sizes: [
    [
      { and: [{ path_matches: { regex: '.*' } }, { or: [{ name_matches: { regex: 'temp' } }, 'any_array'] }] },
      [{ condition: { Axis: 0 }, num_chunks: 2 }, { condition: { DimensionName: 'time' }, num_chunks: 3 }, { condition: 'Any', num_chunks: 4 }],
    ],
    ['any_array', [{ condition: 'Any', num_chunks: 10 }]],
  ],
};
const preloadIf: ManifestPreloadCondition = {
  and: ['true', 'false', { num_refs: { from: 'Unbounded', to: { Included: 1000 } } }, { num_refs: { from: { Excluded: 3 }, to: 'Unbounded' } },
    { or: [{ name_matches: { regex: '^t$' } }, { path_matches: { regex: '/x' } }] }],
};
const manifest: ManifestConfig = {
  preload: { max_total_refs: 5, preload_if: preloadIf, max_arrays_to_scan: 6 },
  splitting,
  virtual_chunk_location_compression: { min_num_chunks: 1, dictionary_max_training_samples: 2, dictionary_max_size_bytes: 3, compression_level: -4 },
  max_concurrent_manifest_fetches_during_commit: 4,
};
/** The same, with the unit variant `"true"` written `{ true: null }` as the reference JS API's docs do. */
const manifestAsTheReferenceDocsWriteIt = {
  ...manifest,
  preload: { max_total_refs: 5, preload_if: { and: [{ true: null }, ...(preloadIf as { and: ManifestPreloadCondition[] }).and.slice(1)] }, max_arrays_to_scan: 6 },
};

const storageSettings = {
  concurrency: { maxConcurrentRequestsForObject: 3, idealConcurrentRequestSize: 4096 },
  retries: { maxTries: 5, initialBackoffMs: 6, maxBackoffMs: 7 },
  timeouts: { connectTimeoutMs: 1, readTimeoutMs: 2, operationTimeoutMs: 3, operationAttemptTimeoutMs: 4 },
  unsafeUseConditionalUpdate: true, unsafeUseConditionalCreate: false, unsafeUseMetadata: true,
  storageClass: 'a', metadataStorageClass: 'b', chunksStorageClass: 'c', minimumSizeForMultipartUpload: 9,
};

/** Set through the reference JS API (`{ true: null }` as its docs write a unit variant). */
const REFERENCE_SETS = {
  full: {
    inlineChunkThresholdBytes: 100, getPartialValuesConcurrency: 3, compression: { algorithm: 0, level: 5 }, maxConcurrentRequests: 7,
    maxConcurrentDecodes: 9, caching: { numChunkRefs: 1000, numBytesChunks: 2 ** 40 }, storage: storageSettings, manifest: manifestAsTheReferenceDocsWriteIt,
  },
  splitOnly: { manifest: { splitting: { split_sizes: [['any_array', [{ condition: { DimensionName: 'x' }, num_chunks: 1 }]]] } } },
};

/** What Floe must read from them, written out by hand (the reference stores `storage` even when not given). */
const FLOE_READS: Record<keyof typeof REFERENCE_SETS, RepositoryConfig> = {
  full: {
    inlineChunkThresholdBytes: 100, getPartialValuesConcurrency: 3, compression: { algorithm: 0, level: 5 }, maxConcurrentRequests: 7,
    maxConcurrentDecodes: 9, caching: { numChunkRefs: 1000, numBytesChunks: 2 ** 40 }, storage: storageSettings,
    manifest,
  },
  splitOnly: { storage: {}, manifest: { splitting: { split_sizes: [['any_array', [{ condition: { DimensionName: 'x' }, num_chunks: 1 }]]] } } },
};

/** Set by Floe: what the reference JS API cannot set (retries, ops-log length, containers) included. */
const FLOE_SETS: RepositoryConfig = {
  inlineChunkThresholdBytes: 64,
  compression: { level: 7 },
  caching: { numSnapshotNodes: 5 },
  storage: { retries: { maxTries: 4 } },
  virtualChunkContainers: {
    's3://bucket/data/': {
      urlPrefix: 's3://bucket/data/',
      store: { type: 'S3', field0: { region: 'us-east-1', anonymous: true, allowHttp: false, forcePathStyle: true, requesterPays: false, checksumAlgorithm: 'crc32c' } },
    },
    'https://example.com/': { name: 'web', urlPrefix: 'https://example.com/', store: { type: 'Http', field0: { opts: { timeout: '5s' }, headers: { authorization: 'x' } } } },
  },
  manifest,
  repoUpdateRetries: { default: { maxTries: 7, initialBackoffMs: 10, maxBackoffMs: 500 } },
  numUpdatesPerRepoInfoFile: 50,
};

/** The reference JS getter's view of FLOE_SETS: the WASM build shows no containers, retries or ops-log length. */
const REFERENCE_GETTER_SEES = {
  inlineChunkThresholdBytes: 64, compression: { level: 7 }, caching: { numSnapshotNodes: 5 }, storage: { retries: { maxTries: 4 } },
  manifest,
};

describe('repository config across Floe and the reference (issue 18)', () => {
  it('Floe reads what the reference set, field for field and byte for byte', async () => {
    const names = Object.keys(REFERENCE_SETS) as (keyof typeof REFERENCE_SETS)[];
    runReference({ op: 'create-with-configs', items: names.map((name) => ({ dir: dirOf(`ref-${name}`), config: REFERENCE_SETS[name] })) });
    for (const name of names) {
      const dir = dirOf(`ref-${name}`);
      const config = (await Repository.open(Storage.newLocalFilesystem(dir))).config;
      expect(config, name).toEqual(FLOE_READS[name]);
      // Floe's stored form of the same config is the reference's, byte for byte.
      expect(hex(encodeRepoConfig(encodeStoredConfig(config))), name).toBe(hex(storedConfigBytes(dir)));
    }
  }, 120_000);

  it('the reference opens what Floe set, reads it back and stores it again unchanged; both refuse what neither can hold', async () => {
    const written = dirOf('floe-full');
    await Repository.create(Storage.newLocalFilesystem(written), FLOE_SETS);
    const floeBytes = storedConfigBytes(written);
    // A stored value over its u16, as Floe before issue 18 would have written it.
    const overflow = dirOf('floe-overflow');
    await Repository.create(Storage.newLocalFilesystem(overflow));
    const file = path.join(overflow, 'repo');
    const stored = { ...(encodeStoredConfig({}) as Record<string, MetadataValue>), num_updates_per_repo_info_file: 70_000 };
    writeFileSync(file, encodeRepoInfo({ ...decodeRepoInfo(readFileSync(file)), config: encodeRepoConfig(stored) }));

    const [full, refused] = runReference<{ ok: boolean; config?: unknown; error?: string }[]>({
      op: 'open-configs', items: [{ dir: written, resave: true }, { dir: overflow, resave: false }],
    });
    expect(full?.ok, full?.error).toBe(true);
    expect(withoutNulls(full?.config)).toEqual(REFERENCE_GETTER_SEES);
    // The reference drops fields it cannot parse when it saves: everything came back, so it parsed everything.
    const resaved = storedConfigBytes(written);
    expect(decodeRepoConfig(resaved)).toEqual(decodeRepoConfig(floeBytes));
    // Equal values, not always equal bytes: the reference lays out its container map's entries in HashMap
    // order, random per process (byte equality failed 2 runs of 4).
    expect((await Repository.open(Storage.newLocalFilesystem(written))).config).toEqual(FLOE_SETS);

    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/deserialization/) });
    await expect(Repository.open(Storage.newLocalFilesystem(overflow))).rejects.toMatchObject({
      code: 'INVALID_CONFIG', where: 'repo', details: { field: 'num_updates_per_repo_info_file', value: '70000' },
    });
  }, 120_000);
});
