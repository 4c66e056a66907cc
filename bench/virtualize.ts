// Virtual datasets (issue 35): scanning, virtualizing many files, and reading back.
//   1. scan: one large file (default ~1 GiB, 10,000 chunks) scanned locally (the scanner alone,
//      and virtualize + commit), with the bytes the scan read;
//   2. the same file scanned over HTTP: nginx on loopback behind a proxy adding --delay-ms (20) to
//      every request, requests counted;
//   3. --files (1,000) files of --file-chunks (100) chunks each, virtualized joined along time and
//      committed; peak RSS;
//   4. reading the large file's variable: full read and a 1 x 1 degree box over all time, by
//      Floe through the virtual refs, by netCDF4-python (one process, both reads), and by Floe from
//      the same data written natively (same chunks, no compression).
// The file format is pluggable (FORMATS below): `--format netcdf3` (classic / 64-bit offset, by
// python3-netcdf4) or `--format netcdf4` (NetCDF-4 / HDF5 by python3-netcdf4, one chunk per time
// step, uncompressed). Machine load is printed with the results.
//
//   npx tsx bench/virtualize.ts [--format netcdf3|netcdf4] [--mib 1024] [--chunks 10000] [--files 1000]
//     [--file-chunks 100] [--delay-ms 20] [--dir .bench-data/virtualize]
// Never part of the test suite. Prints a markdown table (BENCHMARKS.md, "Issue 35").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ZarrArray } from '../src/engine/array.ts';
import { openByteSource, type ByteSource } from '../src/engine/byte-source.ts';
import { slice } from '../src/engine/selection.ts';
import { Repository, Storage } from '../src/txn/index.ts';
import { planHdf5 } from '../src/txn/hdf5-scan.ts';
import { planNetcdf3 } from '../src/txn/netcdf3-scan.ts';
import type { PlannedSource } from '../src/txn/virtual-plan.ts';
import { virtualize } from '../src/txn/virtualize.ts';
import { startNginx } from '../test/support/loopback-static-hosts.ts';
import { startDelayProxy } from './support/delay-proxy.ts';

