// txn/config.ts answers an empty configuration without loading the config codec (so `import
// 'floe'` and opening a repository without a config do not pay for it). Each shortcut must give
// what the codec gives: checked here against the codec itself on the inputs the shortcuts take.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import type { MetadataValue } from '../../src/format/icechunk/metadata-value.ts';
import { decodeStoredConfig, encodeStoredConfig, mergeRepoConfig, validateRepoConfig } from '../../src/format/icechunk/repo-config-codec.ts';
import { REPOSITORY_CONFIG } from '../../src/format/icechunk/repo-config-schema.ts';
import type { RepositoryConfig } from '../../src/format/icechunk/repo-config.ts';
import { decodeConfig, loadConfigCodec, mergeConfig, validateConfig } from '../../src/txn/config.ts';

/** Every top-level stored field, null: what a config with nothing set is stored as. */
function allFieldsNull(): MetadataValue {
  if (REPOSITORY_CONFIG.kind !== 'struct') throw new Error('RepositoryConfig schema is not a struct');
  return Object.fromEntries(REPOSITORY_CONFIG.fields.map((f) => [f.name, null]));
}

describe('config shortcuts agree with the codec', () => {
  it('a stored map of nulls, an empty map and null read as the codec reads them', async () => {
    const inputs: MetadataValue[] = [null, {}, allFieldsNull(), encodeStoredConfig({}), { unknown_future_field: null }];
    for (const value of inputs) {
      const viaCodec = value === null ? decodeStoredConfig(null) : decodeStoredConfig(value, 'config');
      expect(await decodeConfig(value, 'config')).toEqual(viaCodec);
      expect(viaCodec).toEqual({});
    }
  });

  it('a stored map that sets a field still goes through the codec (read, or refused)', async () => {
    const stored = { ...(allFieldsNull() as Record<string, MetadataValue>), inline_chunk_threshold_bytes: 40 };
    expect(await decodeConfig(stored, 'config')).toEqual({ inlineChunkThresholdBytes: 40 });
    const bad = { ...(allFieldsNull() as Record<string, MetadataValue>), inline_chunk_threshold_bytes: -1 };
    const error = await decodeConfig(bad, 'config').then(() => undefined, (e: unknown) => e);
    expect(isFloeError(error) && error.code).toBe('INVALID_CONFIG');
  });

  it('no config validates as the codec validates an empty one; a given one is checked', async () => {
    expect(await validateConfig(undefined)).toEqual(validateRepoConfig({}));
    expect(await validateConfig(null)).toEqual(validateRepoConfig({}));
    const error = await validateConfig({ inlineChunkThresholdByte: 3 }).then(() => undefined, (e: unknown) => e);
    expect(isFloeError(error) && error.code).toBe('INVALID_CONFIG');
  });

  it('merging an override that sets nothing gives the codec merge', async () => {
    await loadConfigCodec();
    const base: RepositoryConfig = validateRepoConfig({
      inlineChunkThresholdBytes: 9,
      caching: { numChunkRefs: 5 },
      manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 2 }]]] } },
    });
    for (const override of [undefined, {}]) {
      expect(mergeConfig(base, override)).toEqual(mergeRepoConfig(base, override));
    }
    expect(mergeConfig(base, { inlineChunkThresholdBytes: 1 })).toEqual(mergeRepoConfig(base, { inlineChunkThresholdBytes: 1 }));
  });
});
