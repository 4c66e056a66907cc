// Zarr v2 full reads (issue 21, "Done when"): Floe vs zarrita 0.7.5 on a 1 GiB float32 v2 array
// compressed with Blosc-LZ4 and byte shuffle, the compressor zarr-python 2 writes by default.
//
//   npx tsx bench/zarr-v2-read.ts [--size-mb 1024] [--pairs 7] [--writers cblosc,floe]
//        [--skip-memory] [--profile] [--dir D] [--keep] [--reuse]
//
// Two stores of the same values, differing in who compressed the chunks:
//   cblosc  chunk bytes from c-blosc 1.x (numcodecs' WASM build, what zarrita also decodes with):
//           the layout of data written by zarr-python/numcodecs (LZ4 streams split per byte of
//           the type); metadata written by Floe.
//   floe    Floe's own writer (`set`), Floe's Blosc encoder (LZ4 streams not split).
// Each store is read whole by Floe (`get`, defaults: new output) and by zarrita (`zarr.get`, over
// a store reading with fs.promises like @zarrita/storage's) in --pairs alternating pairs (the
// order flips every pair, so drift in machine load falls on both). Reported per reader: median
// wall MB/s, median CPU seconds (process.cpuUsage: all threads), and the median of the per-pair
// wall and CPU ratios. The load average is printed before and after. Every read is compared with
// the written values (outside the timed part). Peak memory and page faults: one full read per
// reader in a fresh child process (this script with --probe), VmHWM reset after a warm-up read.
// --profile runs Floe's child under --cpu-prof and prints the top self-time functions.
// MB = 10^6 bytes of decoded output.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Blosc from 'numcodecs/blosc';
import * as zarr from 'zarrita';
import { createArray, openArray, openStore } from '../src/engine/api.ts';
import { slice } from '../src/engine/selection.ts';
import { topFunctions } from './support/cpuprofile-top.ts';
import { median } from './support/probe-runner.ts';
import { FsReadStore } from './support/zarrita-fs-store.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    pairs: { type: 'string', default: '7' },
    writers: { type: 'string', default: 'cblosc,floe' },
    dir: { type: 'string' },
    'skip-memory': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    // child mode
    probe: { type: 'string' },
    name: { type: 'string' },
    repeat: { type: 'string', default: '1' },
  },
});

const MB = 1e6;
const MiB = 2 ** 20;
const CHUNK = 1024;
const COMPRESSOR = { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0 } as const;
const SELF = fileURLToPath(import.meta.url);

// ---- child: one reader, fresh process ---------------------------------------------------------
if (opts.probe !== undefined) {
  await probe(opts.probe, opts.dir!, opts.name!, Number(opts.repeat));
  process.exit(0);
}

function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

async function probe(reader: string, dir: string, name: string, repeat: number): Promise<void> {
  let read: () => Promise<unknown>;
  if (reader === 'floe') {
    const arr = await openArray(openStore(dir, { readOnly: true }), `/${name}`);
    await arr.get([slice(0, CHUNK), slice(0, 2 * CHUNK)]); // warm-up: codecs, decode workers
    read = () => arr.get();
  } else {
    const arr = await zarr.open.v2(zarr.root(new FsReadStore(dir)).resolve(`/${name}`), { kind: 'array' });
    await zarr.get(arr, [zarr.slice(0, 64), zarr.slice(0, 64)]);
    read = () => zarr.get(arr);
  }
  try {
    writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM
  } catch {}
  const rssBefore = process.memoryUsage().rss;
  const faultsBefore = process.resourceUsage().minorPageFault;
  const windowStartUs = Number(process.hrtime.bigint() / 1000n);
  const ms: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await read();
    ms.push(performance.now() - t);
  }
  const windowUs = [windowStartUs, Number(process.hrtime.bigint() / 1000n)];
  const minorFaults = process.resourceUsage().minorPageFault - faultsBefore;
  console.log(JSON.stringify({ ms, rssBefore, peak: peakRss(), minorFaults, windowUs }));
}

