import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../../src/engine/array.ts';
import type { ObjectStorage } from '../../../src/engine/storage/types.ts';
import { asChunkId } from '../../../src/format/icechunk/ids.ts';
import { decodeManifest, type ChunkRef } from '../../../src/format/icechunk/manifest.ts';
import { encodeManifest } from '../../../src/format/icechunk/manifest-encode.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';
import { fixturePath } from '../../support/fixtures.ts';
import { commitValues, memoryRepo, readValues } from './helpers.ts';

const ones = (v: number) => Array.from({ length: 8 }, () => v);

/** Rewrites the one manifest of `snapshotId` in place with `extra` refs added to its one array. */
async function plantRefs(repo: Repository, backend: ObjectStorage, snapshotId: string, extra: ChunkRef[]): Promise<string> {
  const [file] = await repo.lookupManifestFiles(snapshotId);
  const key = `manifests/${file!.id}`;
  const manifest = decodeManifest((await backend.get(key))!.bytes);
  const [array] = manifest.arrays;
  await backend.put(key, encodeManifest({ ...manifest, arrays: [{ ...array!, refs: [...array!.refs, ...extra] }] }));
  return file!.id;
}

describe('Repository.verify', () => {
  it('reports nothing on a clean repository with history, a tag, a branch and a scalar array', async () => {
    const { repo } = await memoryRepo();
    await commitValues(repo, 'main', ones(1));
    const tip = await commitValues(repo, 'main', ones(2));
    await repo.createTag('v1', tip);
    await repo.createBranch('dev', tip);
    const session = await repo.writableSession('dev');
    const scalar = await ZarrArray.create(session.store, '/s', { shape: [], chunkShape: [], dataType: 'int32', fillValue: 0 } as never);
    await scalar.set(undefined, Int32Array.of(7));
    await session.commit('scalar');
    const report = await repo.verify();
    expect(report).toMatchObject({ outOfGridRefs: [], truncated: false });
    expect(report.snapshotsChecked).toBe(4); // root, two commits on main, one on dev
    expect(report.arrayManifestsChecked).toBeGreaterThanOrEqual(4);
  });

  it('reports refs past the grid and of another rank, with array path, snapshot and index; reads still work', async () => {
    const { repo, backend } = await memoryRepo();
    const tip = await commitValues(repo, 'main', ones(3)); // /a: 8 int32 in chunks of 2, a grid of 4
    const chunkId = asChunkId(new Uint8Array(12).fill(9));
    const manifestId = await plantRefs(repo, backend, tip, [
      { kind: 'native', index: [4], chunkId, offset: 0, length: 8 },
      { kind: 'native', index: [0, 0], chunkId, offset: 0, length: 8 },
      { kind: 'inline', index: [1000], data: new Uint8Array(8) },
    ]);
    const report = await repo.verify();
    expect(report.outOfGridRefs).toEqual([
      { snapshotId: tip, arrayPath: '/a', manifestId, index: [0, 0], grid: [4] },
      { snapshotId: tip, arrayPath: '/a', manifestId, index: [1000], grid: [4] },
      { snapshotId: tip, arrayPath: '/a', manifestId, index: [4], grid: [4] },
    ]);
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(3)); // readers skip them: only a check finds them
    const limited = await repo.verify({ maxFindings: 1 });
    expect(limited.outOfGridRefs).toHaveLength(1);
    expect(limited.truncated).toBe(true);
  });

  it.each(['test-repo-v1', 'test-repo-v2', 'split-repo-v2', 'expire-repo-v2-by-2.0.5'])('finds nothing in the reference-written %s', async (name) => {
    const repo = await Repository.open(Storage.newLocalFilesystem(fixturePath('icechunk', 'repos', name)));
    const report = await repo.verify();
    expect(report.outOfGridRefs).toEqual([]);
    expect(report.snapshotsChecked).toBeGreaterThan(1);
  });

  it('stops with ABORTED when its signal fires', async () => {
    const { repo } = await memoryRepo();
    await commitValues(repo, 'main', ones(1));
    await expect(repo.verify({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
