// Zarr v3 write benchmark (issue 19 stage 2, "Writes"): Floe vs zarrita 0.7.5, side by side.
//
//   node --expose-gc --import tsx bench/zarr-write.ts [--size-mb 256] [--layouts uncompressed,zstd]
//        [--pairs 8] [--durability atomic,none,fsync] [--chunk 1024] [--baseline DIR] [--dir D] [--keep]
//
// Each pair writes the same 2-d float32 array (the read bench's smooth field plus noise) once with
// Floe (`ZarrArray.set` of the whole array, defaults, over `openStore(dir, { durability })`) and
// once with zarrita (`zarr.set`, defaults, over @zarrita/storage's FileSystemStore: mkdir +
// fs.promises.writeFile per chunk), into fresh directories; who goes first alternates. Timed:
// the one set call, wall and CPU (user + system of the whole process: libuv's threads included),
// and the minor page faults it took (first touches of new memory). Array metadata is created
// and old directories removed outside the timed part, after a full GC (--expose-gc). A warm-up
// pair (not counted) of each layout checks both stores hold the written data (uncompressed: byte-identical
// chunk files). --durability lists the Floe modes to time, each in its own pairs against zarrita.
// Prints markdown tables for BENCHMARKS.md: medians, the per-pair ratio zarrita time / Floe time
// (> 1: Floe faster) as median [min–max], and the load average around each layout.
// --baseline DIR (another checkout of Floe, e.g. the commit before a change, with node_modules)
// adds that Floe's write (`openStore(dir, { durable: false })`, i.e. 'atomic') to every pair,
// each of the three in turn going first, and reports this Floe's speed-up over it.
import { readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as zarr from 'zarrita';
import FileSystemStore from '@zarrita/storage/fs';
import { openStore } from '../src/engine/api.ts';
import { ZarrArray } from '../src/engine/array.ts';
import type { Durability } from '../src/engine/storage/fs.ts';
import type { CodecMetadata } from '../src/format/codecs/types.ts';
import { median } from './support/probe-runner.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '256' },
    layouts: { type: 'string', default: 'uncompressed,zstd' },
    pairs: { type: 'string', default: '8' },
    chunk: { type: 'string', default: '1024' },
    durability: { type: 'string', default: 'atomic' },
    dir: { type: 'string' },
    baseline: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const SIZE_MB = Number(opts['size-mb']);
const PAIRS = Math.max(1, Number(opts.pairs));
const MiB = 2 ** 20;
const MB = 1e6;
const MODES = opts.durability!.split(',').map((s) => s.trim()) as Durability[];

// Square-ish, whole CHUNK x CHUNK chunks (1024: 4 MiB) and no ragged edges.
const CHUNK = Number(opts.chunk);
const elems = SIZE_MB * (MiB / 4);
let COLS = 1024;
while (COLS * 2 * COLS * 2 <= elems) COLS *= 2;
const ROWS = Math.max(1024, Math.round(elems / COLS / 1024) * 1024);
if (ROWS % CHUNK !== 0 || COLS % CHUNK !== 0) throw new Error(`--chunk must divide ${ROWS} and ${COLS}`);
const BYTES = ROWS * COLS * 4;

const bytesCodec: CodecMetadata = { name: 'bytes', configuration: { endian: 'little' } };
const zstd3: CodecMetadata = { name: 'zstd', configuration: { level: 3, checksum: false } };
const LAYOUTS: Record<string, CodecMetadata[]> = { uncompressed: [bytesCodec], zstd: [bytesCodec, zstd3] };
const wanted = opts.layouts!.split(',').map((s) => s.trim());
for (const name of wanted) if (!LAYOUTS[name]) throw new Error(`--layouts: choose from ${Object.keys(LAYOUTS).join(', ')}`);

const DIR = path.resolve(opts.dir ?? `.bench-data/zarr-write-${SIZE_MB}`);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
if (!(globalThis as { gc?: unknown }).gc) console.error('# no --expose-gc: GC is not forced before the timed parts');

function generate(rows: number, cols: number): Float32Array {
  const v = new Float32Array(rows * cols);
  const colWave = Float64Array.from({ length: cols }, (_, j) => Math.cos(j / 400));
  let seed = 12345;
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const a = 100 * Math.sin(i / 300);
    for (let j = 0; j < cols; j++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      v[k++] = a * (colWave[j] ?? 0) + 20 + 0.1 * (seed / 2 ** 32 - 0.5);
    }
  }
  return v;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  /** The system (kernel) part of cpuMs: the copies into the page cache, page faults, syscalls. */
  sysMs: number;
  faults: number;
}

