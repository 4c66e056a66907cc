// Cutouts over compressed chunks (issue 19 stage 2): Floe vs the minimal reader (and zarrita),
// rounds alternating between readers, each round a fresh seeded list of random 64x64 windows and,
// for Floe, a fresh store handle (so its decoded-chunk cache starts empty: no round profits from
// the one before). Also a burst: windows over the same few chunks read concurrently, where the
// cache and request coalescing decode each chunk once.
//
//   npx tsx bench/cutouts.ts [--size-mb 1024] [--layouts zstd,sharded] [--windows 1000]
//        [--rounds 5] [--zarrita] [--burst 256] [--dir D] [--keep] [--reuse]
//
// Reports per layout and reader the median MB/s (10^6 bytes of output per second) and CPU ms of a
// round (user + system, whole process), every round's Floe/minimal ratio, the cache's counters,
// and load averages. Every window is checked against the stored data outside the timed part.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as zarr from 'zarrita';
import { openStore } from '../src/engine/api.ts';
import { ZarrArray } from '../src/engine/array.ts';
import { slice } from '../src/engine/selection.ts';
import { MinimalReader } from './support/minimal-reader.ts';
import { arrayShape, cpuMsSince, generate, load1, median, minimalLayout, pickLayouts, rng, writeLayouts } from './support/read-data.ts';
import { FsReadStore } from './support/zarrita-fs-store.ts';

const { values: opts } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    layouts: { type: 'string', default: 'zstd,sharded' },
    windows: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    burst: { type: 'string', default: '256' },
    zarrita: { type: 'boolean', default: false },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});

const SIZE_MB = Number(opts['size-mb']);
const WINDOWS = Number(opts.windows);
const ROUNDS = Math.max(1, Number(opts.rounds));
const BURST = Number(opts.burst);
const LAYOUTS = pickLayouts(opts.layouts!);
const STORE_DIR = path.resolve(opts.dir ?? `.bench-data/zarr-read-${SIZE_MB}`);
const { rows: ROWS, cols: COLS } = arrayShape(SIZE_MB);
const WIN = 64;
const WINDOW_BYTES = WIN * WIN * 4;

console.error(`# ${ROWS}x${COLS} float32 in ${STORE_DIR}; ${os.cpus().length} cores, Node ${process.version}; load ${load1()}`);
const data = generate(ROWS, COLS);
await writeLayouts(STORE_DIR, SIZE_MB, LAYOUTS, opts.reuse!, data);

type Window = readonly [number, number];
type Read = (r: number, c: number) => Promise<Float32Array> | Float32Array;

function windowsFor(seed: number, n: number): Window[] {
  const next = rng(seed);
  return Array.from({ length: n }, () => [Math.floor(next() * (ROWS - WIN + 1)), Math.floor(next() * (COLS - WIN + 1))] as const);
}

function check(got: Float32Array, r: number, c: number, who: string): void {
  for (let i = 0; i < WIN; i++) {
    const want = data.subarray((r + i) * COLS + c, (r + i) * COLS + c + WIN);
    for (let j = 0; j < WIN; j++) if (!Object.is(got[i * WIN + j], want[j])) throw new Error(`${who}: wrong value in window (${r}, ${c})`);
  }
}

/** One round: every window read one at a time; wall and CPU ms of the reads only. */
async function round(list: readonly Window[], read: Read, who: string): Promise<{ ms: number; cpuMs: number }> {
  let ms = 0;
  let cpuMs = 0;
  for (const [r, c] of list) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    const got = await read(r, c);
    ms += performance.now() - t;
    cpuMs += cpuMsSince(cpu);
    check(got, r, c, who);
  }
  return { ms, cpuMs };
}

const out: string[] = [];
out.push(`${WINDOWS} random ${WIN}x${WIN} float32 windows per round, read one at a time, ${ROUNDS} rounds alternating readers (each round new windows; Floe a new store handle, so an empty decoded-chunk cache); array ${ROWS}x${COLS}; ${os.cpus().length} cores, Node ${process.version}.\n`);
out.push('| layout | reader | MB/s (median) | CPU ms per round (median) | Floe/minimal per round, wall | Floe/minimal per round, CPU |');
out.push('|---|---|---:|---:|---|---|');
const notes: string[] = [];

