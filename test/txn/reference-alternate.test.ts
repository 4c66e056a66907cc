// Floe and the reference Icechunk (WASM, custom storage over Floe's FsStorage) share one
// directory: they commit alternately to one branch and each sees the other's commits; a
// conflicting pair is detected by whichever side commits second; and a repository Floe builds
// (branches, tags, several arrays) reads the same in the reference at every branch and tag.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { ConflictError, Repository, Storage } from '../../src/txn/index.ts';
import { readArray, writeChunk } from './conflict-fixtures.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-alternate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reference-alternate-child.mjs');

/** Runs one reference command; `onReady` runs when the child prints `ready` (its session is open). */
function reference<T>(command: Record<string, unknown>, onReady?: () => Promise<void>): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', CHILD, JSON.stringify(command)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let readySeen = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (!readySeen && onReady && out.includes('ready\n')) {
        readySeen = true;
        onReady().catch((e: unknown) => {
          child.kill('SIGKILL');
          reject(e as Error);
        });
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      if (code !== 0 || !line) return reject(new Error(`reference child failed (${code}): ${err.slice(-2000)}`));
      const reply = JSON.parse(line) as { ok: boolean; error?: string; value: T };
      if (!reply.ok) return reject(new Error(`reference error: ${reply.error}`));
      resolve(reply.value);
    });
  });
}

async function floeRepository(dir: string) {
  const repo = await Repository.create(Storage.newLocalFilesystem(dir));
  const s = await repo.writableSession('main');
  await ZarrGroup.create(s.store, '/');
  await ZarrArray.create(s.store, '/x', { shape: [24], chunkShape: [4], dataType: 'int32', fillValue: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] } as never);
  await s.commit('setup');
  return repo;
}

interface Committed { snapshot: string; before: number[]; ancestry: string[] }
interface Refused { conflict: string; rebase: string | null; rebasedSnapshot?: string }