/** Times `write` after a full GC: wall, process CPU (all threads) and minor page faults. */
async function measure(write: () => Promise<void>): Promise<Sample> {
  gc();
  const faults0 = process.resourceUsage().minorPageFault;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await write();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, sysMs: cpu.system / 1000, faults: process.resourceUsage().minorPageFault - faults0 };
}

const shape = [ROWS, COLS];
const chunkShape = [CHUNK, CHUNK];

async function writeFloe(root: string, codecs: CodecMetadata[], data: Float32Array, durability: Durability): Promise<Sample> {
  const store = openStore(root, { durability });
  const arr = await ZarrArray.create(store, '/', { shape, chunkShape, dataType: 'float32', fillValue: 0, codecs });
  return measure(() => arr.set(undefined, data));
}

type Floe = { openStore: typeof openStore; ZarrArray: typeof ZarrArray };
const baseline: Floe | undefined = opts.baseline === undefined ? undefined : {
  openStore: ((await import(path.resolve(opts.baseline, 'src/engine/api.ts'))) as Floe).openStore,
  ZarrArray: ((await import(path.resolve(opts.baseline, 'src/engine/array.ts'))) as Floe).ZarrArray,
};

async function writeBaseline(floe: Floe, root: string, codecs: CodecMetadata[], data: Float32Array): Promise<Sample> {
  const arr = await floe.ZarrArray.create(floe.openStore(root, { durable: false }), '/', { shape, chunkShape, dataType: 'float32', fillValue: 0, codecs });
  return measure(() => arr.set(undefined, data));
}

async function writeZarrita(root: string, codecs: CodecMetadata[], data: Float32Array): Promise<Sample> {
  mkdirSync(root, { recursive: true });
  const store = new FileSystemStore(root);
  const arr = await zarr.create(zarr.root(store), {
    shape, chunkShape, dtype: 'float32', fillValue: 0, codecs: codecs as unknown as zarr.CodecMetadata[],
  });
  return measure(() => zarr.set(arr, null, { data, shape, stride: [COLS, 1] }));
}

