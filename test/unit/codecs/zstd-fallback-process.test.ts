// A whole Floe process on the WASM zstd fallback: forced with FLOE_ZSTD=fallback, and chosen on
// its own when zstd-napi cannot be resolved (as on a machine that had no compiler at install).
// The child writes and reads a zstd Zarr array and an Icechunk repository (its metadata files
// are zstd too); this process then reads what it wrote with its own backend.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openArray, openStore, Repository, Storage, ZarrArray } from '../../../src/index.ts';
import { backendAvailable } from '../../../src/format/codecs/zstd-backend.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const expected = Float32Array.from({ length: 40 * 30 }, (_, i) => 280 + Math.sin(i / 17) * 12);

const CHILD = `
  const { openStore, createArray, openArray, Repository, Storage, ZarrArray } = await import('./src/index.ts');
  const { zstdImplementation } = await import('./src/format/codecs/zstd-backend.ts');
  const dir = process.env.FLOE_TEST_DIR;
  const data = Float32Array.from({ length: 40 * 30 }, (_, i) => 280 + Math.sin(i / 17) * 12);
  const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: true } }];
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  const store = openStore(dir + '/data.zarr');
  const array = await createArray(store, '/t', { shape: [40, 30], chunkShape: [16, 16], dataType: 'float32', fillValue: 0, codecs });
  await array.set([null, null], data);
  const zarrRead = same((await (await openArray(store, '/t')).get()).data, data);

  const repo = await Repository.openOrCreate(Storage.newLocalFilesystem(dir + '/repo.icechunk'));
  const session = await repo.writableSession('main');
  const inRepo = await ZarrArray.create(session.store, '/t', { shape: [40, 30], chunkShape: [16, 16], dataType: 'float32', fillValue: 0, codecs });
  await inRepo.set([null, null], data);
  await session.commit('written on the zstd fallback');
  const reopened = await Repository.openOrCreate(Storage.newLocalFilesystem(dir + '/repo.icechunk'));
  const readonly = await reopened.readonlySession({ branch: 'main' });
  const repoRead = same((await (await ZarrArray.open(readonly.store, '/t')).get()).data, data);

  console.log(JSON.stringify({ implementation: zstdImplementation(), zarrRead, repoRead }));
  process.exit(0);
`;

// Makes every zstd-napi require fail as if the package had not been installed.
const BLOCK_NAPI = `data:text/javascript,${encodeURIComponent(`
  import Module from 'node:module';
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === 'zstd-napi' || request.startsWith('zstd-napi/')) {
      throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
    }
    return resolve.call(this, request, ...rest);
  };
`)}`;

function runChild(env: Record<string, string>, extraArgs: string[] = []): { dir: string; result: { implementation: { name: string; version: string; reason: string }; zarrRead: boolean; repoRead: boolean } } {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-zstd-fallback-'));
  dirs.push(dir);
  const out = execFileSync(process.execPath, [...extraArgs, '--import', 'tsx', '--no-warnings', '--input-type=module', '-e', CHILD], {
    cwd: root,
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, ...env, FLOE_TEST_DIR: dir },
  });
  return { dir, result: JSON.parse(out.trim().split('\n').at(-1)!) };
}

async function readBack(dir: string): Promise<void> {
  const array = await openArray(openStore(path.join(dir, 'data.zarr')), '/t');
  expect(Array.from((await array.get()).data as Float32Array)).toEqual(Array.from(expected));
  const repo = await Repository.openOrCreate(Storage.newLocalFilesystem(path.join(dir, 'repo.icechunk')));
  const session = await repo.readonlySession({ branch: 'main' });
  const data = (await (await ZarrArray.open(session.store, '/t')).get()).data as Float32Array;
  expect(Array.from(data)).toEqual(Array.from(expected));
}

describe('a process on the zstd fallback', () => {
  it('FLOE_ZSTD=fallback: writes and reads a zstd Zarr array and a repository, readable here too', async () => {
    const { dir, result } = runChild({ FLOE_ZSTD: 'fallback' });
    expect(result.implementation).toMatchObject({ name: 'zstd-wasm', reason: 'forced by FLOE_ZSTD=fallback' });
    expect(result).toMatchObject({ zarrRead: true, repoRead: true });
    await readBack(dir);
  }, 120_000);

  it('without zstd-napi installed: chooses the next backend by itself and says why', async () => {
    const { dir, result } = runChild({ FLOE_ZSTD: '' }, ['--import', BLOCK_NAPI]);
    // Node's own zstd where this Node has it (22.15+), else the WASM build.
    const next = backendAvailable('zlib') ? { name: 'node:zlib', reason: /; using node:zlib$/ } : { name: 'zstd-wasm', reason: /; node:zlib: node:zlib has no zstd in Node v[\d.]+; using @bokuweb\/zstd-wasm$/ };
    expect(result.implementation.name).toBe(next.name);
    expect(result.implementation.reason).toMatch(/^zstd-napi: Cannot find module 'zstd-napi\/binding\.js'/);
    expect(result.implementation.reason).toMatch(next.reason);
    expect(result).toMatchObject({ zarrRead: true, repoRead: true });
    await readBack(dir);
  }, 120_000);

  it('FLOE_ZSTD=napi without zstd-napi: zstd use fails with UNSUPPORTED naming zstd-napi', () => {
    const script = `
      const { zstdImplementation, zstdBackend } = await import('./src/format/codecs/zstd-backend.ts');
      let code = 'none';
      try { zstdBackend(); } catch (err) { code = err.code; }
      console.log(JSON.stringify({ implementation: zstdImplementation(), code }));`;
    const out = execFileSync(process.execPath, ['--import', BLOCK_NAPI, '--import', 'tsx', '--no-warnings', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 100_000,
      env: { ...process.env, FLOE_ZSTD: 'napi' },
    });
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { implementation: { name: string; reason: string }; code: string };
    expect(result.code).toBe('UNSUPPORTED');
    expect(result.implementation.name).toBe('unavailable');
    expect(result.implementation.reason).toMatch(/zstd-napi: Cannot find module.*install zstd-napi/);
  }, 120_000);
});
