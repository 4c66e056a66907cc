// Every command of issue 9 as a user runs it: `node bin/floe.mjs …` processes in a temp directory,
// on a Zarr v3 store that zarrita wrote and on Zarr v1 arrays another implementation wrote
// (test/fixtures/zarr/v1). Expected values are what this test wrote or what
// expected-v1.json lists; ids are only compared between commands, never taken as the answer.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import FileSystemStore from '@zarrita/storage/fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { fixturePath } from '../support/fixtures.ts';
import { removeTempDirs, spawnFloe, tempDir, type CliResult } from './helpers.ts';

afterAll(removeTempDirs);

const V1_ROOT = fixturePath('zarr', 'v1');
const V1_EXPECTED = JSON.parse(readFileSync(path.join(V1_ROOT, 'expected-v1.json'), 'utf8')) as Record<string, { shape: number[]; fill_value: number; attrs: Record<string, unknown>; values_c_order_flat: number[] }>;
const SPEC = V1_EXPECTED.spec_example_zlib_i4!;

// The v3 store: /y and /x coordinates, /temp[y, x] float32 in 2 x 3 chunks.
const Y = [0, 10, 20, 30];
const X = [0, 100, 200, 300, 400, 500];
const tempAt = (y: number, x: number) => y * 10 + x + 0.25;
const TEMP = Float32Array.from({ length: Y.length * X.length }, (_, i) => tempAt(Math.floor(i / X.length), i % X.length));
const SNAPSHOT_ID = /^[0-9A-HJKMNP-TV-Z]{20}$/;
// Each spawn takes about a second; the limits are for a machine busy with other work (several
// spawns run at once), not the expected time.
const SPAWN_MS = 150_000;
const TEST_MS = 240_000;