/** Both stores hold `data`: read back with Floe; uncompressed chunk files must be byte-identical. */
async function check(floeRoot: string, zarritaRoot: string, layout: string, data: Float32Array): Promise<void> {
  for (const root of [floeRoot, zarritaRoot]) {
    const got = (await (await ZarrArray.open(openStore(root, { readOnly: true }), '/')).get()).data as Float32Array;
    if (!Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(data.buffer))) throw new Error(`${root}: data differs`);
  }
  if (layout !== 'uncompressed') return;
  const chunkFiles = (root: string) => readdirSync(path.join(root, 'c'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort();
  const names = chunkFiles(floeRoot);
  if (names.join() !== chunkFiles(zarritaRoot).join()) throw new Error('the two stores hold different chunk keys');
  for (const name of names) {
    if (!readFileSync(path.join(floeRoot, name)).equals(readFileSync(path.join(zarritaRoot, name)))) throw new Error(`chunk ${name} differs`);
  }
}

const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const spread = (xs: number[]): string => `${fmt(median(xs))} [${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}]`;

console.error(`# array ${ROWS}x${COLS} float32 = ${(BYTES / MiB).toFixed(0)} MiB, ${CHUNK}x${CHUNK} chunks, in ${DIR}; ${os.cpus().length} cores, Node ${process.version}`);
const data = generate(ROWS, COLS);
rmSync(DIR, { recursive: true, force: true });
const out: string[] = [];
out.push(`Array ${ROWS} x ${COLS} float32 (${(BYTES / MiB).toFixed(0)} MiB, ${(ROWS / CHUNK) * (COLS / CHUNK)} chunks of ${CHUNK}x${CHUNK}), local directory store; ${os.cpus().length} cores, Node ${process.version}; ${PAIRS} alternating pairs per row. MB/s = 10^6 bytes of array data per second of wall time; ratio = zarrita time / Floe time per pair (> 1: Floe faster), median [min–max].\n`);
const baseHead = baseline ? ' baseline wall ms | baseline CPU ms | wall / CPU speed-up over baseline |' : '';
out.push(`| layout | Floe durability | Floe wall ms | zarrita wall ms | wall ratio | Floe CPU (sys) ms | zarrita CPU (sys) ms | CPU ratio | Floe MB/s | zarrita MB/s | faults Floe / zarrita |${baseHead} load avg |`);
out.push(`|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|${baseline ? '---:|---:|---:|' : ''}---|`);
for (const layout of wanted) {
  const codecs = LAYOUTS[layout] ?? [];
  for (const mode of MODES) {
    const floe: Sample[] = [];
    const zarrita: Sample[] = [];
    const base: Sample[] = [];
    const load0 = os.loadavg()[0] ?? 0;
    for (let pair = -1; pair < PAIRS; pair++) { // pair -1 warms up (codecs loaded, code compiled): not counted
      const floeRoot = path.join(DIR, `floe-${layout}-${pair}`);
      const zarritaRoot = path.join(DIR, `zarrita-${layout}-${pair}`);
      const keep = (xs: Sample[], s: Sample) => pair >= 0 && xs.push(s);
      const runFloe = async () => keep(floe, await writeFloe(floeRoot, codecs, data, mode));
      const runZarrita = async () => keep(zarrita, await writeZarrita(zarritaRoot, codecs, data));
      const baseRoot = path.join(DIR, `baseline-${layout}-${pair}`);
      const runs = [runFloe, runZarrita];
      if (baseline) runs.push(async () => keep(base, await writeBaseline(baseline, baseRoot, codecs, data)));
      const first = (pair + runs.length) % runs.length; // each side goes first in turn
      for (const run of [...runs.slice(first), ...runs.slice(0, first)]) await run();
      if (pair === -1) await check(floeRoot, zarritaRoot, layout, data);
      if (pair === -1 && baseline) await check(baseRoot, zarritaRoot, layout, data);
      if (!opts.keep) for (const root of [floeRoot, zarritaRoot, baseRoot]) rmSync(root, { recursive: true, force: true });
      const last = (xs: Sample[]) => xs.at(-1)?.wallMs.toFixed(0);
      const cpu = (xs: Sample[]) => `${xs.at(-1)?.cpuMs.toFixed(0)} (sys ${xs.at(-1)?.sysMs.toFixed(0)})`;
      if (pair >= 0) {
        console.error(`# ${layout} ${mode} pair ${pair}: wall ms Floe ${last(floe)}, zarrita ${last(zarrita)}${baseline ? `, baseline ${last(base)}` : ''}; ` +
          `CPU ms Floe ${cpu(floe)}, zarrita ${cpu(zarrita)}${baseline ? `, baseline ${cpu(base)}` : ''} (load ${os.loadavg()[0]?.toFixed(2)})`);
      }
    }
    const wallRatio = floe.map((f, i) => (zarrita[i]?.wallMs ?? NaN) / f.wallMs);
    const cpuRatio = floe.map((f, i) => (zarrita[i]?.cpuMs ?? NaN) / f.cpuMs);
    const col = (xs: Sample[], k: keyof Sample) => median(xs.map((s) => s[k]));
    const speedUp = (k: keyof Sample) => median(floe.map((f, i) => (base[i]?.[k] ?? NaN) / f[k]));
    const baseCols = baseline ? ` ${fmt(col(base, 'wallMs'))} | ${fmt(col(base, 'cpuMs'))} | ${fmt(speedUp('wallMs'))} / ${fmt(speedUp('cpuMs'))} |` : '';
    out.push(`| ${layout} | ${mode} | ${fmt(col(floe, 'wallMs'))} | ${fmt(col(zarrita, 'wallMs'))} | ${spread(wallRatio)} | ${fmt(col(floe, 'cpuMs'))} (${fmt(col(floe, 'sysMs'))}) | ${fmt(col(zarrita, 'cpuMs'))} (${fmt(col(zarrita, 'sysMs'))}) | ${spread(cpuRatio)} | ` +
      `${fmt(BYTES / MB / (col(floe, 'wallMs') / 1000))} | ${fmt(BYTES / MB / (col(zarrita, 'wallMs') / 1000))} | ${fmt(col(floe, 'faults'))} / ${fmt(col(zarrita, 'faults'))} |${baseCols} ${load0.toFixed(2)} → ${os.loadavg()[0]?.toFixed(2)} |`);
  }
}
console.log(out.join('\n'));
if (!opts.keep) rmSync(DIR, { recursive: true, force: true });
