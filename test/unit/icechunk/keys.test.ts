import { describe, expect, it } from 'vitest';
import {
  chunkKey, idFromKey, manifestKey, overwrittenRepoKey, parseV1RefKey, PREFIXES, REPO_INFO_KEY, snapshotKey,
  transactionLogKey, v1BranchKey, v1DeletedTagKey, v1TagKey,
} from '../../../src/format/icechunk/keys.ts';
import { asChunkId, asManifestId, INITIAL_SNAPSHOT_ID, parseSnapshotId } from '../../../src/format/icechunk/ids.ts';

describe('object keys', () => {
  it('builds every key from one function per kind', () => {
    expect(REPO_INFO_KEY).toBe('repo');
    expect(snapshotKey(INITIAL_SNAPSHOT_ID)).toBe('snapshots/1CECHNKREP0F1RSTCMT0');
    expect(transactionLogKey(INITIAL_SNAPSHOT_ID)).toBe('transactions/1CECHNKREP0F1RSTCMT0');
    expect(manifestKey(asManifestId(new Uint8Array(12)))).toBe('manifests/00000000000000000000');
    expect(chunkKey(asChunkId(new Uint8Array(12).fill(255)))).toBe('chunks/ZZZZZZZZZZZZZZZZZZZG');
  });

  it('reads ids back out of listed keys', () => {
    expect(idFromKey(PREFIXES.snapshots, 'snapshots/1CECHNKREP0F1RSTCMT0')).toEqual(INITIAL_SNAPSHOT_ID);
    expect(idFromKey(PREFIXES.snapshots, 'manifests/1CECHNKREP0F1RSTCMT0')).toBeUndefined();
    expect(idFromKey(PREFIXES.chunks, 'chunks/not-an-id')).toBeUndefined();
  });

  it('names repo backups with milliseconds until the year 3000, as the fixtures do', () => {
    const random = parseSnapshotId('S0CHS5WSF158RN937BP0');
    const now = Date.UTC(3000, 0, 1) - 30729294865234;
    expect(overwrittenRepoKey(now, random)).toBe('overwritten/repo.30729294865234.S0CHS5WSF158RN937BP0');
    expect(overwrittenRepoKey(Date.now())).toMatch(/^overwritten\/repo\.\d{14}\.[0-9A-Z]{20}$/);
  });

  it('lays out spec-1 refs and parses listed names', () => {
    expect(v1BranchKey('main')).toBe('refs/branch.main/ref.json');
    expect(v1TagKey('it works!')).toBe('refs/tag.it works!/ref.json');
    expect(v1DeletedTagKey('deleted')).toBe('refs/tag.deleted/ref.json.deleted');
    expect(parseV1RefKey('refs/tag.it also works!/ref.json')).toEqual({ kind: 'tag', name: 'it also works!' });
    expect(parseV1RefKey('refs/tag.deleted/ref.json.deleted')).toEqual({ kind: 'deleted-tag', name: 'deleted' });
    expect(parseV1RefKey('refs/branch.main/ref.json')).toEqual({ kind: 'branch', name: 'main' });
    expect(parseV1RefKey('refs/other')).toBeUndefined();
  });
});
