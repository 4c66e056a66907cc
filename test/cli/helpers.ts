// Shared by the CLI tests: run `floe` in-process with captured output, spawn the real binary,
// and build a small repository with a group, coordinates, a sharded field, two commits and a tag.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { slice } from '../../src/engine/selection.ts';
import { BufferStream, type CliIo } from '../../src/cli/io.ts';
import type { Clock } from '../../src/engine/storage/clock.ts';
import { run } from '../../src/cli/main.ts';
import { collectChild } from '../support/child-output.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const madeDirs: string[] = [];

/** A fresh directory under os.tmpdir(); a file that calls this registers `afterAll(removeTempDirs)`. */
export function tempDir(prefix = 'floe-cli-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** Removes every directory tempDir() made in this test file (each file has its own module instance). */
export function removeTempDirs(): void {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function floe(argv: string[], options: { cwd: string; tty?: boolean; env?: Record<string, string>; signal?: AbortSignal; now?: () => number; clock?: Clock }): Promise<CliResult> {
  const stdout = new BufferStream(options.tty ?? false);
  const stderr = new BufferStream(options.tty ?? false);
  const io: CliIo = {
    stdout, stderr, cwd: options.cwd, env: options.env ?? {},
    ...(options.signal ? { signal: options.signal } : {}), ...(options.now ? { now: options.now } : {}), ...(options.clock ? { clock: options.clock } : {}),
  };
  const code = await run(argv, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs `node bin/floe.mjs ...` and collects its output; killed after `timeoutMs`. `env` adds variables. */
export async function spawnFloe(argv: string[], cwd: string, timeoutMs = 60_000, env: Record<string, string> = {}): Promise<CliResult> {
  const { status, stdout, stderr } = await collectChild(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), ...argv], { cwd, env: { ...process.env, FORCE_COLOR: '0', ...env }, timeoutMs });
  return { code: status ?? -1, stdout, stderr };
}

export const NT = 6;
export const NY = 10;
export const NX = 20;
export const fieldValue = (t: number, y: number, x: number) => 270 + t + y / 10 + x / 100;

/**
 * `<dir>/repo.icechunk`: main has /weather (group) with time, lat, lon and a sharded
 * temperature[time, lat, lon]; tag v1 points at that commit; a second commit rewrites t=0.
 */
export async function sampleRepository(dir: string): Promise<{ repoPath: string; repo: Repository; v1: string; tip: string }> {
  const repoPath = path.join(dir, 'repo.icechunk');
  const repo = await Repository.create(Storage.newLocalFilesystem(repoPath));
  const session = await repo.writableSession('main');
  const store = session.store;
  await ZarrGroup.create(store, '/', { attributes: { title: 'sample' } });
  await ZarrGroup.create(store, '/weather', { attributes: { source: 'test' } });
  const coord = async (name: string, values: Float64Array, units?: string) => {
    const a = await ZarrArray.create(store, `/weather/${name}`, { shape: [values.length], chunkShape: [values.length], dataType: 'float64', dimensionNames: [name], attributes: units ? { units } : {} });
    await a.set(undefined, values);
  };
  await coord('time', Float64Array.from({ length: NT }, (_, i) => i), 'days since 2020-01-01');
  await coord('lat', Float64Array.from({ length: NY }, (_, i) => -45 + i * 10));
  await coord('lon', Float64Array.from({ length: NX }, (_, i) => i * 18));
  const temp = await ZarrArray.create(store, '/weather/temperature', {
    shape: [NT, NY, NX],
    chunkShape: [2, 10, 10],
    dataType: 'float32',
    fillValue: 'NaN',
    dimensionNames: ['time', 'lat', 'lon'],
    attributes: { units: 'K' },
    codecs: [{
      name: 'sharding_indexed',
      configuration: {
        chunk_shape: [1, 5, 5],
        codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
        index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
      },
    }],
  });
  const data = new Float32Array(NT * NY * NX);
  for (let t = 0; t < NT; t++) for (let y = 0; y < NY; y++) for (let x = 0; x < NX; x++) data[(t * NY + y) * NX + x] = fieldValue(t, y, x);
  await temp.set(undefined, data);
  const v1 = await session.commit('first data');
  await repo.createTag('v1', v1);
  const second = await repo.writableSession('main');
  const again = await ZarrArray.open(second.store, '/weather/temperature');
  await again.set([0, slice(0, 5), slice(0, 5)], 0);
  const tip = await second.commit('zero a corner');
  return { repoPath, repo, v1, tip };
}
