// One quick interop round with the reference Icechunk (WASM) over the same directory: what Floe
// commits, the reference reads; what the reference commits, Floe reads.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { runReference } from '../support/reference-icechunk.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-interop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('interop with @earthmover/icechunk', () => {
  it('the reference reads a repository Floe created and committed to', async () => {
    const dir = path.join(scratch, 'floe-wrote');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const session = await repo.writableSession('main');
    await ZarrGroup.create(session.store, '/');
    const a = await ZarrArray.create(session.store, '/data', {
      shape: [300], chunkShape: [100], dataType: 'int32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
    } as never);
    const values = Int32Array.from({ length: 300 }, (_, i) => i * 3 - 100);
    await a.set(undefined, values);
    // 4 KB chunks: above the inline threshold, so they share one pack object at offsets > 0.
    const packed = await ZarrArray.create(session.store, '/packed', {
      shape: [3000], chunkShape: [1000], dataType: 'int32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
    } as never);
    const packedValues = Int32Array.from({ length: 3000 }, (_, i) => 7 * i - 5000);
    await packed.set(undefined, packedValues);
    const snapshot = await session.commit('written by Floe');
    expect(readdirSync(path.join(dir, 'chunks'))).toHaveLength(1);
    await repo.createTag('v1', snapshot);
    const reply = runReference<{ snapshot: string; values: number[]; tags: string[] }>({ op: 'read', dir, path: '/data' });
    expect(reply.snapshot).toBe(snapshot);
    expect(reply.values).toEqual(Array.from(values));
    expect(reply.tags).toEqual(['v1']);
    const fromPack = runReference<{ values: number[] }>({ op: 'read', dir, path: '/packed' });
    expect(fromPack.values).toEqual(Array.from(packedValues));
    const byTag = runReference<{ values: number[] }>({ op: 'read', dir, path: '/data', version: { tag: 'v1' } });
    expect(byTag.values).toEqual(Array.from(values));
  }, 120_000);

  it('Floe reads a repository the reference created and committed to', async () => {
    const dir = path.join(scratch, 'reference-wrote');
    const values = Array.from({ length: 50 }, (_, i) => 1000 - i * i);
    const { snapshot } = runReference<{ snapshot: string }>({ op: 'write', dir, path: '/x', values, chunk: 7 });
    const repo = await Repository.open(Storage.newLocalFilesystem(dir));
    expect(await repo.lookupBranch('main')).toBe(snapshot);
    const session = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await (await ZarrArray.open(session.store, '/x')).get()).data as Int32Array)).toEqual(values);
    // And Floe can commit on top of it.
    const writer = await repo.writableSession('main');
    await (await ZarrArray.open(writer.store, '/x')).set(undefined, 5);
    const next = await writer.commit('Floe on top');
    const reply = runReference<{ snapshot: string; values: number[] }>({ op: 'read', dir, path: '/x' });
    expect(reply.snapshot).toBe(next);
    expect(reply.values).toEqual(values.map(() => 5));
  }, 120_000);
});
