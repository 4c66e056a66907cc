// Zarr v3 read benchmark (issue 2, "Performance"): Floe vs zarrita 0.7.5 vs a minimal reader.
//
//   npx tsx bench/zarr-read.ts [--size-mb 1024] [--layouts uncompressed,zstd,sharded]
//        [--windows 1000] [--repeat 5] [--profile] [--skip-memory] [--memory-readers floe,zarrita]
//        [--dir D] [--keep] [--reuse]
//
// Writes (with Floe) a 2-d float32 array of --size-mb MiB (smooth sin*cos field + small noise,
// zstd level 3 saves only ~10%) to a local directory store in up to three layouts, then reads the
// same files with Floe, zarrita (over a minimal fs.promises store, like @zarrita/storage) and a
// minimal reader (sync reads + zstd-napi, 2 worker threads, pre-touched output; see
// bench/support/minimal-core.ts):
//   full     the whole array into one output, --repeat times interleaved (Floe, zarrita, minimal):
//            medians, every Floe/zarrita pair, CPU time, and before each pair the page-fault cost
//            of a new output (a fresh buffer of the same size with every page written)
//   chunks   every chunk (inner chunk for the sharded layout) as its own get, one at a time
//   cutouts  --windows random 64x64 windows (same seeded list for every reader), one at a time
// Every read is checked against the written data (outside the timed part). Peak memory of one
// full read is measured in a fresh child process (bench/support/full-read-probe.ts); --profile
// runs that child under --cpu-prof and prints the top self-time functions per thread kind.
// Prints markdown tables for BENCHMARKS.md. MB = 10^6 bytes; MiB = 2^20.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as zarr from 'zarrita';
import { openStore } from '../src/engine/api.ts';
import { ZarrArray } from '../src/engine/array.ts';
import { sharedDecodePool } from '../src/engine/decode-pool.ts';
import { slice } from '../src/engine/selection.ts';
import { topFunctions } from './support/cpuprofile-top.ts';
import { MinimalReader } from './support/minimal-reader.ts';
import { arrayShape, cpuMsSince, dirBytes, generate, load1, median, minimalLayout, pickLayouts, rng, writeLayouts, type Layout } from './support/read-data.ts';
import { FsReadStore } from './support/zarrita-fs-store.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    layouts: { type: 'string', default: 'uncompressed,zstd,sharded' },
    windows: { type: 'string', default: '1000' },
    repeat: { type: 'string', default: '5' },
    dir: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'skip-memory': { type: 'boolean', default: false },
    // Each reader's probe is a fresh process per layout (~0.4 s of CPU); bench:quick keeps Floe's.
    'memory-readers': { type: 'string', default: 'floe,zarrita' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});

const SIZE_MB = Number(opts['size-mb']);
const WINDOWS = Number(opts.windows);
const REPEAT = Math.max(1, Number(opts.repeat));
const WIN = 64;
const MB = 1e6;
const MiB = 2 ** 20;

const { rows: ROWS, cols: COLS, outBytes: OUT_BYTES } = arrayShape(SIZE_MB);
const LAYOUTS = pickLayouts(opts.layouts!);

const STORE_DIR = path.resolve(opts.dir ?? `.bench-data/zarr-read-${SIZE_MB}`);
const PROBE = new URL('./support/full-read-probe.ts', import.meta.url).pathname;

// ---- data ---------------------------------------------------------------------------------
function bytesOf(a: Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Checks `got` (h x w) equals data[r:r+h, c:c+w]. */
function checkWindow(data: Float32Array, got: Float32Array, r: number, c: number, h: number, w: number, who: string): void {
  if (got.length !== h * w) throw new Error(`${who}: window has ${got.length} values, expected ${h * w}`);
  for (let i = 0; i < h; i++) {
    const want = data.subarray((r + i) * COLS + c, (r + i) * COLS + c + w);
    if (!bytesOf(want).equals(bytesOf(got.subarray(i * w, i * w + w)))) throw new Error(`${who}: wrong values in window (${r}, ${c}) row ${i}`);
  }
}

function checkFull(data: Float32Array, got: Float32Array, who: string): void {
  if (!bytesOf(data).equals(bytesOf(got))) throw new Error(`${who}: full read differs from the written data`);
}

const mbps = (bytes: number, ms: number): number => bytes / MB / (ms / 1000);
const fmt = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? '–' : (a / b).toFixed(2));
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

