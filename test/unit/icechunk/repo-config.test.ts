// Issue 18: values the reference Icechunk cannot store are refused with the field, the value and
// the allowed range, before anything is written; Floe's older stored forms still read; two
// configurations merge as the reference merges them. Ranges are the reference 2.2.2's, as its
// WASM build reports them (`expected u16`, `expected u32`, ...).
import { describe, expect, it } from 'vitest';
import { floeError, isFloeError } from '../../../src/errors.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import type { PutOptions, VersionToken } from '../../../src/engine/storage/types.ts';
import { decodeStoredConfig, encodeStoredConfig, mergeRepoConfig, validateRepoConfig } from '../../../src/format/icechunk/repo-config-codec.ts';
import type { RepositoryConfig } from '../../../src/format/icechunk/repo-config.ts';
import { decodeRepoConfig, decodeRepoInfo } from '../../../src/format/icechunk/repo-info.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';

/** The INVALID_CONFIG details a call throws (a non-config failure fails the test). */
function refusal(run: () => unknown): { field: string; value: string; allowed: string; where: string | undefined } {
  try {
    run();
  } catch (err) {
    if (isFloeError(err, 'INVALID_CONFIG')) return { ...err.details, where: err.where };
    throw err;
  }
  throw new Error('expected INVALID_CONFIG, nothing was thrown');
}

const split = (condition: unknown, dims: unknown): unknown => ({ manifest: { splitting: { split_sizes: [[condition, dims]] } } });