// ---- parent ---------------------------------------------------------------------------------
const SIZE_MB = Number(opts['size-mb']);
const PAIRS = Math.max(1, Number(opts.pairs));
const elems = SIZE_MB * (MiB / 4);
let COLS = 2048;
while (COLS * 2 * COLS * 2 <= elems) COLS *= 2;
const ROWS = Math.max(CHUNK, Math.round(elems / COLS / CHUNK) * CHUNK);
const OUT_BYTES = ROWS * COLS * 4;
const STORE_DIR = path.resolve(opts.dir ?? `.bench-data/zarr-v2-read-${SIZE_MB}`);
const WRITERS = opts.writers!.split(',').map((s) => s.trim()).filter((s) => s === 'cblosc' || s === 'floe');
if (WRITERS.length === 0) throw new Error('--writers: choose from cblosc, floe');

/** The field bench/zarr-read.ts writes: smooth, plus noise in the low mantissa bits. */
function generate(rows: number, cols: number): Float32Array {
  const v = new Float32Array(rows * cols);
  const rowWave = Float64Array.from({ length: rows }, (_, i) => 100 * Math.sin(i / 300));
  const colWave = Float64Array.from({ length: cols }, (_, j) => Math.cos(j / 400));
  let seed = 12345;
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const a = rowWave[i] ?? 0;
    for (let j = 0; j < cols; j++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      v[k++] = a * (colWave[j] ?? 0) + 20 + 0.1 * (seed / 2 ** 32 - 0.5);
    }
  }
  return v;
}

const bytesOf = (a: Float32Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const mbps = (ms: number): number => OUT_BYTES / MB / (ms / 1000);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const load = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

function storedBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && !e.name.startsWith('.')) {
      bytes += statSync(path.join(dir, e.name)).size;
      files++;
    }
  }
  return { bytes, files };
}