// ---- run ------------------------------------------------------------------------------------
interface Row {
  layout: string;
  read: string;
  floe?: number;
  zarrita?: number;
  minimal?: number;
}
interface LayoutInfo {
  layout: Layout;
  storedBytes: number;
  objects: number;
  writeMBps?: number | undefined;
}
interface MemInfo {
  layout: string;
  reader: string;
  ms: number;
  increase: number;
  peak: number;
}

interface Clock {
  ms: number;
  cpuMs: number;
  /** Minor page faults of the process during the call. */
  faults: number;
}

const rows: Row[] = [];
const fullPairs: string[] = [];
const cutoutCpu: string[] = [];
const infos: LayoutInfo[] = [];
const mems: MemInfo[] = [];
const profiles: string[] = [];

console.error(`# array ${ROWS}x${COLS} float32 = ${(OUT_BYTES / MiB).toFixed(0)} MiB in ${STORE_DIR}`);
console.error(`# ${os.cpus().length} cores, Node ${process.version}, load ${load1()}`);
let t0 = performance.now();
const data = generate(ROWS, COLS);
console.error(`# generated data in ${(performance.now() - t0).toFixed(0)} ms`);
const writeSpeeds = await writeLayouts(STORE_DIR, SIZE_MB, LAYOUTS, opts.reuse!, data);
for (const layout of LAYOUTS) {
  const stored = dirBytes(path.join(STORE_DIR, layout.name));
  infos.push({ layout, storedBytes: stored.bytes, objects: stored.files - 1, writeMBps: writeSpeeds.get(layout.name) });
}

// One pre-touched output shared by Floe's `out` option and the minimal reader's workers.
const sharedOut = new Float32Array(new SharedArrayBuffer(OUT_BYTES)).fill(1);

let warmed = false;

/** Starts the shared decode pool and waits (at most 60 s) until a worker is ready. */
async function warmPool(): Promise<void> {
  const pool = sharedDecodePool();
  if (pool === undefined) return;
  pool.start();
  for (let waited = 0; !pool.ready && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Wall and CPU ms of one call (CPU: the whole process, all threads). */
async function clocked<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number; cpuMs: number; faults: number }> {
  const faults = process.resourceUsage().minorPageFault;
  const cpu = process.cpuUsage();
  const t = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t, cpuMs: cpuMsSince(cpu), faults: process.resourceUsage().minorPageFault - faults };
}