// [config, field, value as text, allowed (a part of it)]
const REFUSED: [unknown, string, string, string][] = [
  [{ inlineChunkThresholdBytes: 65_536 }, 'inlineChunkThresholdBytes', '65536', '0..=65535 (u16)'],
  [{ inlineChunkThresholdBytes: -1 }, 'inlineChunkThresholdBytes', '-1', '0..=65535 (u16)'],
  [{ inlineChunkThresholdBytes: 1.5 }, 'inlineChunkThresholdBytes', '1.5', '(u16)'],
  [{ numUpdatesPerRepoInfoFile: 70_000 }, 'numUpdatesPerRepoInfoFile', '70000', '0..=65535 (u16)'],
  [{ maxConcurrentDecodes: 65_540 }, 'maxConcurrentDecodes', '65540', '(u16)'],
  [{ compression: { level: 256 } }, 'compression.level', '256', '0..=255 (u8)'],
  [{ compression: { algorithm: 'lz4' } }, 'compression.algorithm', '"lz4"', '0 (zstd)'],
  [{ caching: { numChunkRefs: -1 } }, 'caching.numChunkRefs', '-1', '0..=18446744073709551615 (u64)'],
  [{ caching: { numChunkRefs: 2n ** 64n } }, 'caching.numChunkRefs', '18446744073709551616', '(u64)'],
  [{ storage: { concurrency: { idealConcurrentRequestSize: 0 } } }, 'storage.concurrency.idealConcurrentRequestSize', '0', '1..=18446744073709551615 (u64, not 0)'],
  [{ storage: { retries: { maxTries: 0 } } }, 'storage.retries.maxTries', '0', '1..=65535 (u16, not 0)'],
  [{ storage: { timeouts: { readTimeoutMs: 2 ** 32 } } }, 'storage.timeouts.readTimeoutMs', '4294967296', '0..=4294967295 (u32)'],
  [{ repoUpdateRetries: 5 }, 'repoUpdateRetries', '5', 'RepoUpdateRetryConfig'],
  [{ repoUpdateRetries: { default: { maxTries: 65_536 } } }, 'repoUpdateRetries.default.maxTries', '65536', '1..=65535 (u16, not 0)'],
  [{ repoUpdateRetries: { default: { initialBackoffMs: -5 } } }, 'repoUpdateRetries.default.initialBackoffMs', '-5', '(u32)'],
  [split('AnyArray', []), 'manifest.splitting.split_sizes[0][0]', '"AnyArray"', '"any_array"'],
  [split({ path_matches: '.*' }, []), 'manifest.splitting.split_sizes[0][0].path_matches', '".*"', 'regex'],
  [split({ glob: { regex: 'x' } }, []), 'manifest.splitting.split_sizes[0][0]', '{"glob":{"regex":"x"}}', 'path_matches'],
  [split('any_array', [{ condition: 'any', num_chunks: 1 }]), 'manifest.splitting.split_sizes[0][1][0].condition', '"any"', '"Any"'],
  [split('any_array', [{ condition: 'Any', num_chunks: 0 }]), 'manifest.splitting.split_sizes[0][1][0].num_chunks', '0', '1..=4294967295 (u32, not 0)'],
  [split('any_array', [{ condition: 'Any', num_chunks: 2 ** 32 }]), 'manifest.splitting.split_sizes[0][1][0].num_chunks', '4294967296', '(u32, not 0)'],
  [split('any_array', [{ condition: 'Any' }]), 'manifest.splitting.split_sizes[0][1][0].num_chunks', 'absent', 'requires it'],
  [split('any_array', [{ condition: { Axis: 2 ** 32 }, num_chunks: 1 }]), 'manifest.splitting.split_sizes[0][1][0].condition.Axis', '4294967296', '(usize)'],
  [split('any_array', [{ condition: { Axis: 0 }, num_chunk: 1 }]), 'manifest.splitting.split_sizes[0][1][0].num_chunk', '1', 'num_chunks'],
  [{ manifest: { splitting: { split_sizes: [['any_array']] } } }, 'manifest.splitting.split_sizes[0]', '["any_array"]', 'two items'],
  [{ manifest: { preload: { max_total_refs: 2 ** 32 } } }, 'manifest.preload.max_total_refs', '4294967296', '(u32)'],
  [{ manifest: { preload: { preload_if: { num_refs: { from: { Included: -1 }, to: 'Unbounded' } } } } }, 'manifest.preload.preload_if.num_refs.from.Included', '-1', '(u32)'],
  [{ manifest: { preload: { preload_if: 'always' } } }, 'manifest.preload.preload_if', '"always"', '"true"'],
  [{ manifest: { virtual_chunk_location_compression: { compression_level: 2 ** 31 } } }, 'manifest.virtual_chunk_location_compression.compression_level', '2147483648', '-2147483648..=2147483647 (i32)'],
  [{ manifest: { virtual_chunk_location_compression: { min_num_chunks: 65_536 } } }, 'manifest.virtual_chunk_location_compression.min_num_chunks', '65536', '(u16)'],
  [{ manifest: { max_concurrent_manifest_fetches_during_commit: 65_536 } }, 'manifest.max_concurrent_manifest_fetches_during_commit', '65536', '(u16)'],
  [{ manifest: { bogus: 1 } }, 'manifest.bogus', '1', 'max_concurrent_manifest_fetches_during_commit'],
  [{ virtualChunkContainers: { x: { urlPrefix: 'x', store: { type: 'Ftp', field0: {} } } } }, 'virtualChunkContainers["x"].store', '{"type":"Ftp","field0":{}}', "{ type: 'S3', field0 }"],
  [{ virtualChunkContainers: { x: { urlPrefix: 'h', store: { type: 'Http', field0: { opts: { headers: 'a' } } } } } }, 'virtualChunkContainers["x"].store.field0.opts.headers', '"a"', 'any option name but "headers"'],
  [{ virtualChunkContainers: { 'a\u0000b': { urlPrefix: 'x', store: { type: 'InMemory' } } } }, 'virtualChunkContainers["a\\u0000b"]', '"a\\u0000b"', 'without NUL'],
  [{ virtualChunkContainers: { x: { store: { type: 'InMemory' } } } }, 'virtualChunkContainers["x"].urlPrefix', 'absent', 'requires it'],
  [{ previousFile: 3 }, 'previousFile', '3', 'a string'],
  [{ inlineChunkThreshold: 3 }, 'inlineChunkThreshold', '3', 'inlineChunkThresholdBytes'],
];

