// A/B of two checkouts of Floe on the benchmarked paths — full read (plain store), session read,
// commit, query, small-object storage — as interleaved pairs of fresh processes, each side running its own built
// dist/. Run: npx tsx bench/ab.ts --a DIR --b DIR [--pairs 9] [--chunks 20000] [--clock wall|cpu] [--gc]
// [--only read,session-read,commit,query,storage] (--only: just those workloads, by probe task name).
// (--gc: a full GC just before each timed window, so a process's first major GC does not fall in or
// out of the window by what was allocated before it.)
// (--clock cpu times user+system CPU of each probe process instead of wall time: on a loaded machine
// wall-time pairs scatter 0.4-3x, CPU time far less; it does not see time spent waiting on I/O.)
// (each DIR a checkout with `npm run build` done, e.g. `git worktree add DIR <commit>`, node_modules
// linked in). Prints per-workload medians, the median of per-pair ratios b/a (< 1: b faster) and
// their interquartile range.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median, probeMs } from './support/probe-runner.ts';

const { values } = parseArgs({ options: { a: { type: 'string' }, b: { type: 'string' }, pairs: { type: 'string', default: '9' }, chunks: { type: 'string', default: '20000' }, clock: { type: 'string', default: 'wall' }, gc: { type: 'boolean', default: false }, only: { type: 'string' } } });
if (values.clock !== 'wall' && values.clock !== 'cpu') throw new Error('--clock is wall or cpu');
process.env.FLOE_BENCH_CLOCK = values.clock;
if (values.gc) process.env.FLOE_BENCH_GC = '1';
const nodeArgs = values.gc ? ['--expose-gc'] : [];
if (!values.a || !values.b) throw new Error('usage: bench/ab.ts --a DIR --b DIR [--pairs 9]');
const PAIRS = Math.max(9, Number(values.pairs));
const sides = { a: path.resolve(values.a, 'dist/index.js'), b: path.resolve(values.b, 'dist/index.js') };

const work = mkdtempSync(path.join(tmpdir(), 'floe-bench-ab-'));
try {
  // Data written once by side a (both read the same bytes: the formats are the same).
  const plain = path.join(work, 'plain.zarr');
  const repo = path.join(work, 'repo.icechunk');
  probeMs(sides.a, 'write', plain);
  probeMs(sides.a, 'repo', repo);
  const workloads: { name: string; task: string; dir: (side: string, pair: number) => string; extra: string[]; fresh: boolean }[] = [
    { name: 'full read, 256 MiB zstd, plain store', task: 'read', dir: () => plain, extra: [], fresh: false },
    { name: 'session read, 32 MiB zstd', task: 'session-read', dir: () => repo, extra: [], fresh: false },
    { name: `commit of ${values.chunks} chunks`, task: 'commit', dir: (s, p) => path.join(work, `commit-${s}-${p}`), extra: [values.chunks!], fresh: true },
    { name: '20 label queries on a session', task: 'query', dir: () => repo, extra: [], fresh: false },
    { name: 'fs storage: 1,000 small puts + gets', task: 'storage', dir: (s, p) => path.join(work, `storage-${s}-${p}`), extra: [], fresh: true },
  ];
  const only = values.only?.split(',');
  const load = loadavg()[0]!;
  console.log('| workload | a ms | b ms | median ratio b/a | IQR | pairs |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const w of workloads) {
    if (only && !only.includes(w.task)) continue;
    const times = { a: [] as number[], b: [] as number[] };
    const ratios: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const got: Record<string, number> = {};
      for (const side of pair % 2 ? (['b', 'a'] as const) : (['a', 'b'] as const)) {
        const dir = w.dir(side, pair);
        got[side] = probeMs(sides[side], w.task, dir, w.extra, nodeArgs);
        if (w.fresh) rmSync(dir, { recursive: true, force: true });
      }
      times.a.push(got.a!);
      times.b.push(got.b!);
      ratios.push(got.b! / got.a!);
    }
    const [q1, q3] = quartiles(ratios);
    console.log(`| ${w.name} | ${median(times.a).toFixed(0)} | ${median(times.b).toFixed(0)} | ${median(ratios).toFixed(3)} | ${q1.toFixed(2)}–${q3.toFixed(2)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} |`);
  }
  console.log(`(${PAIRS} interleaved pairs, ${values.clock} time${values.gc ? ', GC before each window' : ''}; load average ${load.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** First and third quartiles (medians of the lower and upper halves, the middle value left out). */
function quartiles(xs: readonly number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  const half = s.length >> 1;
  return [median(s.slice(0, half)), median(s.slice(s.length - half))];
}