for (const layout of LAYOUTS) {
  const name = layout.name;
  const floeArr = await ZarrArray.open(openStore(STORE_DIR, { readOnly: true }), `/${name}`);
  const zarrArr = await zarr.open(zarr.root(new FsReadStore(STORE_DIR)).resolve(`/${name}`), { kind: 'array' });
  const minimal = new MinimalReader(minimalLayout(STORE_DIR, SIZE_MB, layout), 2);
  await minimal.start();

  // (a) full reads, interleaved; before each pair, the page-fault cost of a new output. First one
  // untimed read each: Floe's starts the decode workers (waited for until ready), as the minimal
  // reader's are started above; bench/cold-read.ts measures first reads of fresh processes.
  if (!warmed) {
    await floeArr.get();
    await warmPool();
    await zarr.get(zarrArr);
    warmed = true;
  }
  const reps = { touch: [] as Clock[], fresh: [] as Clock[], out: [] as Clock[], zarrita: [] as Clock[], minimal: [] as Clock[] };
  const loadBefore = load1();
  for (let rep = 0; rep < REPEAT; rep++) {
    gc();
    reps.touch.push(await clocked(() => new Float32Array(OUT_BYTES / 4).fill(1).length));
    gc();
    const fresh = await clocked(async () => (await floeArr.get()).data as Float32Array);
    reps.fresh.push(fresh);
    if (rep === 0) checkFull(data, fresh.value, 'floe full');
    fresh.value = new Float32Array(0);
    gc();

    if (rep === 0) sharedOut.fill(0);
    reps.out.push(await clocked(() => floeArr.get(undefined, { out: sharedOut })));
    if (rep === 0) checkFull(data, sharedOut, 'floe full (out)');

    const z = await clocked(async () => (await zarr.get(zarrArr)).data as Float32Array);
    reps.zarrita.push(z);
    if (rep === 0) checkFull(data, z.value, 'zarrita full');
    z.value = new Float32Array(0);
    gc();

    if (rep === 0) sharedOut.fill(0);
    reps.minimal.push(await clocked(() => minimal.readFull(sharedOut.buffer as SharedArrayBuffer)));
    if (rep === 0) checkFull(data, sharedOut, 'minimal full');
  }
  await minimal.close();
  const med = (xs: Clock[]) => mbps(OUT_BYTES, median(xs.map((x) => x.ms)));
  rows.push({ layout: name, read: 'full, new output', floe: med(reps.fresh), zarrita: med(reps.zarrita), minimal: med(reps.minimal) });
  rows.push({ layout: name, read: 'full, `out` given (pre-touched)', floe: med(reps.out), minimal: med(reps.minimal) });
  const pairWall = reps.zarrita.map((z, i) => z.ms / reps.fresh[i]!.ms);
  const pairCpu = reps.zarrita.map((z, i) => z.cpuMs / reps.fresh[i]!.cpuMs);
  fullPairs.push(
    `| ${name} | ${reps.fresh.map((x) => x.ms.toFixed(0)).join(' ')} | ${reps.zarrita.map((x) => x.ms.toFixed(0)).join(' ')} | ` +
      `${pairWall.map((r) => r.toFixed(2)).join(' ')} (median ${median(pairWall).toFixed(2)}) | ${pairCpu.map((r) => r.toFixed(2)).join(' ')} (median ${median(pairCpu).toFixed(2)}) | ` +
      `${reps.touch.map((x) => `${x.ms.toFixed(0)}/${x.cpuMs.toFixed(0)}`).join(' ')} | ${reps.fresh.map((x) => (x.faults / 1000).toFixed(0)).join(' ')} | ${loadBefore} -> ${load1()} |`,
  );
  console.error(`# ${name}: full reads done (Floe ${fmt(med(reps.fresh))} / out ${fmt(med(reps.out))}, zarrita ${fmt(med(reps.zarrita))}, minimal ${fmt(med(reps.minimal))} MB/s)`);

  // (b) chunk by chunk: the unit is the codec chunk (inner chunk when sharded)
  const [uh, uw] = layout.innerShape ?? layout.chunkShape;
  const units: [number, number][] = [];
  for (let r = 0; r < ROWS; r += uh) for (let c = 0; c < COLS; c += uw) units.push([r, c]);
  // (c) cutouts: the same seeded windows for every reader
  const next = rng(2024);
  const windows: [number, number][] = Array.from({ length: WINDOWS }, () => [Math.floor(next() * (ROWS - WIN + 1)), Math.floor(next() * (COLS - WIN + 1))]);

  const timed = async (list: [number, number][], h: number, w: number, read: (r: number, c: number) => Promise<Float32Array> | Float32Array, who: string): Promise<number> => {
    let ms = 0;
    let cpuMs = 0;
    for (const [r, c] of list) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      const got = await read(r, c);
      ms += performance.now() - t;
      cpuMs += cpuMsSince(cpu);
      checkWindow(data, got, r, c, h, w, who);
    }
    cpuSpent.set(who, cpuMs);
    return mbps(list.length * h * w * 4, ms);
  };
  const cpuSpent = new Map<string, number>();
  const unitOut = new Float32Array(uh * uw).fill(0);
  const winOut = new Float32Array(WIN * WIN).fill(0);
  const floeRead = (h: number, w: number) => async (r: number, c: number) => (await floeArr.get([slice(r, r + h), slice(c, c + w)])).data as Float32Array;
  const zarrRead = (h: number, w: number) => async (r: number, c: number) => (await zarr.get(zarrArr, [zarr.slice(r, r + h), zarr.slice(c, c + w)])).data as Float32Array;
  const minRead = (h: number, w: number, out: Float32Array) => (r: number, c: number) => (minimal.readWindow(r, c, h, w, out), out);

  rows.push({
    layout: name,
    read: `chunk by chunk (${units.length} x ${uh}x${uw})`,
    floe: await timed(units, uh, uw, floeRead(uh, uw), 'floe chunk'),
    zarrita: await timed(units, uh, uw, zarrRead(uh, uw), 'zarrita chunk'),
    minimal: await timed(units, uh, uw, minRead(uh, uw, unitOut), 'minimal chunk'),
  });
  console.error(`# ${name}: chunk-by-chunk done`);
  rows.push({
    layout: name,
    read: `${WINDOWS} cutouts ${WIN}x${WIN}`,
    floe: await timed(windows, WIN, WIN, floeRead(WIN, WIN), 'floe window'),
    zarrita: await timed(windows, WIN, WIN, zarrRead(WIN, WIN), 'zarrita window'),
    minimal: await timed(windows, WIN, WIN, minRead(WIN, WIN, winOut), 'minimal window'),
  });
  const cpuOf = (who: string) => cpuSpent.get(who) ?? Number.NaN;
  cutoutCpu.push(`| ${name} | ${cpuOf('floe window').toFixed(0)} | ${cpuOf('zarrita window').toFixed(0)} | ${cpuOf('minimal window').toFixed(0)} | ${(cpuOf('minimal window') / cpuOf('floe window')).toFixed(2)} |`);
  console.error(`# ${name}: cutouts done`);

  // Peak memory of one full read, each reader in a fresh process.
  if (!opts['skip-memory']) {
    for (const reader of opts['memory-readers']!.split(',').filter(Boolean)) {
      const res = spawnSync(process.execPath, ['--import', 'tsx', PROBE, reader, STORE_DIR, name, '1'], { encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`memory probe failed: ${res.stderr}`);
      const m = JSON.parse(res.stdout.trim().split('\n').pop()!) as { ms: number[]; outBytes: number; rssBefore: number; maxRssAfter: number };
      mems.push({ layout: name, reader, ms: m.ms[0]!, increase: m.maxRssAfter - m.rssBefore, peak: m.maxRssAfter });
    }
  }

  // CPU profile of Floe's full read (3 reads in a fresh process), main thread and workers apart.
  if (opts.profile) {
    const profDir = path.join(STORE_DIR, `prof-${name}`);
    rmSync(profDir, { recursive: true, force: true });
    const res = spawnSync(process.execPath, [
      '--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '250', '--import', 'tsx', PROBE, 'floe', STORE_DIR, name, '3',
    ], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`profile run failed: ${res.stderr}`);
    const probe = JSON.parse(res.stdout.trim().split('\n').pop()!) as { ms: number[]; windowUs: [number, number] };
    const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(profDir, f));
    // CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile: thread 0 is the main thread.
    const isMain = (f: string) => path.basename(f).split('.')[4] === '0';
    for (const [label, group] of [['main thread', files.filter(isMain)], ['worker threads', files.filter((f) => !isMain(f))]] as const) {
      if (group.length === 0) continue;
      const { totalMs, top } = topFunctions(group, 10, probe.windowUs);
      if (top.length === 0) continue;
      const reads = probe.ms.map((x) => x.toFixed(0)).join(' + ');
      profiles.push(`#### ${name}: ${label} (${totalMs.toFixed(0)} ms of samples during 3 full reads taking ${reads} ms)\n`);
      profiles.push('| self ms | share | function | where |\n|---:|---:|---|---|');
      for (const f of top) profiles.push(`| ${f.selfMs.toFixed(0)} | ${(f.share * 100).toFixed(1)}% | ${f.name} | ${f.where} |`);
      profiles.push('');
    }
  }
}