const { values: opts } = parseArgs({
  options: {
    format: { type: 'string', default: 'netcdf3' },
    mib: { type: 'string', default: '1024' },
    chunks: { type: 'string', default: '10000' },
    files: { type: 'string', default: '1000' },
    'file-chunks': { type: 'string', default: '100' },
    'delay-ms': { type: 'string', default: '20' },
    dir: { type: 'string' },
  },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.resolve(opts.dir ?? path.join(ROOT, '.bench-data/virtualize'));
const PYTHON = '/usr/bin/python3';
const CHUNKS = Number(opts.chunks);
const FILES = Number(opts.files);
const FILE_CHUNKS = Number(opts['file-chunks']);
const DELAY = Number(opts['delay-ms']);
/** Grid side of the large file: records of side x side float32 making --mib in --chunks records. */
const SIDE = Math.max(8, Math.round(Math.sqrt((Number(opts.mib) * 2 ** 20) / CHUNKS / 4)));
/** Grid spacing: a 1 x 1 degree box is STEP_PER_DEGREE^2 points. */
const STEP_PER_DEGREE = 4;

interface Format {
  /** Writes the large file: var(time=chunks, lat=side, lon=side) float32, one chunk per time step. */
  writeLarge(file: string, chunks: number, side: number): void;
  /** Writes `count` small files of `records` time steps each (var(time, 8, 8), a time coordinate). */
  writeMany(dir: string, count: number, records: number): void;
  /** Python reading the large file's `v`: full, then box [:, lat0:lat1, lon0:lon1]; prints seconds as JSON. */
  readScript: string;
  /** The format's scanner alone (what virtualize runs for one file before recording it). */
  scan(source: ByteSource, file: string): Promise<PlannedSource>;
}

/** netCDF4-python reading `v` (any netCDF format): full, then the box; seconds and sums as JSON. */
const NETCDF_READ = `
import sys, time, json, netCDF4
d = netCDF4.Dataset(sys.argv[1]); v = d.variables['v']; v.set_auto_maskandscale(False)
a, b, c, e = (int(x) for x in sys.argv[2:6])
t0 = time.perf_counter(); full = v[...]; t1 = time.perf_counter(); box = v[:, a:b, c:e]; t2 = time.perf_counter()
print(json.dumps({'full': t1 - t0, 'box': t2 - t1, 'fullSum': float(full.sum(dtype='f8')), 'boxSum': float(box.sum(dtype='f8'))}))`;

/**
 * A netCDF format written by python3-netcdf4: `ncFormat` names it; `chunked` (NetCDF-4) gives
 * every variable explicit chunks (one per time step, no compression) so the native copy has the
 * same chunks, where NetCDF-3 has its records.
 */
function netcdf(ncFormat: string, many: string, chunked: boolean, scan: Format['scan']): Format {
  const chunks = (python: string) => (chunked ? `, chunksizes=${python}` : '');
  return {
    scan,
    writeLarge(file, n, side) {
      py(`
import sys, numpy as np, netCDF4
path, n, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = netCDF4.Dataset(path, 'w', format='${ncFormat}')
d.createDimension('time', None); d.createDimension('lat', side); d.createDimension('lon', side)
t = d.createVariable('time', 'f8', ('time',)${chunks('(1024,)')}); t.units = 'hours since 2000-01-01'
la = d.createVariable('lat', 'f4', ('lat',)); la[:] = 90 - np.arange(side) / ${STEP_PER_DEGREE}
lo = d.createVariable('lon', 'f4', ('lon',)); lo[:] = np.arange(side) / ${STEP_PER_DEGREE}
v = d.createVariable('v', 'f4', ('time', 'lat', 'lon')${chunks('(1, side, side)')})
row = np.arange(side * side, dtype='f4').reshape(side, side)
for s in range(0, n, 500):
    e = min(n, s + 500)
    v[s:e] = row[None, :, :] + np.arange(s, e, dtype='f4')[:, None, None]
    t[s:e] = np.arange(s, e)
d.close()`, file, String(n), String(side));
    },
    writeMany(dir, count, records) {
      py(`
import sys, os, numpy as np, netCDF4
out, count, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    d = netCDF4.Dataset(os.path.join(out, 'f%05d.nc' % i), 'w', format='${many}')
    d.createDimension('time', None); d.createDimension('y', 8); d.createDimension('x', 8)
    t = d.createVariable('time', 'f8', ('time',)${chunks('(n,)')}); t[:] = np.arange(i * n, (i + 1) * n)
    v = d.createVariable('v', 'f4', ('time', 'y', 'x')${chunks('(1, 8, 8)')}); v[:] = np.full((n, 8, 8), i, 'f4')
    d.close()`, dir, String(count), String(records));
    },
    readScript: NETCDF_READ,
  };
}

const FORMATS: Record<string, Format> = {
  netcdf3: netcdf('NETCDF3_64BIT_OFFSET', 'NETCDF3_CLASSIC', false, (source, file) => planNetcdf3(source, file, {})),
  // NetCDF-4 (HDF5): netCDF-C 4.9 writes the HDF5 1.8 format, a version-1 B-tree chunk index.
  netcdf4: netcdf('NETCDF4', 'NETCDF4', true, (source, file) => planHdf5(source, file, {})),
};

function py(script: string, ...args: string[]): string {
  return execFileSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
}

const format = FORMATS[opts.format!];
if (!format) throw new Error(`--format: one of ${Object.keys(FORMATS).join(', ')}`);
const seconds = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const value = await f();
  return [value, (performance.now() - t0) / 1000];
};
const MiB = (n: number) => (n / 2 ** 20).toFixed(0);
const sumOf = (data: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < data.length; i++) s += data[i]!;
  return s;
};