describe('repository config validation (issue 18)', () => {
  it.each(REFUSED.map(([config, field, value, allowed]) => [field, value, config, allowed] as const))('refuses %s = %s, naming the field, value and range', (field, value, config, allowed) => {
    const got = refusal(() => validateRepoConfig(config));
    expect(got.field).toBe(field);
    expect(got.value).toBe(value);
    expect(got.allowed).toContain(allowed);
    expect(got.where).toBeUndefined();
  });

  it('says in the message what, where and what to do', () => {
    const err: unknown = (() => {
      try {
        validateRepoConfig({ numUpdatesPerRepoInfoFile: 70_000 });
      } catch (e) {
        return e;
      }
    })();
    expect((err as Error).message).toBe(
      'config field numUpdatesPerRepoInfoFile is 70000, but must be an integer in 0..=65535 (u16): fix it and retry; nothing was written',
    );
  });

  it('accepts the edges of every range and the reference getter\'s nulls', () => {
    const edges: RepositoryConfig = {
      inlineChunkThresholdBytes: 65_535, numUpdatesPerRepoInfoFile: 0, compression: { algorithm: 0, level: 255 },
      caching: { numChunkRefs: 2n ** 64n - 1n, numSnapshotNodes: 0 },
      storage: { concurrency: { idealConcurrentRequestSize: 1, maxConcurrentRequestsForObject: 65_535 } },
      repoUpdateRetries: { default: { maxTries: 1, initialBackoffMs: 4_294_967_295, maxBackoffMs: 0 } },
      manifest: {
        splitting: { split_sizes: [['any_array', [{ condition: { Axis: 4_294_967_295 }, num_chunks: 4_294_967_295 }, { condition: 'Any', num_chunks: 1 }]]] },
        virtual_chunk_location_compression: { compression_level: -(2 ** 31) },
      },
    };
    expect(validateRepoConfig(edges)).toEqual(edges);
    // The reference JS API's config getter returns unset manifest fields as null, and takes `{ true: null }`.
    const fromGetter = { manifest: { preload: { max_total_refs: null, preload_if: { true: null }, max_arrays_to_scan: 3 }, splitting: null, max_concurrent_manifest_fetches_during_commit: null } };
    expect(validateRepoConfig(fromGetter)).toEqual({ manifest: { preload: { preload_if: 'true', max_arrays_to_scan: 3 } } });
    // u64 values beyond 2^53 are kept exactly, as bigints; safe ones come back as numbers.
    expect(validateRepoConfig({ caching: { numChunkRefs: 2n ** 60n, numBytesChunks: 5n } })).toEqual({ caching: { numChunkRefs: 2n ** 60n, numBytesChunks: 5 } });
  });

  it('writes an S3 container\'s flags as false when absent, as the reference needs them', () => {
    const stored = encodeStoredConfig({ virtualChunkContainers: { 's3://b/': { urlPrefix: 's3://b/', store: { type: 'S3', field0: { region: 'r' } } } } }) as Record<string, Record<string, Record<string, unknown>>>;
    expect(stored.virtual_chunk_containers?.['s3://b/']).toEqual({
      name: null, url_prefix: 's3://b/',
      store: { s3: { region: 'r', endpoint_url: null, anonymous: false, allow_http: false, force_path_style: false, network_stream_timeout_seconds: null, requester_pays: false, checksum_algorithm: null } },
    });
  });

  it('writes every field of every set struct in the reference\'s order, null when unset', () => {
    const stored = encodeStoredConfig({ repoUpdateRetries: { default: { maxTries: 3 } }, manifest: {} }) as Record<string, Record<string, unknown> | null>;
    expect(Object.keys(stored)).toEqual([
      'inline_chunk_threshold_bytes', 'get_partial_values_concurrency', 'compression', 'max_concurrent_requests', 'max_concurrent_decodes',
      'caching', 'storage', 'virtual_chunk_containers', 'manifest', 'previous_file', 'repo_update_retries', 'num_updates_per_repo_info_file',
    ]);
    expect(stored.repo_update_retries).toEqual({ default: { max_tries: 3, initial_backoff_ms: null, max_backoff_ms: null } });
    expect(stored.manifest).toEqual({ preload: null, splitting: null, virtual_chunk_location_compression: null, max_concurrent_manifest_fetches_during_commit: null });
  });
});