for (const layout of LAYOUTS) {
  const minimal = new MinimalReader(minimalLayout(STORE_DIR, SIZE_MB, layout), 0);
  const winOut = new Float32Array(WIN * WIN);
  const zarrArr = await zarr.open(zarr.root(new FsReadStore(STORE_DIR)).resolve(`/${layout.name}`), { kind: 'array' });
  const readers: Record<string, () => Promise<Read>> = {
    floe: async () => {
      const arr = await ZarrArray.open(openStore(STORE_DIR, { readOnly: true, decodedChunkBytes: 128 * 2 ** 20 }), `/${layout.name}`);
      return async (r, c) => (await arr.get([slice(r, r + WIN), slice(c, c + WIN)])).data as Float32Array;
    },
    minimal: async () => (r, c) => (minimal.readWindow(r, c, WIN, WIN, winOut), winOut),
    ...(opts.zarrita ? { zarrita: async () => async (r: number, c: number) => (await zarr.get(zarrArr, [zarr.slice(r, r + WIN), zarr.slice(c, c + WIN)])).data as Float32Array } : {}),
  };
  const names = Object.keys(readers);
  const results = new Map<string, { ms: number; cpuMs: number }[]>(names.map((n) => [n, []]));
  const loadBefore = load1();
  for (let k = 0; k < ROUNDS; k++) {
    const list = windowsFor(1000 + k, WINDOWS);
    const order = k % 2 === 0 ? names : [...names].reverse();
    for (const name of order) results.get(name)!.push(await round(list, await readers[name]!(), name));
    console.error(`# ${layout.name} round ${k + 1}: ${order.map((n) => `${n} ${results.get(n)!.at(-1)!.ms.toFixed(0)} ms`).join(', ')} (load ${load1()})`);
  }
  const floe = results.get('floe')!;
  const mini = results.get('minimal')!;
  for (const name of names) {
    const rs = results.get(name)!;
    const mbps = (WINDOWS * WINDOW_BYTES) / 1e6 / (median(rs.map((x) => x.ms)) / 1000);
    const ratios = name === 'floe'
      ? ` ${floe.map((f, i) => (mini[i]!.ms / f.ms).toFixed(2)).join(' ')} | ${floe.map((f, i) => (mini[i]!.cpuMs / f.cpuMs).toFixed(2)).join(' ')} |`
      : ' | |';
    out.push(`| ${layout.name} | ${name} | ${mbps.toFixed(1)} | ${median(rs.map((x) => x.cpuMs)).toFixed(0)} |${ratios}`);
  }
  const wallRatio = median(floe.map((f, i) => mini[i]!.ms / f.ms));
  const cpuRatio = median(floe.map((f, i) => mini[i]!.cpuMs / f.cpuMs));
  notes.push(`- ${layout.name}: Floe/minimal median ${wallRatio.toFixed(2)} (wall), ${cpuRatio.toFixed(2)} (CPU); load ${loadBefore} -> ${load1()}`);

  // Burst: BURST windows inside one 2x2 block of chunks (or inner chunks), all at once.
  const [uh, uw] = layout.innerShape ?? layout.chunkShape;
  const next = rng(77);
  const burst = Array.from({ length: BURST }, () => [Math.floor(next() * (2 * uh - WIN)), Math.floor(next() * (2 * uw - WIN))] as const);
  const store = openStore(STORE_DIR, { readOnly: true, decodedChunkBytes: 128 * 2 ** 20 });
  const arr = await ZarrArray.open(store, `/${layout.name}`);
  const cpu = process.cpuUsage();
  const t = performance.now();
  const got = await Promise.all(burst.map(([r, c]) => arr.get([slice(r, r + WIN), slice(c, c + WIN)])));
  const ms = performance.now() - t;
  const cpuMs = cpuMsSince(cpu);
  got.forEach((g, i) => check(g.data as Float32Array, burst[i]![0], burst[i]![1], 'floe burst'));
  const stats = store.decodedChunks!.cache.stats();
  const minCpu = process.cpuUsage();
  const minT = performance.now();
  for (const [r, c] of burst) minimal.readWindow(r, c, WIN, WIN, winOut);
  notes.push(
    `- ${layout.name} burst: ${BURST} concurrent windows over 2x2 ${uh}x${uw} chunks: Floe ${ms.toFixed(0)} ms (CPU ${cpuMs.toFixed(0)}), ${stats.loads} chunk decodes, ${stats.joined} joined a decode in flight, ${stats.hits} cache hits; ` +
      `minimal (one at a time, a decode per window) ${(performance.now() - minT).toFixed(0)} ms (CPU ${cpuMsSince(minCpu).toFixed(0)})`,
  );
}
out.push('');
out.push(...notes);
console.log(out.join('\n'));
if (!opts.keep) rmSync(STORE_DIR, { recursive: true, force: true });
process.exit(0);