async function writeStore(writer: string, data: Float32Array): Promise<number> {
  const store = openStore(STORE_DIR, { durable: false });
  const arr = await createArray(store, `/${writer}`, {
    zarrFormat: 2, shape: [ROWS, COLS], chunks: [CHUNK, CHUNK], dtype: '<f4', compressor: { ...COMPRESSOR }, fillValue: 0, overwrite: true,
  });
  const t = performance.now();
  if (writer === 'floe') {
    await arr.set(undefined, data);
  } else {
    const codec = Blosc.fromConfig({ cname: COMPRESSOR.cname, clevel: COMPRESSOR.clevel, shuffle: COMPRESSOR.shuffle, blocksize: 0 });
    const chunk = new Float32Array(CHUNK * CHUNK);
    for (let ci = 0; ci < ROWS / CHUNK; ci++) {
      for (let cj = 0; cj < COLS / CHUNK; cj++) {
        for (let r = 0; r < CHUNK; r++) {
          const from = (ci * CHUNK + r) * COLS + cj * CHUNK;
          chunk.set(data.subarray(from, from + CHUNK), r * CHUNK);
        }
        writeFileSync(path.join(STORE_DIR, writer, `${ci}.${cj}`), await codec.encode(new Uint8Array(chunk.buffer)));
      }
    }
  }
  return mbps(performance.now() - t);
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function timed(read: () => Promise<Float32Array>, check: ((got: Float32Array) => void) | undefined): Promise<Sample> {
  gc();
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  const got = await read();
  const wallMs = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  check?.(got);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

console.error(`# array ${ROWS}x${COLS} float32 = ${(OUT_BYTES / MiB).toFixed(0)} MiB, chunks ${CHUNK}x${CHUNK}, in ${STORE_DIR}`);
console.error(`# ${os.cpus().length} cores, Node ${process.version}, load average ${load()}`);
const data = generate(ROWS, COLS);
mkdirSync(STORE_DIR, { recursive: true });
const out: string[] = [];
const loadBefore = load();
const summary: string[] = [];
const layoutRows: string[] = [];
const memRows: string[] = [];
const pairRows: string[] = [];
const profiles: string[] = [];

for (const writer of WRITERS) {
  const root = path.join(STORE_DIR, writer);
  const writeMBps = opts.reuse && existsSync(path.join(root, '.zarray')) ? undefined : await writeStore(writer, data);
  const stored = storedBytes(root);
  layoutRows.push(`| ${writer} | ${stored.files} | ${(stored.bytes / MiB).toFixed(0)} | ${(OUT_BYTES / stored.bytes).toFixed(2)} | ${writeMBps === undefined ? '–' : writeMBps.toFixed(0)} |`);
  console.error(`# ${writer}: ${stored.files} chunks, ${(stored.bytes / MiB).toFixed(0)} MiB stored`);

  const floeArr = await openArray(openStore(STORE_DIR, { readOnly: true }), `/${writer}`);
  const zarrArr = await zarr.open.v2(zarr.root(new FsReadStore(STORE_DIR)).resolve(`/${writer}`), { kind: 'array' });
  const readFloe = async (): Promise<Float32Array> => (await floeArr.get()).data as Float32Array;
  const readZarrita = async (): Promise<Float32Array> => (await zarr.get(zarrArr)).data as Float32Array;
  const check = (who: string) => (got: Float32Array): void => {
    if (!bytesOf(data).equals(bytesOf(got))) throw new Error(`${who} (${writer}): full read differs from the written data`);
  };
  // Warm-up (page cache, codec loading, workers), checked.
  await timed(readFloe, check('floe'));
  await timed(readZarrita, check('zarrita'));
  const floe: Sample[] = [];
  const zarrita: Sample[] = [];
  for (let p = 0; p < PAIRS; p++) {
    const checkThis = p === 0;
    if (p % 2 === 0) {
      floe.push(await timed(readFloe, checkThis ? check('floe') : undefined));
      zarrita.push(await timed(readZarrita, checkThis ? check('zarrita') : undefined));
    } else {
      zarrita.push(await timed(readZarrita, undefined));
      floe.push(await timed(readFloe, undefined));
    }
    const [f, z] = [floe[p]!, zarrita[p]!];
    console.error(`# ${writer} pair ${p + 1}: floe ${f.wallMs.toFixed(0)} ms (cpu ${f.cpuMs.toFixed(0)}), zarrita ${z.wallMs.toFixed(0)} ms (cpu ${z.cpuMs.toFixed(0)}), ratio wall ${(z.wallMs / f.wallMs).toFixed(2)} cpu ${(z.cpuMs / f.cpuMs).toFixed(2)}, load ${load()}`);
    pairRows.push(`| ${writer} | ${p + 1} | ${f.wallMs.toFixed(0)} | ${z.wallMs.toFixed(0)} | ${(z.wallMs / f.wallMs).toFixed(2)} | ${(f.cpuMs / 1000).toFixed(2)} | ${(z.cpuMs / 1000).toFixed(2)} | ${(z.cpuMs / f.cpuMs).toFixed(2)} | ${load()} |`);
  }
  const wallRatio = median(floe.map((f, i) => zarrita[i]!.wallMs / f.wallMs));
  const cpuRatio = median(floe.map((f, i) => zarrita[i]!.cpuMs / f.cpuMs));
  const medWall = (s: Sample[]): number => median(s.map((x) => x.wallMs));
  const medCpu = (s: Sample[]): number => median(s.map((x) => x.cpuMs));
  summary.push(
    `| ${writer} | ${mbps(medWall(floe)).toFixed(0)} | ${(medCpu(floe) / 1000).toFixed(2)} | ${mbps(medWall(zarrita)).toFixed(0)} | ${(medCpu(zarrita) / 1000).toFixed(2)} | ${wallRatio.toFixed(2)} | ${cpuRatio.toFixed(2)} |`,
  );

  if (!opts['skip-memory']) {
    for (const reader of ['floe', 'zarrita']) {
      const res = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--probe', reader, '--dir', STORE_DIR, '--name', writer], { encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`memory probe failed: ${res.stderr}`);
      const m = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number[]; rssBefore: number; peak: number; minorFaults: number };
      const inc = m.peak - m.rssBefore;
      memRows.push(`| ${writer} | ${reader} | ${(m.ms[0] ?? 0).toFixed(0)} | ${(m.peak / MiB).toFixed(0)} | ${(inc / MiB).toFixed(0)} | ${(inc / OUT_BYTES).toFixed(2)} | ${m.minorFaults} |`);
    }
  }
  if (opts.profile) profiles.push(...profileFloe(writer));
}

function profileFloe(writer: string): string[] {
  const profDir = path.join(STORE_DIR, `prof-${writer}`);
  rmSync(profDir, { recursive: true, force: true });
  const res = spawnSync(process.execPath, [
    '--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '250', '--import', 'tsx', SELF, '--probe', 'floe', '--dir', STORE_DIR, '--name', writer, '--repeat', '3',
  ], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`profile run failed: ${res.stderr}`);
  const run = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number[]; windowUs: [number, number] };
  const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(profDir, f));
  const isMain = (f: string): boolean => path.basename(f).split('.')[4] === '0';
  const lines: string[] = [];
  for (const [label, group] of [['main thread', files.filter(isMain)], ['worker threads', files.filter((f) => !isMain(f))]] as const) {
    if (group.length === 0) continue;
    const { totalMs, top } = topFunctions(group, 12, run.windowUs);
    lines.push(`#### ${writer}: ${label} (${totalMs.toFixed(0)} ms of samples during 3 full reads taking ${run.ms.map((x) => x.toFixed(0)).join(' + ')} ms)\n`);
    lines.push('| self ms | share | function | where |\n|---:|---:|---|---|');
    for (const f of top) lines.push(`| ${f.selfMs.toFixed(0)} | ${(f.share * 100).toFixed(1)}% | ${f.name} | ${f.where} |`);
    lines.push('');
  }
  return lines;
}

