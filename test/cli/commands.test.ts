// The read and write commands run in-process against a small repository: what a user sees,
// --json for scripts, and one-line errors with exit codes (1: failed, 2: bad command line).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { createGroup, openStore } from '../../src/engine/api.ts';
import { decodeManifest } from '../../src/format/icechunk/manifest.ts';
import { encodeManifest } from '../../src/format/icechunk/manifest-encode.ts';
import { fieldValue, floe, NT, NX, NY, removeTempDirs, sampleRepository, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

let dir: string;
let repoPath: string;
let v1: string;
let tip: string;
const cli = (...argv: string[]) => floe([...argv, '--repo', repoPath], { cwd: dir });

beforeAll(async () => {
  dir = tempDir();
  ({ repoPath, v1, tip } = await sampleRepository(dir));
});

describe('read commands', () => {
  it('log lists ancestry newest first with refs, and --json', async () => {
    const r = await cli('log');
    expect(r.code).toBe(0);
    expect(r.stdout.indexOf(tip)).toBeLessThan(r.stdout.indexOf(v1));
    expect(r.stdout).toContain('(main)');
    expect(r.stdout).toContain('tag: v1');
    expect(r.stdout).toContain('zero a corner');
    const json = JSON.parse((await cli('log', 'main~1', '--json')).stdout) as { id: string; message: string }[];
    expect(json.map((s) => s.id)[0]).toBe(v1);
    expect(json).toHaveLength(2);
  });

  it('ls shows the tree with shape, dtype, chunking, codecs and stored bytes', async () => {
    const r = await cli('ls');
    expect(r.stdout).toMatch(/temperature {2}float32 \[6, 10, 20\] \(time, lat, lon\) {2}chunks \[2, 10, 10\] of \[1, 5, 5\] {2}sharding\(bytes > zstd\) {2}6 chunks/);
    const json = JSON.parse((await cli('ls', 'v1', '/weather', '--json')).stdout) as { nodes: { path: string; storedBytes?: number }[] };
    expect(json.nodes.map((n) => n.path)).toEqual(['/weather', '/weather/lat', '/weather/lon', '/weather/temperature', '/weather/time']);
    expect(json.nodes[3]!.storedBytes).toBeGreaterThan(0);
  });

  it('show prints metadata and attributes', async () => {
    const r = await cli('show', 'v1:/weather/temperature');
    expect(r.stdout).toContain('units: "K"');
    expect(r.stdout).toContain('"zarr_format": 3');
    const json = JSON.parse((await cli('show', 'main:/weather', '--json')).stdout) as { kind: string; attributes: object };
    expect(json).toMatchObject({ kind: 'group', attributes: { source: 'test' } });
  });

  it('cat prints NumPy-style, elides large arrays, and gives exact values as JSON', async () => {
    const small = await cli('cat', 'v1:/weather/temperature[1, :2, :3]');
    expect(small.stdout).toBe('[[271.00 271.01 271.02]\n [271.10 271.11 271.12]]\n');
    const big = await cli('cat', 'v1:/weather/temperature', '--threshold', '100');
    expect(big.stdout).toContain('...');
    expect(big.stdout.split('\n\n')).toHaveLength(NT); // one block per time step (6 needs no elision), lat and lon elided
    const json = JSON.parse((await cli('cat', 'main:/weather/temperature[0, 0, :6]', '--json')).stdout) as { shape: number[]; data: number[] };
    expect(json.shape).toEqual([6]);
    expect(json.data.slice(4)).toEqual([0, Math.fround(fieldValue(0, 0, 5))]);
  });

  it('diff, branch, tag and status describe the refs', async () => {
    expect((await cli('diff', 'v1', 'main')).stdout).toContain('~ chunks   /weather/temperature: 1 of 6 chunks changed [0,0,0]');
    expect((await cli('diff', 'main', 'main')).stdout).toBe('no differences\n');
    expect((await cli('tag', '--json')).stdout).toContain(v1);
    expect(JSON.parse((await cli('branch', '--json')).stdout)).toEqual([{ name: 'main', snapshotId: tip }]);
    const status = JSON.parse((await cli('status', '--json')).stdout) as { availability: string; snapshots: number };
    expect(status).toMatchObject({ availability: 'online', snapshots: 3 });
  });

  it('query and explain run the DSL on a version', async () => {
    const q = '.from("/weather/temperature").where("time", "=", 2020-01-02).where("lat", "between", [-45, -35]).whereIndex("lon", 0, 2)';
    const explained = await cli('explain', q, '--ref', 'v1');
    expect(explained.stdout).toContain('binary-search');
    expect(explained.stdout).toContain('requests');
    const result = JSON.parse((await cli('query', q, '--ref', 'v1', '--json')).stdout) as { shape: number[]; data: number[] };
    expect(result.shape).toEqual([1, 2, 2]);
    expect(result.data).toEqual([fieldValue(1, 0, 0), fieldValue(1, 0, 1), fieldValue(1, 1, 0), fieldValue(1, 1, 1)].map(Math.fround));
    const viaJson = await cli('query', JSON.stringify({ from: '/weather/lat', ops: [{ limit: ['lat', 2] }] }));
    expect(viaJson.stdout).toContain('\nlat   lat\n-45  -45.\n-35  -35.\n');
  });
});

describe('write commands', () => {
  it('branch create / reset / delete and tag create / delete', async () => {
    expect((await cli('branch', 'create', 'dev', 'v1')).code).toBe(0);
    expect((await cli('branch', 'reset', 'dev', 'main')).stdout).toContain(`reset branch dev at ${tip}`);
    expect((await cli('branch', 'delete', 'dev')).code).toBe(0);
    expect((await cli('tag', 'create', 'v2', 'main')).stdout).toContain(`created tag v2 at ${tip}`);
    expect((await cli('tag', 'delete', 'v2')).code).toBe(0);
    expect((await cli('branch')).stdout).not.toContain('dev');
  });

  it('init, import, export round-trip an array through a plain Zarr store', async () => {
    const work = tempDir();
    expect((await floe(['init', '--storage', 'sqlite', '--repo', 'copy.floe'], { cwd: work })).code).toBe(0);
    expect((await floe(['export', 'v1:/weather', path.join(work, 'weather.zarr'), '--repo', repoPath], { cwd: work })).code).toBe(0);
    expect(existsSync(path.join(work, 'weather.zarr/temperature/zarr.json'))).toBe(true);
    const imported = await floe(['import', 'weather.zarr', '--into', 'copy.floe:main:/copied/weather'], { cwd: work });
    expect(imported.stderr).toContain('importing: ');
    expect(imported.code).toBe(0);
    const read = JSON.parse((await floe(['cat', 'main:/copied/weather/temperature[1]', '--repo', 'copy.floe', '--json'], { cwd: work })).stdout) as { data: number[] };
    expect(read.data).toHaveLength(NY * NX);
    expect(read.data[NX + 3]).toBe(Math.fround(fieldValue(1, 1, 3)));
  });

  it('import converts a Zarr v2 hierarchy into v3, and refuses one with a codec Floe cannot read by name', async () => {
    const work = tempDir();
    expect((await floe(['init', '--storage', 'sqlite', '--repo', 'v2.floe'], { cwd: work })).code).toBe(0);
    const store = openStore(path.join(work, 'legacy.zarr'));
    const root = await createGroup(store, '/', { zarrFormat: 2, attributes: { source: 'v2' } });
    const t = await (await root.createGroup('g')).createArray('t', { zarrFormat: 2, shape: [2, 3], chunks: [1, 3], dtype: '>f4', order: 'F' });
    await t.set(undefined, Float32Array.of(1, 2, 3, 4, 5, 6));
    const names = await root.createArray('names', { zarrFormat: 2, shape: [2], chunks: [2], dtype: '<U3', fillValue: '' });
    await names.set(undefined, ['ab', 'é']);
    const imported = await floe(['import', 'legacy.zarr', '--repo', 'v2.floe', '--json'], { cwd: work });
    expect(imported.code).toBe(0);
    expect((JSON.parse(imported.stdout) as { summary: string }).summary).toBe('converted Zarr v2: 2 groups, 2 arrays, 2 chunks copied, 1 re-encoded');
    const cat = async (target: string) => (JSON.parse((await floe(['cat', target, '--repo', 'v2.floe', '--json'], { cwd: work })).stdout) as { data: unknown[] }).data;
    expect([await cat('main:/legacy/g/t'), await cat('main:/legacy/names')]).toEqual([[1, 2, 3, 4, 5, 6], ['ab', 'é']]);
    // Every numcodecs codec Floe reads converts (zlib as numcodecs.zlib); pcodec, which it cannot read, is refused by name.
    await root.createArray('z', { zarrFormat: 2, shape: [1], chunks: [1], dtype: '<i2', compressor: { id: 'zlib', level: 1 } });
    expect((await floe(['import', 'legacy.zarr', '--into', '/zlib', '--repo', 'v2.floe'], { cwd: work })).code).toBe(0);
    const zarray = path.join(work, 'legacy.zarr', 'z', '.zarray');
    writeFileSync(zarray, readFileSync(zarray, 'utf8').replace('"zlib"', '"pcodec"'));
    const refused = await floe(['import', 'legacy.zarr', '--into', '/again', '--repo', 'v2.floe'], { cwd: work });
    expect([refused.code, refused.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(refused.stderr).toMatch(/UNSUPPORTED: .*"pcodec" is not supported \(no maintained JavaScript implementation of pcodec exists\)/);
  });

  it('expire and gc clean up old history', async () => {
    const work = tempDir();
    const sample = await sampleRepository(work);
    const args = ['--repo', sample.repoPath];
    expect((await floe(['tag', 'delete', 'v1', ...args], { cwd: work })).code).toBe(0);
    const expired = JSON.parse((await floe(['expire', '--older-than', '0', '--json', ...args], { cwd: work })).stdout) as { releasedSnapshots: string[] };
    expect(expired.releasedSnapshots).toContain(sample.v1);
    const gc = JSON.parse((await floe(['gc', '--older-than', '0', '--force', '--json', ...args], { cwd: work })).stdout) as { deleted: { snapshots: { objects: number } } };
    expect(gc.deleted.snapshots.objects).toBeGreaterThan(0);
    expect((await floe(['cat', 'main:/weather/temperature[1, 0, 0]', ...args], { cwd: work })).stdout).toBe('271.\n'); // still readable after GC
  });

  it('expire and gc count --older-than back from the injected clock', async () => {
    const work = tempDir();
    const sample = await sampleRepository(work);
    const args = ['--repo', sample.repoPath, '--json'];
    expect((await floe(['tag', 'delete', 'v1', ...args], { cwd: work })).code).toBe(0);
    const expire = async (clock?: FakeClock) => JSON.parse((await floe(['expire', '--older-than', '1h', ...args], { cwd: work, ...(clock ? { clock } : {}) })).stdout) as { releasedSnapshots: string[] };
    expect((await expire()).releasedSnapshots).toEqual([]); // nothing is an hour old yet
    const twoHoursOn = new FakeClock({ startMs: Date.now() + 7_200_000 });
    expect((await expire(twoHoursOn)).releasedSnapshots).toContain(sample.v1);
    // gc's repository runs on the same clock: a cutoff an hour after the real now is not "in the future".
    const gc = await floe(['gc', '--older-than', '1h', ...args], { cwd: work, clock: twoHoursOn });
    expect(gc.code, gc.stderr).toBe(0);
    expect((JSON.parse(gc.stdout) as { deleted: { snapshots: { objects: number } } }).deleted.snapshots.objects).toBeGreaterThan(0);
  });

  it('check reports nothing on a clean repository and exits 1 listing a planted out-of-grid ref', async () => {
    const work = tempDir();
    const sample = await sampleRepository(work);
    const args = ['--repo', sample.repoPath];
    const clean = await floe(['check', ...args], { cwd: work });
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/^checked \d+ snapshots, \d+ array manifests\nno problems found\n$/);
    const [file] = await sample.repo.lookupManifestFiles(sample.tip);
    const manifestPath = path.join(sample.repoPath, 'manifests', file!.id);
    const manifest = decodeManifest(readFileSync(manifestPath));
    const [array] = manifest.arrays;
    const [first] = array!.refs;
    const outside = first!.index.map(() => 1_000_000);
    writeFileSync(manifestPath, encodeManifest({ ...manifest, arrays: [{ ...array!, refs: [...array!.refs, { ...first!, index: outside }] }, ...manifest.arrays.slice(1)] }));
    const found = await floe(['check', ...args, '--json'], { cwd: work });
    expect(found.code).toBe(1);
    const report = JSON.parse(found.stdout) as { outOfGridRefs: { snapshotId: string; manifestId: string; index: number[]; arrayPath: string }[] };
    expect(report.outOfGridRefs.length).toBeGreaterThanOrEqual(1); // every snapshot sharing the manifest reports it
    expect(report.outOfGridRefs).toContainEqual(expect.objectContaining({ snapshotId: sample.tip, manifestId: file!.id, index: outside }));
    const text = await floe(['check', ...args], { cwd: work });
    expect(text.code).toBe(1);
    const shown = report.outOfGridRefs[0]!;
    expect(text.stdout).toContain(`snapshot ${shown.snapshotId} ${shown.arrayPath} index [${shown.index.join(', ')}] outside grid`);
  });

  it('gc refuses --older-than below the one-hour minimum unless --force, and says how to override', async () => {
    const work = tempDir();
    const sample = await sampleRepository(work);
    const args = ['--repo', sample.repoPath, '--dry-run', '--json'];
    const clock = new FakeClock({ startMs: Date.now() + 7_200_000 });
    const refused = await floe(['gc', '--older-than', '59m', ...args], { cwd: work, clock });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^floe gc: INVALID_ARGUMENT: --older-than gives a grace period of 3540 s, below the minimum of 1h: a commit in flight .*add --force/);
    const atMinimum = await floe(['gc', '--older-than', '1h', ...args], { cwd: work, clock });
    expect(atMinimum.code, atMinimum.stderr).toBe(0);
    const forced = await floe(['gc', '--older-than', '0', '--force', ...args], { cwd: work, clock });
    expect(forced.code, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as { dryRun: boolean }).dryRun).toBe(true);
  });
});

describe('errors and help', () => {
  it('fail in one line with what to do, and exit 1 or 2', async () => {
    const missing = await floe(['log', '--repo', path.join(dir, 'nowhere')], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^floe log: NOT_FOUND: no Floe repository at .*floe init/);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect((await cli('cat', 'main:/weather')).stderr).toContain('is a group');
    expect((await cli('log', 'nope')).stderr).toContain('branches: main');
    const bad = await cli('cat', 'main:/weather/temperature[1:2:3:4]');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('see `floe cat --help`');
    expect((await cli('ls', '--bogus')).code).toBe(2);
    expect((await floe(['frobnicate'], { cwd: dir })).code).toBe(2);
  });

  it('every command has --help with an example', async () => {
    const list = (await floe(['help'], { cwd: dir })).stdout;
    const names = [...list.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['init', 'log', 'branch', 'tag', 'status', 'diff', 'ls', 'show', 'cat', 'query', 'explain', 'import', 'export', 'gc', 'expire', 'serve', 'plot', 'demo']));
    for (const name of names) {
      const help = await floe([name, '--help'], { cwd: dir });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: floe ${name}`);
      expect(help.stdout).toMatch(/examples:\n {2}floe /);
    }
  });
});