mkdirSync(DIR, { recursive: true });
const large = path.join(DIR, `large-${opts.format}-${CHUNKS}-${SIDE}.nc`);
if (!existsSync(large)) {
  console.error(`writing ${large} (${CHUNKS} chunks of ${SIDE}x${SIDE} float32)...`);
  format.writeLarge(large, CHUNKS, SIDE);
}
const manyDir = path.join(DIR, `many-${opts.format}-${FILES}x${FILE_CHUNKS}`);
if (!existsSync(manyDir)) {
  mkdirSync(manyDir);
  console.error(`writing ${FILES} files of ${FILE_CHUNKS} chunks...`);
  format.writeMany(manyDir, FILES, FILE_CHUNKS);
}
const rows: string[][] = [];
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
const loadBefore = load();

// 1. Scanning locally: the scanner alone (best of 3), then virtualize + commit.
{
  let best = Infinity;
  let bytes = 0;
  let refs = 0;
  for (let i = 0; i < 3; i++) {
    const [plan, s] = await seconds(async () => {
      const source = await openByteSource(large);
      let read = 0;
      const counting = { ...source, read: async (o: number, l: number) => { const b = await source.read(o, l); read += b.length; return b; } };
      try {
        return { plan: await format.scan(counting, large), read };
      } finally {
        await source.close();
      }
    });
    best = Math.min(best, s);
    bytes = plan.read;
    refs = plan.plan.arrays.reduce((n, a) => n + a.refs.length, 0);
  }
  rows.push(['scan, local (scanner only, best of 3)', `${(best * 1000).toFixed(0)} ms`, `${MiB(statSync(large).size)} MiB file, ${refs} refs, ${bytes} bytes read`]);
  const work = path.join(DIR, 'repo-large');
  rmSync(work, { recursive: true, force: true });
  const repo = await Repository.create(Storage.newLocalFilesystem(work));
  const [, s] = await seconds(async () => {
    const session = await repo.writableSession('main');
    await virtualize(session, [large], { repository: repo, addContainers: true });
    await session.commit('large');
  });
  rows.push(['virtualize + commit, local', `${s.toFixed(2)} s`, '']);
}

// 2. Over HTTP with latency.
{
  const host = await startNginx(DIR);
  const proxy = await startDelayProxy(host.url, DELAY);
  try {
    const url = `${proxy.url}/${path.basename(large)}`;
    const repo = await Repository.create(Storage.newInMemory());
    const [, s] = await seconds(async () => {
      await fetch(`${proxy.url}/__phase/scan`);
      const session = await repo.writableSession('main');
      await virtualize(session, [url], { repository: repo, addContainers: true });
      await session.commit('remote');
    });
    const count = proxy.phases.get('scan');
    rows.push([`scan + commit over HTTP, ${DELAY} ms per request`, `${s.toFixed(2)} s`, `${count?.requests} requests, ${MiB(count?.bytes ?? 0)} MiB (${count?.bytes} bytes)`]);
    const files = readdirSync(manyDir).sort().slice(0, 100).map((f) => `${proxy.url}/${path.basename(manyDir)}/${f}`);
    const [, s2] = await seconds(async () => {
      await fetch(`${proxy.url}/__phase/many`);
      const session = await repo.writableSession('main');
      await virtualize(session, files, { concat: { dim: 'time' }, path: '/many', repository: repo, addContainers: true });
      await session.commit('remote many');
    });
    const many = proxy.phases.get('many');
    rows.push([`${files.length} small files over HTTP joined along time, ${DELAY} ms`, `${s2.toFixed(2)} s`, `${many?.requests} requests (8 files scanned at once)`]);
  } finally {
    await proxy.close();
    await host.close();
  }
}