out.push(`Array ${ROWS} x ${COLS} float32 (${(OUT_BYTES / MiB).toFixed(0)} MiB) in ${CHUNK}x${CHUNK} chunks, Zarr v2, compressor ${JSON.stringify(COMPRESSOR)}; local directory store, warm page cache; ${os.cpus().length} cores, Node ${process.version}; load average (1/5/15 min) ${loadBefore} before, ${load()} after. ${PAIRS} alternating pairs; medians.\n`);
out.push('| chunks written by | chunks | stored MiB | ratio | write MB/s |');
out.push('|---|---:|---:|---:|---:|');
out.push(...layoutRows, '');
out.push('| chunks written by | Floe MB/s | Floe CPU s | zarrita MB/s | zarrita CPU s | Floe/zarrita wall (median of pairs) | Floe/zarrita CPU (median of pairs) |');
out.push('|---|---:|---:|---:|---:|---:|---:|');
out.push(...summary);
out.push('', 'Every pair (zarrita / Floe; load average after the pair):\n');
out.push('| chunks written by | pair | Floe ms | zarrita ms | wall ratio | Floe CPU s | zarrita CPU s | CPU ratio | load |');
out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
out.push(...pairRows);
if (memRows.length > 0) {
  out.push('', 'One full read in a fresh process after a warm-up read: peak RSS (VmHWM), its increase over the RSS before the read, minor page faults during the read.\n');
  out.push('| chunks written by | reader | read ms | peak RSS MiB | increase MiB | increase / output | minor faults |');
  out.push('|---|---|---:|---:|---:|---:|---:|');
  out.push(...memRows);
}
if (profiles.length > 0) out.push('', ...profiles);
console.log(out.join('\n'));
if (!opts.keep) rmSync(STORE_DIR, { recursive: true, force: true });
process.exit(0);