describe('stored configurations (issue 18)', () => {
  it('reads the forms Floe stored before issue 18', () => {
    expect(decodeStoredConfig({ repo_update_retries: 7 })).toEqual({ repoUpdateRetries: { default: { maxTries: 7 } } });
    expect(decodeStoredConfig({ manifest: { splitting: { split_sizes: [['AnyArray', [{ condition: 'Any', num_chunks: 2 }]]] } } }))
      .toEqual({ manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 2 }]]] } } });
    const http = { virtual_chunk_containers: { h: { name: null, url_prefix: 'https://x/', store: { http: { opts: { timeout: '5s' }, headers: { a: 'b' } } } } } };
    expect(decodeStoredConfig(http).virtualChunkContainers?.h?.store).toEqual({ type: 'Http', field0: { opts: { timeout: '5s' }, headers: { a: 'b' } } });
    const s3 = { virtual_chunk_containers: { s: { url_prefix: 's3://b/', store: { s3: { region: null, anonymous: null } } } } };
    expect(decodeStoredConfig(s3).virtualChunkContainers?.s?.store).toEqual({ type: 'S3', field0: { anonymous: false, allowHttp: false, forcePathStyle: false, requesterPays: false } });
  });

  it('reads and writes the reference\'s flattened HTTP options', () => {
    const stored = { virtual_chunk_containers: { h: { name: null, url_prefix: 'https://x/', store: { http: { timeout: '5s', headers: { a: 'b' } } } } } };
    const config = decodeStoredConfig(stored);
    expect(config.virtualChunkContainers?.h?.store).toEqual({ type: 'Http', field0: { opts: { timeout: '5s' }, headers: { a: 'b' } } });
    expect((encodeStoredConfig(config) as typeof stored).virtual_chunk_containers.h.store).toEqual({ http: { timeout: '5s', headers: { a: 'b' } } });
  });

  it('refuses a stored value the reference could not read either, naming the stored field', () => {
    const got = refusal(() => decodeStoredConfig({ manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 0 }]]] } } }, 'repo'));
    expect(got).toEqual({ field: 'manifest.splitting.split_sizes[0][1][0].num_chunks', value: '0', allowed: 'an integer in 1..=4294967295 (u32, not 0)', where: 'repo' });
    expect(refusal(() => decodeStoredConfig({ storage: { retries: { max_tries: 0 } } })).field).toBe('storage.retries.max_tries');
    // Fields the reference does not know are ignored, as it ignores them.
    expect(decodeStoredConfig({ zz_future: { a: 1 }, inline_chunk_threshold_bytes: 9 })).toEqual({ inlineChunkThresholdBytes: 9 });
  });
});

describe('merging configurations (issue 18)', () => {
  it('merges nested settings field by field and replaces preload, splitting and containers whole', () => {
    const base: RepositoryConfig = {
      inlineChunkThresholdBytes: 10,
      storage: { retries: { maxTries: 3, maxBackoffMs: 100 }, storageClass: 'A' },
      repoUpdateRetries: { default: { maxTries: 5, initialBackoffMs: 1 } },
      manifest: {
        preload: { max_total_refs: 9, max_arrays_to_scan: 2 },
        splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 2 }]]] },
        virtual_chunk_location_compression: { min_num_chunks: 4 },
      },
      virtualChunkContainers: { a: { urlPrefix: 'a/', store: { type: 'InMemory' } } },
    };
    const override: RepositoryConfig = {
      storage: { retries: { maxTries: 8 } },
      repoUpdateRetries: { default: { maxBackoffMs: 7 } },
      manifest: { preload: { max_total_refs: 1 }, virtual_chunk_location_compression: { compression_level: -1 } },
      virtualChunkContainers: { b: { urlPrefix: 'b/', store: { type: 'InMemory' } } },
    };
    expect(mergeRepoConfig(base, override)).toEqual({
      inlineChunkThresholdBytes: 10,
      storage: { retries: { maxTries: 8, maxBackoffMs: 100 }, storageClass: 'A' },
      repoUpdateRetries: { default: { maxTries: 5, initialBackoffMs: 1, maxBackoffMs: 7 } },
      manifest: {
        preload: { max_total_refs: 1 },
        splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 2 }]]] },
        virtual_chunk_location_compression: { min_num_chunks: 4, compression_level: -1 },
      },
      virtualChunkContainers: { b: { urlPrefix: 'b/', store: { type: 'InMemory' } } },
    });
    expect(mergeRepoConfig(base, {})).toEqual(base);
    expect(mergeRepoConfig({}, base)).toEqual(base);
  });
});

