// Before/after of the Zarr v2 full read (bench/zarr-v2-read.ts's stores) in ONE process: another
// checkout's Floe (its TypeScript sources), this checkout's Floe and zarrita read the same store in
// rotating order, so machine load falls on all three alike. Each Floe keeps its own decode workers.
//
//   npx tsx --expose-gc bench/zarr-v2-ab.ts --base DIR [--dir .bench-data/zarr-v2-read-1024]
//        [--name cblosc] [--rounds 5] [--no-zarrita]
//
// DIR: a checkout to compare with (`git worktree add DIR <commit>`, node_modules linked in). The
// store must exist (bench/zarr-v2-read.ts --keep). Reports per round wall ms and CPU ms
// (process.cpuUsage: all threads), medians, and the per-round CPU ratios base/this.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as zarr from 'zarrita';
import * as here from '../src/engine/api.ts';
import { median } from './support/probe-runner.ts';
import { FsReadStore } from './support/zarrita-fs-store.ts';

const { values: opts } = parseArgs({
  options: {
    base: { type: 'string' },
    dir: { type: 'string', default: '.bench-data/zarr-v2-read-1024' },
    name: { type: 'string', default: 'cblosc' },
    rounds: { type: 'string', default: '5' },
    'no-zarrita': { type: 'boolean', default: false },
  },
});
if (!opts.base) throw new Error('usage: bench/zarr-v2-ab.ts --base DIR [--dir D] [--name cblosc|floe] [--rounds 5]');
const dir = path.resolve(opts.dir ?? '');
const name = opts.name ?? 'cblosc';
const base = (await import(path.resolve(opts.base, 'src/engine/api.ts'))) as typeof here;

type Reader = [label: string, read: () => Promise<unknown>];
const a = await base.openArray(base.openStore(dir, { readOnly: true }), `/${name}`);
const b = await here.openArray(here.openStore(dir, { readOnly: true }), `/${name}`);
const readers: Reader[] = [['base', () => a.get()], ['this', () => b.get()]];
if (!opts['no-zarrita']) {
  const z = await zarr.open.v2(zarr.root(new FsReadStore(dir)).resolve(`/${name}`), { kind: 'array' });
  readers.push(['zarrita', () => zarr.get(z)]);
}
const gc = (globalThis as { gc?: () => void }).gc;
for (let warm = 0; warm < 2; warm++) for (const [, read] of readers) await read(); // workers, page cache

const samples = new Map<string, { wall: number[]; cpu: number[] }>(readers.map(([label]) => [label, { wall: [], cpu: [] }]));
console.log(`# ${name} in ${dir}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
for (let round = 0; round < Number(opts.rounds); round++) {
  const order = round % 2 === 0 ? readers : [...readers].reverse();
  const line: string[] = [];
  for (const [label, read] of order) {
    gc?.();
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    await read();
    const wall = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    const s = samples.get(label);
    s?.wall.push(wall);
    s?.cpu.push((cpu.user + cpu.system) / 1000);
    line.push(`${label} ${wall.toFixed(0)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)})`);
  }
  console.log(`round ${round + 1}: ${line.join(', ')}; load ${os.loadavg()[0]?.toFixed(1)}`);
}
for (const [label, s] of samples) console.log(`${label}: median wall ${median(s.wall).toFixed(0)} ms, CPU ${median(s.cpu).toFixed(0)} ms`);
const [baseCpu, thisCpu] = [samples.get('base')?.cpu ?? [], samples.get('this')?.cpu ?? []];
const ratios = baseCpu.map((c, i) => c / (thisCpu[i] ?? NaN));
console.log(`CPU base/this per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(2)}`);
process.exit(0);
