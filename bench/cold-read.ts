// Cold start (issue 19 stage 2): the FIRST full read of a fresh process, Floe vs zarrita, side
// by side in alternating fresh processes (bench/support/cold-read-probe.ts), so the reader pays
// whatever start-up it has (codec loading, decode workers). Each pair also runs a `touch` probe:
// a fresh process allocating a new output of the same size and writing every page, the page-fault
// cost every new-output read pays.
//
//   npx tsx bench/cold-read.ts [--size-mb 1024] [--layouts uncompressed,zstd,sharded] [--pairs 7]
//        [--floe floe,floe-dist] [--dir D] [--keep] [--reuse]
//
// --floe: which Floe to run: `floe` (sources under tsx, as the other benches), `floe-dist` (the
// built package: `npm run build` first), or both. Prints markdown: per reader the median wall and
// CPU ms (user + system of the whole process during the read: on a shared machine wall time
// swings with the load, CPU time far less), the largest peak-RSS increase over the output size,
// minor page faults; then every pair's zarrita/Floe ratio, wall and CPU; load averages.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { arrayShape, load1, median, pickLayouts, writeLayouts } from './support/read-data.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    layouts: { type: 'string', default: 'uncompressed,zstd,sharded' },
    pairs: { type: 'string', default: '7' },
    floe: { type: 'string', default: 'floe' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});

const SIZE_MB = Number(opts['size-mb']);
const PAIRS = Math.max(1, Number(opts.pairs));
const LAYOUTS = pickLayouts(opts.layouts!);
const FLOES = opts.floe!.split(',').map((s) => s.trim());
const STORE_DIR = path.resolve(opts.dir ?? `.bench-data/zarr-read-${SIZE_MB}`);
const PROBE = new URL('./support/cold-read-probe.ts', import.meta.url).pathname;
const MiB = 2 ** 20;
const { outBytes: OUT_BYTES } = arrayShape(SIZE_MB);

interface Probe {
  ms: number;
  cpuMs: number;
  faults: number;
  outBytes: number;
  rssBefore: number;
  peak: number;
}

function probe(reader: string, layout: string): Probe {
  const res = spawnSync(process.execPath, ['--import', 'tsx', PROBE, reader, STORE_DIR, layout], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${reader} probe failed: ${res.stderr}`);
  const p = JSON.parse(res.stdout.trim().split('\n').pop()!) as Probe;
  if (p.outBytes !== OUT_BYTES) throw new Error(`${reader} read ${p.outBytes} bytes, expected ${OUT_BYTES}`);
  return p;
}

console.error(`# ${OUT_BYTES / MiB} MiB array in ${STORE_DIR}; ${os.cpus().length} cores, Node ${process.version}; load ${load1()}`);
await writeLayouts(STORE_DIR, SIZE_MB, LAYOUTS, opts.reuse!);

const out: string[] = [];
out.push(`First full read of a fresh process, ${OUT_BYTES / MiB} MiB float32 output, ${PAIRS} alternating pairs per layout; ${os.cpus().length} cores, Node ${process.version}.`);
out.push('CPU = user + system ms of the whole process (all threads) during the read. Peak/out = (peak RSS during the read − RSS before it) / output bytes, the largest over the runs.\n');
out.push('| layout | reader | wall ms (median) | CPU ms (median) | peak/out (max) | minor faults (median) |');
out.push('|---|---|---:|---:|---:|---:|');
const pairLines: string[] = [];

for (const layout of LAYOUTS) {
  const readers = ['zarrita', ...FLOES];
  const runs = new Map<string, Probe[]>(readers.map((r) => [r, []]));
  const touch: Probe[] = [];
  const loadBefore = load1();
  for (let pair = 0; pair < PAIRS; pair++) {
    const order = pair % 2 === 0 ? readers : [...readers].reverse();
    for (const reader of order) runs.get(reader)!.push(probe(reader, layout.name));
    touch.push(probe('touch', layout.name));
    console.error(`# ${layout.name} pair ${pair + 1}: ${order.map((r) => `${r} ${runs.get(r)!.at(-1)!.ms.toFixed(0)} ms`).join(', ')} (load ${load1()})`);
  }
  for (const reader of [...readers, 'touch (new output, every page written)']) {
    const ps = reader.startsWith('touch') ? touch : runs.get(reader)!;
    const worst = Math.max(...ps.map((p) => (p.peak - p.rssBefore) / p.outBytes));
    out.push(`| ${layout.name} | ${reader} | ${median(ps.map((p) => p.ms)).toFixed(0)} | ${median(ps.map((p) => p.cpuMs)).toFixed(0)} | ${worst.toFixed(3)} | ${median(ps.map((p) => p.faults)).toFixed(0)} |`);
  }
  const zarrita = runs.get('zarrita')!;
  for (const floe of FLOES) {
    const mine = runs.get(floe)!;
    const wall = zarrita.map((z, i) => z.ms / mine[i]!.ms);
    const cpu = zarrita.map((z, i) => z.cpuMs / mine[i]!.cpuMs);
    pairLines.push(`- ${layout.name}, zarrita/${floe}: wall median ${median(wall).toFixed(2)}x, pairs ${wall.map((r) => r.toFixed(2)).join(' ')}; CPU median ${median(cpu).toFixed(2)}x, pairs ${cpu.map((r) => r.toFixed(2)).join(' ')} (load ${loadBefore} -> ${load1()})`);
  }
}
out.push('');
out.push(...pairLines);
console.log(out.join('\n'));
if (!opts.keep) rmSync(STORE_DIR, { recursive: true, force: true });
