// CF decoding on read (issue 33, "Performance"): a full read of an int16 packed variable with
// `decode: 'cf'` against (a) a raw read into an output of the decoded type (the floor: `get()` of
// the stored int16, then one pass writing a new array of the decoded type) and (b) xarray's
// `open_zarr(...).load()` of the same Zarr v2 store, in one run. The decoding read is timed with
// the decode pool (the default: once its workers run, they read, decode and unpack the chunks into
// the shared result) and without it (decodePool: false: all in this thread).
//
//   npx tsx bench/cf-read.ts [--size-mb 1024] [--repeat 5] [--dir D] [--keep] [--profile] [--query]
//
// --query times whole-variable queries instead (`query(store, { decode }).from(name).execute()`):
// stored values (decode: 'none'), decoded in the chunk reads (decode: 'cf'), and decoded after the
// read (decode: 'cf' with keepStored, the second pass every decoding query made before fusing).
//
// /usr/bin/python3 (zarr 2.13) writes the store: int16 [rows, 8192] in uncompressed 1 MiB chunks
// ([64, 8192]), two variables of the same values (a smooth field, 1% fill values):
//   packed32  scale_factor 0.01, _FillValue -32767: float32 in Floe and xarray alike
//   packed64  scale_factor 0.01, add_offset 273.15, _FillValue: float64 in Floe, float32 in xarray
//             (docs/cf.md: the decoded type), so Floe writes twice xarray's bytes
// Each variant is timed best of --repeat, interleaved (Floe's variants, then xarray in one Python
// process): the decoding read with the pool (default), into one reused shared result (`out`), and
// without the pool. Then where the time goes: fill(1) of a fresh output (its page faults) against
// a reused one, the minor page faults and the CPU seconds (all threads) of one decoding read.
// The load average is printed before and after. Decoded values are checked against the
// raw read's (outside the timed part). --profile prints the top self-time functions of the
// decoding read (node's inspector profiler).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openArray, openStore } from '../src/engine/api.ts';
import type { ZarrArray } from '../src/engine/array.ts';
import { sharedDecodePool } from '../src/engine/decode-pool.ts';
import type { TypedArray } from '../src/format/zarr/data-types.ts';
import { ReadCaches } from '../src/cache/read-caches.ts';
import { query } from '../src/query/index.ts';
import { sharedResultBuffer } from '../src/engine/shared-results.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    repeat: { type: 'string', default: '5' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    query: { type: 'boolean', default: false },
  },
});
const COLS = 8192;
const CHUNK_ROWS = 64;
const rows = Math.max(CHUNK_ROWS, Math.round((Number(opts['size-mb']) * 2 ** 20) / (2 * COLS) / CHUNK_ROWS) * CHUNK_ROWS);
const repeat = Number(opts.repeat);
const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'floe-cf-bench-'));
const storePath = path.join(dir, 'cf.zarr');
const PYTHON = process.env.FLOE_PYTHON ?? '/usr/bin/python3';

const WRITE = `
import sys, numpy as np, zarr
path, rows, cols, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
g = zarr.open_group(path, mode="w")
for name, attrs in [("packed32", {"scale_factor": 0.01}), ("packed64", {"scale_factor": 0.01, "add_offset": 273.15})]:
    a = g.create_dataset(name, shape=(rows, cols), chunks=(chunk, cols), dtype="i2", compressor=None, fill_value=-32767)
    a.attrs.update({"_ARRAY_DIMENSIONS": ["y", "x"], **attrs})
    x = np.arange(cols)
    for r0 in range(0, rows, chunk):
        y = np.arange(r0, r0 + chunk)[:, None]
        v = (np.sin(y / 97.0) * 12000 + np.cos(x / 211.0) * 8000).astype("i2")
        v[(y * 31 + x) % 100 == 0] = -32767
        a[r0:r0 + chunk] = v
zarr.consolidate_metadata(path)
`;

const XARRAY = `
import json, sys, time, warnings, xarray as xr
warnings.simplefilter("ignore")
path, repeat = sys.argv[1], int(sys.argv[2])
out = {}
for name in ["packed32", "packed64"]:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        v = xr.open_zarr(path)[name].load()
        best = min(best, time.perf_counter() - t0)
        dtype = str(v.dtype)
        del v
    out[name] = {"seconds": best, "dtype": dtype}
print(json.dumps(out))
`;

async function best(run: () => Promise<unknown>): Promise<number> {
  let fastest = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    await run();
    fastest = Math.min(fastest, (performance.now() - t0) / 1000);
  }
  return fastest;
}

/** The floor: the stored values read, then written once into a new array of the decoded type. */
async function floor(array: ZarrArray, Out: Float32ArrayConstructor | Float64ArrayConstructor): Promise<TypedArray> {
  const raw = (await array.get()).data as Int16Array;
  const out = new Out(raw.length);
  out.set(raw); // the typed array's own conversion: the fastest way to write the output once
  return out;
}