describe('refused before anything is written (issue 18)', () => {
  const bad = { manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 0 }]]] } } } as unknown as RepositoryConfig;

  it('Repository.create leaves the storage empty', async () => {
    const backend = new MemoryStorage();
    await expect(Repository.create(Storage.fromObjectStorage(backend), bad)).rejects.toMatchObject({ code: 'INVALID_CONFIG', details: { field: 'manifest.splitting.split_sizes[0][1][0].num_chunks' } });
    const keys: string[] = [];
    for await (const object of backend.list('')) keys.push(object.key);
    expect(keys).toEqual([]);
  });

  it('open with an override refuses it and saveConfig stores the reference form', async () => {
    const backend = new MemoryStorage();
    const storage = Storage.fromObjectStorage(backend);
    await Repository.create(storage, { repoUpdateRetries: { default: { maxTries: 9 } } });
    const before = (await backend.get('repo'))?.bytes;
    await expect(Repository.open(storage, { numUpdatesPerRepoInfoFile: 65_536 })).rejects.toMatchObject({ code: 'INVALID_CONFIG', details: { field: 'numUpdatesPerRepoInfoFile' } });
    expect((await backend.get('repo'))?.bytes).toEqual(before);
    const repo = await Repository.open(storage, { numUpdatesPerRepoInfoFile: 50 });
    await repo.saveConfig();
    const info = decodeRepoInfo((await backend.get('repo'))!.bytes);
    const stored = decodeRepoConfig(info.config!) as Record<string, unknown>;
    expect(stored.repo_update_retries).toEqual({ default: { max_tries: 9, initial_backoff_ms: null, max_backoff_ms: null } });
    expect(stored.num_updates_per_repo_info_file).toBe(50);
    expect((await Repository.open(storage)).config).toEqual({ repoUpdateRetries: { default: { maxTries: 9 } }, numUpdatesPerRepoInfoFile: 50 });
  });

  it('a repository created without settings stores no config, as the reference', async () => {
    const backend = new MemoryStorage();
    await Repository.create(Storage.fromObjectStorage(backend));
    expect(decodeRepoInfo((await backend.get('repo'))!.bytes).config).toBeNull();
  });
});

/** A storage where every compare-and-swap of the repo info file loses, counting the attempts. */
class AlwaysRacedStorage extends MemoryStorage {
  attempts = 0;
  override async put(key: string, bytes: Uint8Array, options?: PutOptions): Promise<{ version: VersionToken }> {
    if (key === 'repo' && options?.ifMatch !== undefined) {
      this.attempts++;
      throw floeError('PRECONDITION_FAILED', 'raced');
    }
    return super.put(key, bytes, options);
  }
}

describe('honoured by Floe (issue 18)', () => {
  it('repoUpdateRetries.default.maxTries bounds the repo info compare-and-swap attempts', async () => {
    for (const maxTries of [1, 3]) {
      const backend = new AlwaysRacedStorage();
      const repo = await Repository.create(Storage.fromObjectStorage(backend), { repoUpdateRetries: { default: { maxTries, initialBackoffMs: 0, maxBackoffMs: 0 } } });
      await expect(repo.createBranch('b', await repo.lookupBranch('main'))).rejects.toMatchObject({ code: 'CONFLICT', details: { kind: 'repo-update-retries-exhausted' } });
      expect(backend.attempts).toBe(maxTries);
    }
  });
});