// 3. Many files joined along time and committed.
{
  const files = readdirSync(manyDir).sort().map((f) => path.join(manyDir, f));
  const work = path.join(DIR, 'repo-many');
  rmSync(work, { recursive: true, force: true });
  const repo = await Repository.create(Storage.newLocalFilesystem(work));
  const rssBefore = process.memoryUsage().rss;
  const [result, s] = await seconds(async () => {
    const session = await repo.writableSession('main');
    const r = await virtualize(session, files, { concat: { dim: 'time' }, repository: repo, addContainers: true });
    await session.commit('many');
    return r;
  });
  const refs = result.imported.reduce((n, v) => n + v.virtualChunks, 0);
  rows.push([`${FILES} files x ${FILE_CHUNKS} chunks, joined along time + commit`, `${s.toFixed(2)} s`, `${refs} refs; RSS ${MiB(rssBefore)} -> ${MiB(process.memoryUsage().rss)} MiB, max RSS ${MiB(process.resourceUsage().maxRSS * 1024)} MiB`]);
}

// 4. Reading: virtual, netCDF4-python, native Floe.
{
  const lat0 = Math.floor(SIDE / 2);
  const box = [lat0, lat0 + STEP_PER_DEGREE, lat0, lat0 + STEP_PER_DEGREE];
  const prefix = `file://${DIR}/`;
  const repo = await Repository.open(Storage.newLocalFilesystem(path.join(DIR, 'repo-large')), null, { [prefix]: null });
  const session = await repo.readonlySession({ branch: 'main' });
  const array = await ZarrArray.open(session.store, '/v');
  const [full, fullS] = await seconds(() => array.get());
  const [boxed, boxS] = await seconds(() => array.get([slice(0, CHUNKS), slice(box[0]!, box[1]!), slice(box[2]!, box[3]!)]));
  const fullSum = sumOf(full.data as Float32Array);
  const peer = JSON.parse(py(format.readScript, large, ...box.map(String))) as { full: number; box: number; fullSum: number; boxSum: number };
  if (Math.abs(peer.fullSum - fullSum) > 1e-6 * Math.abs(fullSum)) throw new Error(`full read differs from netCDF4's: ${fullSum} vs ${peer.fullSum}`);
  // Native: the same values, same chunks, no compression.
  const nativeDir = path.join(DIR, 'repo-native');
  rmSync(nativeDir, { recursive: true, force: true });
  const native = await Repository.create(Storage.newLocalFilesystem(nativeDir));
  const writer = await native.writableSession('main');
  const target = await ZarrArray.create(writer.store, '/v', { shape: array.metadata.shape, chunkShape: array.metadata.chunkShape, dataType: 'float32', codecs: [{ name: 'bytes', configuration: { endian: 'little' } }] });
  await target.set(undefined, full.data as Float32Array);
  await writer.commit('native');
  const reader = await (await Repository.open(Storage.newLocalFilesystem(nativeDir))).readonlySession({ branch: 'main' });
  const nativeArray = await ZarrArray.open(reader.store, '/v');
  const [, nFullS] = await seconds(() => nativeArray.get());
  const [nBox, nBoxS] = await seconds(() => nativeArray.get([slice(0, CHUNKS), slice(box[0]!, box[1]!), slice(box[2]!, box[3]!)]));
  if (sumOf(nBox.data as Float32Array) !== sumOf(boxed.data as Float32Array)) throw new Error('native box differs from the virtual one');
  if (Math.abs(peer.boxSum - sumOf(boxed.data as Float32Array)) > 1e-6 * Math.abs(peer.boxSum)) throw new Error('box differs from netCDF4\'s');
  const gb = (full.data as Float32Array).byteLength;
  rows.push([`full read (${MiB(gb)} MiB): Floe virtual / netCDF4-python / Floe native`, `${fullS.toFixed(2)} / ${peer.full.toFixed(2)} / ${nFullS.toFixed(2)} s`, '']);
  rows.push([`1x1 degree box over ${CHUNKS} steps: Floe virtual / netCDF4-python / Floe native`, `${boxS.toFixed(2)} / ${peer.box.toFixed(2)} / ${nBoxS.toFixed(2)} s`, `${STEP_PER_DEGREE}x${STEP_PER_DEGREE} points a step`]);
}

console.log(`\nformat ${opts.format}; ${os.cpus().length} cores; load average (1/5/15 min) before ${loadBefore}, after ${load()}; node ${process.version}\n`);
console.log('| workload | time | notes |\n|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
process.exit(0);