/** Checks once (outside the timed part) that the decoded values are the raw ones unpacked (NaN at the fill value). */
async function check(array: ZarrArray, name: string): Promise<{ Out: Float32ArrayConstructor | Float64ArrayConstructor; length: number }> {
  const data = (await array.get(undefined, { decode: 'cf' })).data as Float32Array | Float64Array;
  const Out = data instanceof Float32Array ? Float32Array : Float64Array;
  const raw = (await array.get()).data as Int16Array;
  const round = Out === Float32Array ? Math.fround : (x: number) => x;
  const [scale, offset] = [round(0.01), name === 'packed64' ? round(273.15) : 0];
  for (let i = 0; i < raw.length; i += 4099) {
    const want = raw[i] === -32767 ? NaN : name === 'packed64' ? raw[i]! * scale + offset : round(raw[i]! * scale);
    if (!Object.is(data[i], round(want))) throw new Error(`${name}[${i}]: ${data[i]} != ${want}`);
  }
  return { Out, length: raw.length };
}

async function profileRead(array: ZarrArray): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await array.get(undefined, { decode: 'cf', decodePool: false }); // this thread only: the profiler sees all of it
  const { profile } = await session.post('Profiler.stop');
  const self = new Map<string, number>();
  const dt = profile.timeDeltas ?? [];
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  (profile.samples ?? []).forEach((id, i) => {
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`profile of one decoding read without the pool (${total.toFixed(0)} ms sampled), top self time:`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${k}`);
  session.disconnect();
}

async function main(): Promise<void> {
  const mb = (rows * COLS * 2) / 2 ** 20;
  console.log(`CF read bench: int16 [${rows}, ${COLS}] (${mb.toFixed(0)} MiB stored), chunks [${CHUNK_ROWS}, ${COLS}] uncompressed; best of ${repeat}; node ${process.version}, ${os.cpus().length} cores`);
  console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  execFileSync(PYTHON, ['-c', WRITE, storePath, String(rows), String(COLS), String(CHUNK_ROWS)], { stdio: 'inherit' });
  const store = openStore(storePath, { readOnly: true });
  if (opts.query) return queryBench(store, mb);
  const results: Record<string, Record<string, number | string>> = {};
  const pool = sharedDecodePool();
  for (const name of ['packed32', 'packed64']) {
    const array = await openArray(store, `/${name}`);
    const { Out, length } = await check(array, name);
    const rawSeconds = await best(() => array.get());
    const floorSeconds = await best(() => floor(array, Out));
    const sent = pool?.chunksSent ?? 0;
    const cfSeconds = await best(() => array.get(undefined, { decode: 'cf' }));
    const pooledChunks = (pool?.chunksSent ?? 0) - sent;
    // Into one reused result (shared memory, so the workers write it): no new pages each read.
    const out = new (Out as new (b: SharedArrayBuffer) => Float32Array | Float64Array)(new SharedArrayBuffer(length * Out.BYTES_PER_ELEMENT));
    const reusedSeconds = await best(() => array.get(undefined, { decode: 'cf', out }));
    // CPU seconds of one read, all threads (user + system): what the load on a shared machine hides.
    const cpu = (run: () => Promise<unknown>) => async () => {
      const c0 = process.cpuUsage();
      await run();
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / 1e6;
    };
    const faults = process.resourceUsage().minorPageFault;
    const cpuPooled = await cpu(() => array.get(undefined, { decode: 'cf' }))();
    const faultsPerRead = process.resourceUsage().minorPageFault - faults;
    const cpuInline = await cpu(() => array.get(undefined, { decode: 'cf', decodePool: false }))();
    const cpuReused = await cpu(() => array.get(undefined, { decode: 'cf', out }))();
    const inlineSeconds = await best(() => array.get(undefined, { decode: 'cf', decodePool: false }));
    // Where the time goes: a fresh output's pages are faulted in on first write (the floor and
    // every decoding read pay it); writing a reused output of the same size does not.
    const fillReused = await best(async () => out.fill(1));
    const fillFresh = await best(async () => new Out(length).fill(1));
    // Through the allocation results use, which collects dropped shared memory (V8 does not).
    const fillShared = await best(async () => new (Out as new (b: ArrayBufferLike) => Float32Array | Float64Array)(sharedResultBuffer(length * Out.BYTES_PER_ELEMENT)).fill(1));
    results[name] = { dtype: Out === Float32Array ? 'float32' : 'float64', raw: rawSeconds, floor: floorSeconds, cf: cfSeconds, inline: inlineSeconds, pooledChunks, faultsPerRead, fillFresh, fillReused, reusedSeconds, fillShared, cpuPooled, cpuInline, cpuReused };
    if (opts.profile) await profileRead(array);
  }
  const xr = JSON.parse(execFileSync(PYTHON, ['-c', XARRAY, storePath, String(repeat)], { encoding: 'utf8' })) as Record<string, { seconds: number; dtype: string }>;
  console.log(`decode pool: ${pool ? `${pool.size} workers` : 'none on this host'}; "pool on" is the default get(), "pool off" passes decodePool: false`);
  console.log('| variable | Floe decoded type | raw get() s | floor s | decode: cf s, pool on (chunks to workers) | cf / floor | cf s, pool off | off / floor | cf s, pool on, reused out | xarray s (type) | xarray / cf on | xarray / cf off | xarray / cf reused out |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const x = xr[name]!;
    const [cf, off, fl] = [r.cf as number, r.inline as number, r.floor as number];
    console.log(`| ${name} | ${r.dtype} | ${(r.raw as number).toFixed(3)} | ${fl.toFixed(3)} | ${cf.toFixed(3)} (${r.pooledChunks}/${(repeat * rows) / CHUNK_ROWS}) | ${(cf / fl).toFixed(2)} | ${off.toFixed(3)} | ${(off / fl).toFixed(2)} | ${(r.reusedSeconds as number).toFixed(3)} | ${x.seconds.toFixed(3)} (${x.dtype}) | ${(x.seconds / cf).toFixed(2)} | ${(x.seconds / off).toFixed(2)} | ${(x.seconds / (r.reusedSeconds as number)).toFixed(2)} |`);
  }
  console.log('Output memory (one thread): fill(1) of a fresh output (page faults included) vs of a reused one; minor page faults of one pooled decoding read (all threads)');
  for (const [name, r] of Object.entries(results)) {
    console.log(`  ${name}: fresh ${(r.fillFresh as number).toFixed(3)} s (SharedArrayBuffer ${(r.fillShared as number).toFixed(3)} s), reused ${(r.fillReused as number).toFixed(3)} s; ${r.faultsPerRead} minor faults per read (${(((r.faultsPerRead as number) * 4096) / 2 ** 20).toFixed(0)} MiB of 4 KiB pages); CPU s of one decoding read: pool on ${(r.cpuPooled as number).toFixed(3)}, off ${(r.cpuInline as number).toFixed(3)}, reused out ${(r.cpuReused as number).toFixed(3)}`);
  }
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (!opts.keep && !opts.dir) rmSync(dir, { recursive: true, force: true });
}

/** --query: whole-variable queries, stored, decoded in the reads, and decoded after the read. */
async function queryBench(store: ReturnType<typeof openStore>, mb: number): Promise<void> {
  console.log('| variable | query stored s | query decode: cf s (in the reads) | decode: cf + keepStored s (after the read) | after / in | hot (cached units) stored s | hot cf s (decoded as copied) | hot cf + keepStored s (after) | hot after / in |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  // Hot queries: caches that keep every chunk decoded (units of 1 MiB; an entry may take 1/8 of the
  // budget), so each query after the first assembles its result from cached units of the stored type.
  const caches = new ReadCaches({ decodedChunkBytes: Math.max(16 * 2 ** 20, Math.ceil(mb * 1.25) * 2 ** 20), chunkBytes: 2 ** 20 });
  for (const name of ['packed32', 'packed64']) {
    const stored = await best(() => query(store).from(`/${name}`).execute());
    const fused = await best(() => query(store, { decode: 'cf' }).from(`/${name}`).execute());
    const after = await best(() => query(store, { decode: 'cf', keepStored: true }).from(`/${name}`).execute());
    await query(store, { caches }).from(`/${name}`).execute(); // cold: fills the caches
    await query(store, { caches }).from(`/${name}`).execute(); // warm: the units go in the decoded cache
    const hotStored = await best(() => query(store, { caches }).from(`/${name}`).execute());
    const hot = await best(() => query(store, { decode: 'cf', caches }).from(`/${name}`).execute());
    const hotAfter = await best(() => query(store, { decode: 'cf', keepStored: true, caches }).from(`/${name}`).execute());
    const hits = (await query(store, { decode: 'cf', caches }).from(`/${name}`).execute()).report.cacheHits.decodedChunks;
    console.log(`| ${name} | ${stored.toFixed(3)} | ${fused.toFixed(3)} | ${after.toFixed(3)} | ${(after / fused).toFixed(2)} | ${hotStored.toFixed(3)} | ${hot.toFixed(3)} (${hits} units hit) | ${hotAfter.toFixed(3)} | ${(hotAfter / hot).toFixed(2)} |`);
  }
  console.log(`${mb.toFixed(0)} MiB stored; load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (!opts.keep && !opts.dir) rmSync(dir, { recursive: true, force: true });
}

await main();
