import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeV1Ref } from '../../../src/format/icechunk/spec1.ts';
import { decodeV1Config } from '../../../src/format/icechunk/spec1-config.ts';
import { idToString } from '../../../src/format/icechunk/ids.ts';
import { fixturePath } from '../../support/fixtures.ts';

describe('spec-1 refs and config', () => {
  it('reads ref.json files', () => {
    const bytes = readFileSync(fixturePath('icechunk/repos/test-repo-v1/refs/branch.main/ref.json'));
    expect(idToString(decodeV1Ref(bytes))).toBe('NXH3M0HJ7EEJ0699DPP0');
  });

  it('reads config.yaml with its custom tags', () => {
    const config = decodeV1Config(readFileSync(fixturePath('icechunk/repos/test-repo-v1/config.yaml'))) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- probing a parsed document
    expect(config.inline_chunk_threshold_bytes).toBe(12);
    expect(config.virtual_chunk_containers.s3.store).toEqual({
      s3_compatible: { region: 'us-east-1', endpoint_url: 'http://localhost:4200', anonymous: false, allow_http: true, force_path_style: true },
    });
    expect(config.virtual_chunk_containers.az.store).toEqual({ azure: {} });
    expect(config.virtual_chunk_containers.file.store).toEqual({ local_file_system: '' });
  });
});