/** Exit 0 and stdout that parses as JSON; on failure the message shows what the command printed. */
function json<T>(r: CliResult): T {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** A failure is one line on stderr, naming the command, and nothing on stdout. */
function expectOneLineError(r: CliResult, code: number, pattern: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^floe [a-z]+: [^\n]+\n$/);
  expect(r.stderr.trimEnd()).toMatch(pattern);
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

async function writeV3Store(dir: string): Promise<void> {
  const store = new FileSystemStore(dir);
  const root = await zarr.create(store, { attributes: { title: 'spawned', levels: 2 } });
  const bytes = [{ name: 'bytes', configuration: { endian: 'little' } }];
  const coord = async (name: string, values: number[]) => {
    const a = await zarr.create(root.resolve(name), { shape: [values.length], chunkShape: [values.length], dtype: 'float64', fillValue: 0, codecs: bytes, dimensionNames: [name] });
    await zarr.set(a, null, { data: Float64Array.from(values), shape: [values.length], stride: [1] });
  };
  await coord('y', Y);
  await coord('x', X);
  const temp = await zarr.create(root.resolve('temp'), {
    shape: [Y.length, X.length], chunkShape: [2, 3], dtype: 'float32', fillValue: -1,
    codecs: [...bytes, { name: 'zstd', configuration: { level: 1, checksum: false } }], dimensionNames: ['y', 'x'], attributes: { units: 'K' },
  });
  await zarr.set(temp, null, { data: TEMP, shape: [Y.length, X.length], stride: [X.length, 1] });
}

describe('every floe command as a spawned process on real files', () => {
  let dir: string;
  const repo = 'repo.icechunk';
  const floe = (...argv: string[]) => spawnFloe([...argv, '--repo', repo], dir, SPAWN_MS);
  let init: CliResult;
  let importV1: CliResult;
  let importV3: CliResult;
  let v1Commit: string; // the commit of the v1 import (main~1)
  let tip: string; // the commit of the v3 import (main)

  beforeAll(async () => {
    dir = tempDir();
    await writeV3Store(path.join(dir, 'weather.zarr'));
    init = await floe('init', '--json');
    importV1 = await floe('import', path.join(V1_ROOT, 'spec_example_zlib_i4'), '--into', 'main:/legacy/spec', '-m', 'the v1 spec example', '--json');
    importV3 = await floe('import', 'weather.zarr', '--json');
  }, TEST_MS);

  it('init and import a Zarr v1 array and a v3 store; cat, show, ls and log read back what was written', async () => {
    expect(json(init)).toMatchObject({ repository: path.join(dir, repo), storage: 'file', branch: 'main' });
    expect(filesUnder(path.join(dir, repo))).toContain('repo');
    const v1 = json<{ path: string; branch: string; snapshotId: string; summary: string }>(importV1);
    expect(v1).toMatchObject({ path: '/legacy/spec', branch: 'main', summary: expect.stringContaining('Zarr v1') });
    const v3 = json<{ path: string; snapshotId: string; summary: string }>(importV3);
    expect(v3).toMatchObject({ path: '/weather', summary: '4 nodes, 6 chunks' }); // root, y, x, temp; 1 + 1 + 2 x 2 chunks
    expect(importV3.stderr).toMatch(/^importing: /m); // plain progress lines, not a redrawn bar
    [v1Commit, tip] = [v1.snapshotId, v3.snapshotId];
    expect(v1Commit).toMatch(SNAPSHOT_ID);
    expect(tip).toMatch(SNAPSHOT_ID);

    const [spec, part, show, ls, log] = await Promise.all([
      floe('cat', 'main:/legacy/spec', '--json'),
      floe('cat', 'main:/weather/temp[1:3, ::2]', '--json'),
      floe('show', 'main:/legacy/spec', '--json'),
      floe('ls', 'main', '/weather', '--json'),
      floe('log', '--json'),
    ]);
    expect(json(spec)).toEqual({ path: '/legacy/spec', ref: 'main', dtype: 'int32', storedDtype: 'int32', shape: SPEC.shape, data: SPEC.values_c_order_flat });
    expect(json(part)).toMatchObject({ dtype: 'float32', shape: [2, 3], data: [[1, 0], [1, 2], [1, 4], [2, 0], [2, 2], [2, 4]].map(([y, x]) => Math.fround(tempAt(y!, x!))) });
    const shown = json<{ kind: string; attributes: unknown; metadata: { zarr_format: number; fill_value: number; shape: number[] } }>(show);
    expect(shown).toMatchObject({ kind: 'array', attributes: SPEC.attrs, metadata: { zarr_format: 3, fill_value: SPEC.fill_value, shape: SPEC.shape } });
    const nodes = json<{ snapshotId: string; nodes: { path: string; kind: string; shape?: number[]; dtype?: string; chunkShape?: number[]; chunksStored?: number; dimensionNames?: string[]; attributes: object }[] }>(ls);
    expect(nodes.snapshotId).toBe(tip);
    expect(nodes.nodes.map((n) => n.path)).toEqual(['/weather', '/weather/temp', '/weather/x', '/weather/y']);
    expect(nodes.nodes[0]).toMatchObject({ kind: 'group', attributes: { title: 'spawned', levels: 2 } });
    expect(nodes.nodes[1]).toMatchObject({ kind: 'array', shape: [4, 6], dtype: 'float32', chunkShape: [2, 3], chunksStored: 4, dimensionNames: ['y', 'x'], attributes: { units: 'K' } });
    const history = json<{ id: string; message: string }[]>(log);
    expect(history.map((s) => s.id)).toEqual([tip, v1Commit, json<{ snapshotId: string }>(init).snapshotId]);
    expect(history[1]!.message).toBe('the v1 spec example');
  }, TEST_MS);

  it('query (text form), explain --json, diff --json and status --json', async () => {
    const q = '.from("/weather/temp").where("y", "between", [10, 20]).whereIndex("x", 4, 6)';
    const [query, explain, diff, status] = await Promise.all([
      floe('query', q),
      floe('explain', q, '--json'),
      floe('diff', 'main~1', 'main', '--json'),
      floe('status', '--json'),
    ]);
    expect(query.code, query.stderr).toBe(0);
    // rows y=10, 20 (indices 1, 2), columns 4 and 5: 14.25 15.25 / 24.25 25.25
    expect(query.stdout).toBe('/weather/temp float32 [2, 2] (y, x), units K\ny \\ x    400    500\n10     14.25  15.25\n20     24.25  25.25\n');
    expect(query.stderr).toMatch(/^\d+ requests?, /);
    const plan = json<{ plan: { dims: { name: string; count: number }[]; arrays: { path: string; resultShape: number[] }[] }; text: string }>(explain);
    expect(plan.plan.dims.map((d) => [d.name, d.count])).toEqual([['y', 2], ['x', 2]]);
    expect(plan.plan.arrays).toMatchObject([{ path: '/weather/temp', resultShape: [2, 2] }]);
    expect(plan.text).toContain('binary-search');
    const changed = json<{ newGroups: string[]; newArrays: string[]; deletedArrays: string[]; updatedChunks: Record<string, number[][]> }>(diff);
    expect(changed.newGroups).toEqual(['/weather']);
    expect(changed.newArrays.sort()).toEqual(['/weather/temp', '/weather/x', '/weather/y']);
    expect(changed.deletedArrays).toEqual([]);
    expect(changed.updatedChunks['/weather/temp']!.map((c) => c.join(',')).sort()).toEqual(['0,0', '0,1', '1,0', '1,1']);
    expect(changed.updatedChunks['/weather/y']).toEqual([[0]]);
    expect(json(status)).toMatchObject({ storage: 'file', availability: 'online', branches: [{ name: 'main', snapshotId: tip }], tags: 0, snapshots: 3 });
  }, TEST_MS);

  it('branch and tag: create, list, reset, delete, and one-line refusals', async () => {
    expect(json(await floe('branch', 'create', 'dev', 'main~1', '--json'))).toEqual({ action: 'created', branch: 'dev', snapshotId: v1Commit });
    expect(json(await floe('tag', 'create', 'v1', 'dev', '--json'))).toEqual({ action: 'created', tag: 'v1', snapshotId: v1Commit });
    const [branches, tags] = await Promise.all([floe('branch', '--json'), floe('tag', '--json')]);
    expect(json(branches)).toEqual([{ name: 'dev', snapshotId: v1Commit }, { name: 'main', snapshotId: tip }]);
    expect(json(tags)).toEqual([{ name: 'v1', snapshotId: v1Commit }]);
    expect(json(await floe('branch', 'reset', 'dev', 'main', '--json'))).toEqual({ action: 'reset', branch: 'dev', snapshotId: tip, previousSnapshotId: v1Commit });
    expect(json(await floe('branch', 'delete', 'dev', '--json'))).toEqual({ action: 'deleted', branch: 'dev' });
    expect(json(await floe('tag', 'delete', 'v1', '--json'))).toEqual({ action: 'deleted', tag: 'v1' });
    const [again, reuse] = await Promise.all([floe('branch', 'delete', 'dev'), floe('tag', 'create', 'v1')]);
    expectOneLineError(again, 1, /^floe branch: NOT_FOUND: .*'dev'/);
    expectOneLineError(reuse, 1, /ALREADY_EXISTS: .*cannot be reused/);
  }, TEST_MS);

  it('export writes plain Zarr v3 stores that zarrita reads to the written values', async () => {
    const [weather, spec] = await Promise.all([
      floe('export', 'main:/weather', 'out/weather.zarr', '--json'),
      floe('export', 'main~1:/legacy/spec', 'out/spec.zarr'),
    ]);
    expect(json(weather)).toMatchObject({ path: '/weather', snapshotId: tip, directory: path.join(dir, 'out/weather.zarr'), keys: 10 });
    expect(spec.code, spec.stderr).toBe(0);
    expect(spec.stdout).toMatch(/^exported main~1:\/legacy\/spec \(\d+ keys, \d+ bytes\) to .*spec\.zarr\n$/);

    const written = path.join(dir, 'weather.zarr');
    const exported = path.join(dir, 'out/weather.zarr');
    expect(filesUnder(exported)).toEqual(filesUnder(written));
    // Chunks are copied as stored: the zstd bytes zarrita wrote come back out unchanged.
    expect(readFileSync(path.join(exported, 'temp/c/1/1'))).toEqual(readFileSync(path.join(written, 'temp/c/1/1')));
    const store = new FileSystemStore(exported);
    const group = await zarr.open(zarr.root(store), { kind: 'group' });
    expect(group.attrs).toEqual({ title: 'spawned', levels: 2 });
    const temp = await zarr.get(await zarr.open(zarr.root(store).resolve('temp'), { kind: 'array' }));
    expect(temp.shape).toEqual([4, 6]);
    expect(Array.from(temp.data as Float32Array)).toEqual(Array.from(TEMP));
    const v1 = await zarr.get(await zarr.open(zarr.root(new FileSystemStore(path.join(dir, 'out/spec.zarr'))), { kind: 'array' }));
    expect(v1.shape).toEqual(SPEC.shape);
    expect(Array.from(v1.data as Int32Array)).toEqual(SPEC.values_c_order_flat);

    expectOneLineError(await floe('export', 'main:/weather', 'out/weather.zarr'), 1, /ALREADY_EXISTS: .*weather\.zarr is not empty/);
  }, TEST_MS);

  it('bad input: one line on stderr with what to do, exit 2 for the command line and 1 for the operation', async () => {
    const [slice, missing, expire, nowhere, storage] = await Promise.all([
      floe('cat', 'main:/weather/temp[1:2:3:4]'),
      floe('import', 'no-such.zarr'),
      floe('expire'),
      spawnFloe(['status', '--repo', 'nowhere.icechunk'], dir, SPAWN_MS),
      spawnFloe(['init', '--storage', 'tape', '--repo', 'tape.icechunk'], dir, SPAWN_MS),
    ]);
    expectOneLineError(slice, 2, /bad slice .*see `floe cat --help`$/);
    expectOneLineError(missing, 1, /^floe import: NOT_FOUND: .*no-such\.zarr is not a directory/);
    expectOneLineError(expire, 2, /needs --older-than.*see `floe expire --help`$/);
    expectOneLineError(nowhere, 1, /no Floe repository at .*nowhere\.icechunk; create one with `floe init/);
    expectOneLineError(storage, 2, /--storage is one of file, sqlite, s3, got "tape"/);
  }, TEST_MS);

  it('expire, gc --dry-run and gc: the v1 commit is released, then its files are deleted, the data stays readable', async () => {
    const repoDir = path.join(dir, repo);
    const expired = json<{ releasedSnapshots: string[]; editedSnapshots: string[] }>(await floe('expire', '--older-than', '0', '--json'));
    expect(expired.releasedSnapshots).toEqual([v1Commit]);
    expect(expired.editedSnapshots).toEqual([tip]);

    const before = filesUnder(repoDir);
    expect(before).toContain(`snapshots/${v1Commit}`);
    type Gc = { dryRun: boolean; deleted: Record<'snapshots' | 'transactionLogs' | 'chunks', { objects: number }>; wouldDelete?: string[] };
    const dry = json<Gc>(await floe('gc', '--older-than', '0', '--force', '--dry-run', '--json'));
    expect(dry).toMatchObject({ dryRun: true, deleted: { snapshots: { objects: 1 }, transactionLogs: { objects: 1 }, chunks: { objects: 0 } } });
    expect(dry.wouldDelete).toEqual(expect.arrayContaining([`snapshots/${v1Commit}`, `transactions/${v1Commit}`]));
    expect(filesUnder(repoDir)).toEqual(before); // a dry run deletes nothing

    const gc = json<Gc>(await floe('gc', '--older-than', '0', '--force', '--json'));
    expect(gc).toMatchObject({ dryRun: false, deleted: { snapshots: { objects: 1 }, transactionLogs: { objects: 1 }, chunks: { objects: 0 } } });
    const after = filesUnder(repoDir);
    expect(after).not.toContain(`snapshots/${v1Commit}`);
    expect(after).not.toContain(`transactions/${v1Commit}`);
    expect(after).toContain(`snapshots/${tip}`);

    const [spec, log] = await Promise.all([floe('cat', 'main:/legacy/spec', '--json'), floe('log', '--json')]);
    expect(json<{ data: number[] }>(spec).data).toEqual(SPEC.values_c_order_flat);
    expect(json<{ id: string }[]>(log).map((s) => s.id)).toEqual([tip, json<{ snapshotId: string }>(init).snapshotId]);
  }, TEST_MS);
});

describe('floe init --storage sqlite as a spawned process', () => {
  it('creates one SQLite file that later commands open by its path alone', async () => {
    const dir = tempDir();
    const created = json(await spawnFloe(['init', '--storage', 'sqlite', '--repo', 'data/climate.floe', '--json'], dir, SPAWN_MS));
    expect(created).toMatchObject({ storage: 'sqlite', repository: path.join(dir, 'data/climate.floe') });
    expect(readdirSync(path.join(dir, 'data'))).toContain('climate.floe');
    const imported = await spawnFloe(['import', path.join(V1_ROOT, 'zlib9_u1_2d'), '--repo', 'data/climate.floe'], dir, SPAWN_MS);
    expect(imported.stdout).toMatch(/^imported .* into main:\/zlib9_u1_2d .*committed [0-9A-Z]{20}\n$/);
    const [status, cat] = await Promise.all([
      spawnFloe(['status', '--repo', 'data/climate.floe', '--json'], dir, SPAWN_MS),
      spawnFloe(['cat', 'zlib9_u1_2d', '--repo', 'data/climate.floe', '--json'], dir, SPAWN_MS),
    ]);
    expect(json(status)).toMatchObject({ storage: 'sqlite', snapshots: 2 });
    const expected = V1_EXPECTED.zlib9_u1_2d!;
    expect(json(cat)).toMatchObject({ dtype: 'uint8', shape: expected.shape, data: expected.values_c_order_flat });
  }, TEST_MS);
});