describe('Floe and the reference on one branch', () => {
  it('commit alternately, each seeing the other’s commits', async () => {
    const dir = path.join(scratch, 'alternate');
    const repo = await floeRepository(dir);
    const expected = new Array(24).fill(0);
    const commits: string[] = [];
    for (let k = 0; k < 6; k++) {
      if (k % 2 === 0) {
        const s = await repo.writableSession('main');
        expect(await readArray(s, '/x')).toEqual(expected); // sees the reference's last commit
        await writeChunk(s.store, '/x', k, 100 + k);
        commits.push(await s.commit(`floe ${k}`));
      } else {
        const reply = await reference<Committed>({ op: 'commit', dir, path: '/x', chunk: k, value: 100 + k, message: `reference ${k}` });
        expect(reply.before).toEqual(expected); // the reference sees Floe's last commit
        commits.push(reply.snapshot);
        expect(reply.ancestry.slice(0, commits.length)).toEqual([...commits].reverse());
      }
      expected.fill(100 + k, 4 * k, 4 * k + 4);
    }
    expect(await repo.lookupBranch('main')).toBe(commits.at(-1));
    const history = [];
    for await (const s of repo.ancestry({ branch: 'main' })) history.push(s.id);
    expect(history.slice(0, 6)).toEqual([...commits].reverse());
    expect(await readArray(await repo.readonlySession({ branch: 'main' }), '/x')).toEqual(expected);
  }, 120_000);

  it('a conflicting pair is detected by whichever side commits second', async () => {
    const dir = path.join(scratch, 'conflict');
    const repo = await floeRepository(dir);
    // Floe second: the reference commits chunk 2 while a Floe session also writes chunk 2.
    const floe = await repo.writableSession('main');
    await writeChunk(floe.store, '/x', 2, 7);
    await reference<Committed>({ op: 'commit', dir, path: '/x', chunk: 2, value: 5, message: 'reference first' });
    await expect(floe.commit('floe second')).rejects.toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved' } });
    const err = await floe.rebase().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).conflicts).toEqual([expect.objectContaining({ type: 'ChunkDoubleUpdate', path: '/x', chunkCoordinates: [[2]] })]);
    // Disjoint chunks rebase cleanly over the reference's commit.
    floe.discardChanges();
    await writeChunk(floe.store, '/x', 3, 8);
    await floe.rebase();
    const floeTip = await floe.commit('floe, rebased');
    expect(await readArray(floe, '/x')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0]);

    // Reference second: its session opens, Floe commits the same chunk, then it commits.
    const goFile = path.join(scratch, 'go');
    const refused = await reference<Refused>({ op: 'commit', dir, path: '/x', chunk: 4, value: 9, message: 'reference second', goFile }, async () => {
      const s = await repo.writableSession('main');
      await writeChunk(s.store, '/x', 4, 6);
      await s.commit('floe first');
      writeFileSync(goFile, '');
    });
    expect(refused.conflict).toMatch(/conflict/i);
    // The reference read Floe's transaction log and refused to rebase over the same chunk.
    expect(refused.rebase).toMatch(/cannot rebase/i);
    const tip = await repo.readonlySession({ branch: 'main' });
    expect((await readArray(tip, '/x')).slice(16, 20)).toEqual([6, 6, 6, 6]);
    expect((await repo.lookupSnapshot(tip.snapshotId)).parentId).toBe(floeTip);
    // And over a Floe commit on other chunks, the reference rebases and commits.
    rmSync(goFile);
    const rebased = await reference<Refused>({ op: 'commit', dir, path: '/x', chunk: 5, value: 4, message: 'reference, disjoint', goFile }, async () => {
      const s = await repo.writableSession('main');
      await writeChunk(s.store, '/x', 0, 3);
      await s.commit('floe, disjoint');
      writeFileSync(goFile, '');
    });
    expect(rebased.rebase).toBeNull();
    expect(await repo.lookupBranch('main')).toBe(rebased.rebasedSnapshot);
    expect(await readArray(await repo.readonlySession({ branch: 'main' }), '/x')).toEqual([3, 3, 3, 3, 0, 0, 0, 0, 5, 5, 5, 5, 8, 8, 8, 8, 6, 6, 6, 6, 4, 4, 4, 4]);
  }, 120_000);

  it('the reference opens a repository Floe built, at every branch and tag, with equal contents', async () => {
    const dir = path.join(scratch, 'refs');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const s = await repo.writableSession('main');
    await ZarrGroup.create(s.store, '/');
    await ZarrGroup.create(s.store, '/g');
    const bytes = { codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] };
    const a = await ZarrArray.create(s.store, '/g/a', { shape: [10, 6], chunkShape: [4, 4], dataType: 'float64', fillValue: 0, ...bytes } as never);
    await a.set(undefined, Float64Array.from({ length: 60 }, (_, i) => i / 4 - 3));
    const b = await ZarrArray.create(s.store, '/b', { shape: [1000], chunkShape: [300], dataType: 'uint16', fillValue: 7, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }] } as never);
    await b.set(undefined, Uint16Array.from({ length: 1000 }, (_, i) => (i * 37) % 65536));
    const v1 = await s.commit('v1');
    await repo.createTag('v1', v1);
    await repo.createBranch('dev', v1);
    const dev = await repo.writableSession('dev');
    await (await ZarrArray.open(dev.store, '/g/a')).set(undefined, 2.5);
    await (dev.store.erase('b/zarr.json'));
    const c = await ZarrArray.create(dev.store, '/c', { shape: [5], chunkShape: [5], dataType: 'int8', fillValue: -1, ...bytes } as never);
    await c.set(undefined, Int8Array.from([1, -2, 3, -4, 5]));
    await repo.createTag('dev-1', await dev.commit('dev 1'));
    await (await ZarrArray.open(s.store, '/b')).set(undefined, 11);
    await s.commit('main 2');
    const paths: Record<string, string[]> = {
      'branch:main': ['/g/a', '/b'], 'branch:dev': ['/g/a', '/c'], 'tag:v1': ['/g/a', '/b'], 'tag:dev-1': ['/g/a', '/c'],
    };
    const dump = await reference<{ branches: string[]; tags: string[]; versions: Record<string, Record<string, number[]>> }>({ op: 'dump', dir, paths });
    expect(dump.branches.sort()).toEqual(['dev', 'main']);
    expect(dump.tags.sort()).toEqual(['dev-1', 'v1']);
    for (const [version, arrays] of Object.entries(paths)) {
      const [kind, name] = version.split(':') as ['branch' | 'tag', string];
      const session = await repo.readonlySession(kind === 'branch' ? { branch: name } : { tag: name });
      for (const p of arrays) {
        const ours = Array.from((await (await ZarrArray.open(session.store, p)).get()).data as ArrayLike<number>, Number);
        expect(dump.versions[version]![p], `${version} ${p}`).toEqual(ours);
      }
    }
    expect(dump.versions['branch:main']!['/b']).toEqual(new Array(1000).fill(11));
    expect(dump.versions['tag:v1']!['/b']!.slice(0, 3)).toEqual([0, 37, 74]);
  }, 120_000);
});