// ---- report ----------------------------------------------------------------------------------
const out: string[] = [];
out.push(`Array ${ROWS} x ${COLS} float32 (${(OUT_BYTES / MiB).toFixed(0)} MiB), local directory store, warm page cache; ${os.cpus().length} cores, Node ${process.version}. MB/s = 10^6 bytes of decoded output per second; full reads: median of ${REPEAT}.\n`);
out.push('| layout | objects | stored MiB | ratio | Floe write MB/s |');
out.push('|---|---:|---:|---:|---:|');
for (const i of infos) {
  out.push(`| ${i.layout.name}: ${i.layout.describe} | ${i.objects} | ${(i.storedBytes / MiB).toFixed(0)} | ${(OUT_BYTES / i.storedBytes).toFixed(2)} | ${fmt(i.writeMBps)} |`);
}
out.push('');
out.push('| layout | read | Floe MB/s | zarrita MB/s | minimal MB/s | Floe/zarrita | Floe/minimal |');
out.push('|---|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  out.push(`| ${r.layout} | ${r.read} | ${fmt(r.floe)} | ${fmt(r.zarrita)} | ${fmt(r.minimal)} | ${ratio(r.floe, r.zarrita)} | ${ratio(r.floe, r.minimal)} |`);
}
out.push('');
out.push(`Full reads with a new output, pair by pair in run order, after one untimed read each (Floe's starts its decode workers; bench/cold-read.ts measures first reads). CPU = user + system ms of the process, all threads. Page faults = a new ${(OUT_BYTES / MiB).toFixed(0)} MiB buffer with every page written, just before the pair, wall/CPU ms.\n`);
out.push('| layout | Floe ms | zarrita ms | zarrita/Floe wall | zarrita/Floe CPU | new output with every page written, ms wall/CPU | Floe read, thousand minor faults | load |');
out.push('|---|---|---|---|---|---|---|---|');
out.push(...fullPairs);
out.push('');
out.push(`CPU ms of the ${WINDOWS} cutouts (user + system, whole process):\n`);
out.push('| layout | Floe | zarrita | minimal | minimal/Floe |');
out.push('|---|---:|---:|---:|---:|');
out.push(...cutoutCpu);
if (mems.length > 0) {
  out.push('');
  out.push(`Peak memory of one full read in a fresh process (output ${(OUT_BYTES / MiB).toFixed(0)} MiB): increase = peak RSS during the read (Linux VmHWM, reset after a warm-up read) − RSS before it.\n`);
  out.push('| layout | reader | read ms | peak RSS MiB | increase MiB | increase / output |');
  out.push('|---|---|---:|---:|---:|---:|');
  for (const m of mems) {
    out.push(`| ${m.layout} | ${m.reader} | ${m.ms.toFixed(0)} | ${(m.peak / MiB).toFixed(0)} | ${(m.increase / MiB).toFixed(0)} | ${(m.increase / OUT_BYTES).toFixed(2)} |`);
  }
}
if (profiles.length > 0) {
  out.push('');
  out.push('Top self-time functions of Floe full reads (`node --cpu-prof`, samples during the reads only; line = where the function is defined in the .ts source):\n');
  out.push(...profiles);
}
console.log(out.join('\n'));

if (!opts.keep) rmSync(STORE_DIR, { recursive: true, force: true });
process.exit(0);
