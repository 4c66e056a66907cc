// History at scale (issue 19, stage 1): Floe and the reference Icechunk (npm @earthmover/icechunk,
// WASM build, in child processes over the same FsStorage) side by side in one run.
//
//   npx tsx bench/history.ts [--sizes 0,1000,5000,10000] [--commits 12] [--rounds 3]
//        [--ancestry 5000] [--deep 100000] [--deep-reference] [--profile] [--dir D]
//
// 1. Full ancestry walk of --ancestry snapshots: warm (repository open, median of walks) and cold
//    (open + first walk), interleaved rounds, ratio = reference / Floe.
// 2. Commit latency on top of histories of --sizes snapshots: --commits commits of one small
//    chunk each per side per round (the first of each batch is a warm-up), sides and sizes
//    interleaved over --rounds rounds; per size the median; a least-squares line gives the
//    growth per snapshot of history. --profile: a CPU profile of Floe's commits at the largest size.
// 3. A --deep-snapshot repository: open, 1,000-deep ancestry, log of the last 100, an as-of
//    session 1,000 commits back, a commit on top; peak RSS. --deep-reference also times the
//    reference's (whole) ancestry there.
// Histories are synthetic (bench/support/synthetic-history.ts): both sides open the same files.
// The machine's load average is printed with every part: the figures are only as good as it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { Repository, Storage } from '../src/txn/index.ts';
import { topFunctions } from './support/cpuprofile-top.ts';
import { median } from './support/probe-runner.ts';
import { commitCostBreakdown } from './support/commit-cost.ts';
import { chunkBytes, writeSyntheticHistory } from './support/synthetic-history.ts';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,1000,5000,10000' },
    commits: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '3' },
    ancestry: { type: 'string', default: '5000' },
    deep: { type: 'string', default: '100000' },
    'deep-reference': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    skip: { type: 'string', default: '' },
    dir: { type: 'string' },
    child: { type: 'string' },
    reps: { type: 'string', default: '5' },
  },
});

const SELF = fileURLToPath(import.meta.url);
const now = () => process.hrtime.bigint();
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
/** Wall and CPU time (this process, all threads) of one awaited step, in ms. */
interface Timing {
  wall: number;
  cpu: number;
}
async function timed(run: () => Promise<unknown>): Promise<Timing> {
  const cpu0 = process.cpuUsage();
  const t0 = now();
  await run();
  const wall = ms(t0);
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}
const load = () => os.loadavg()[0]!.toFixed(1);
const fsStorage = (dir: string) => new FsStorage({ root: dir, durable: false });
const skip = new Set(opts.skip.split(',').filter(Boolean));

// ---- the reference, in a child ---------------------------------------------------------------
async function referenceChild(kind: string, dir: string): Promise<unknown> {
  const { Repository: RefRepository, Storage: RefStorage } = await import('@earthmover/icechunk');
  const { customBackend } = await import('../src/testing/adapters/icechunk-storage.ts');
  const open = () => RefRepository.open(RefStorage.newCustom(customBackend(fsStorage(dir)) as never));
  if (kind === 'commit') {
    const repo = await open();
    const times: Timing[] = [];
    for (let i = 0; i < Number(opts.commits); i++) {
      const session = await repo.writableSession('main');
      await session.store.set(`a/c/${i % 16}`, Buffer.from(chunkBytes(i)));
      times.push(await timed(() => session.commit(`c${i}`)));
    }
    return { times };
  }
  // ancestry: cold = open + first walk; warm = later walks on the open repository
  let length = 0;
  let repo: Awaited<ReturnType<typeof open>> | undefined;
  const cold = await timed(async () => {
    repo = await open();
    length = (await repo.ancestry({ branch: 'main' })).length;
  });
  const warm: Timing[] = [];
  for (let r = 0; r < Number(opts.reps); r++) {
    warm.push(await timed(async () => {
      if ((await repo!.ancestry({ branch: 'main' })).length !== length) throw new Error('reference ancestry changed length');
    }));
  }
  return { cold, warm, length };
}

interface AncestryTimes {
  cold: Timing;
  warm: Timing[];
  length: number;
}

function runChild(kind: string, dir: string, extra: string[] = []): Record<string, unknown> {
  const args = ['--import', 'tsx', '--no-warnings', SELF, '--child', kind, '--dir', dir, '--commits', opts.commits, '--reps', opts.reps, ...extra];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 1 << 26 });
  const line = result.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (result.status !== 0 || !line) throw new Error(`reference child failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(line) as Record<string, unknown>;
}

// ---- Floe ------------------------------------------------------------------------------------
const openFloe = (dir: string) => Repository.open(Storage.fromObjectStorage(fsStorage(dir)));

async function floeAncestry(dir: string, reps: number): Promise<AncestryTimes> {
  let length = 0;
  let repo: Repository | undefined;
  const cold = await timed(async () => {
    repo = await openFloe(dir);
    for await (const _ of repo.ancestry({ branch: 'main' })) length++;
  });
  const warm: Timing[] = [];
  for (let r = 0; r < reps; r++) {
    warm.push(await timed(async () => {
      const all = [];
      for await (const s of repo!.ancestry({ branch: 'main' })) all.push(s);
      if (all.length !== length) throw new Error('Floe ancestry changed length');
    }));
  }
  return { cold, warm, length };
}

async function floeCommits(dir: string, commits: number): Promise<Timing[]> {
  const repo = await openFloe(dir);
  const times: Timing[] = [];
  for (let i = 0; i < commits; i++) {
    const session = await repo.writableSession('main');
    await session.store.set(`a/c/${i % 16}`, chunkBytes(i));
    times.push(await timed(() => session.commit(`c${i}`)));
  }
  return times;
}

async function profiled<T>(run: () => Promise<T>): Promise<{ value: T; top: string }> {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  const value = await run();
  const { profile } = await inspector.post('Profiler.stop');
  inspector.disconnect();
  const file = path.join(os.tmpdir(), `floe-history-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const { totalMs, top } = topFunctions([file], 14);
  rmSync(file, { force: true });
  return { value, top: [`  ${totalMs.toFixed(0)} ms of samples`, ...top.map((f) => `  ${f.selfMs.toFixed(1).padStart(7)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name} ${f.where}`)].join('\n') };
}

// ---- parts -----------------------------------------------------------------------------------
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

async function ancestryPart(root: string): Promise<void> {
  const n = Number(opts.ancestry);
  const floeDir = path.join(root, 'ancestry-floe');
  const refDir = path.join(root, 'ancestry-ref');
  await writeSyntheticHistory(fsStorage(floeDir), n);
  cpSync(floeDir, refDir, { recursive: true });
  const loadBefore = load();
  const floe = { cold: [] as Timing[], warm: [] as Timing[] };
  const ref = { cold: [] as Timing[], warm: [] as Timing[] };
  let length = 0;
  for (let round = 0; round < Number(opts.rounds); round++) {
    const sides = round % 2 ? (['ref', 'floe'] as const) : (['floe', 'ref'] as const);
    for (const side of sides) {
      const got = side === 'floe' ? await floeAncestry(floeDir, Number(opts.reps)) : (runChild('ancestry', refDir) as unknown as AncestryTimes);
      const into = side === 'floe' ? floe : ref;
      into.cold.push(got.cold);
      into.warm.push(...got.warm);
      if (length && got.length !== length) throw new Error(`ancestry lengths differ: ${got.length} vs ${length}`);
      length = got.length;
    }
  }
  console.log(`\n## Full ancestry walk, ${length.toLocaleString('en')} snapshots (load ${loadBefore} -> ${load()})\n`);
  console.log('| | Floe wall | reference wall | ref / Floe | Floe CPU | reference CPU | ref / Floe |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const row = (name: string, a: Timing[], b: Timing[]) => {
    const [aw, bw, ac, bc] = [median(a.map((t) => t.wall)), median(b.map((t) => t.wall)), median(a.map((t) => t.cpu)), median(b.map((t) => t.cpu))];
    console.log(`| ${name} | ${fmt(aw)} ms | ${fmt(bw)} ms | ${(bw / aw).toFixed(1)}x | ${fmt(ac)} ms | ${fmt(bc)} ms | ${(bc / ac).toFixed(1)}x |`);
  };
  row(`warm walk (median of ${floe.warm.length})`, floe.warm, ref.warm);
  row(`open + first walk (median of ${floe.cold.length})`, floe.cold, ref.cold);
}

/** Least-squares slope and intercept of y over x. */
function fitLine(xs: number[], ys: number[]): { slope: number; intercept: number } {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  const slope = den === 0 ? 0 : num / den;
  return { slope, intercept: my - slope * mx };
}

async function commitPart(root: string): Promise<void> {
  const sizes = opts.sizes.split(',').map(Number);
  const commits = Number(opts.commits);
  const dirs = new Map<number, { floe: string; ref: string }>();
  for (const size of sizes) {
    const floe = path.join(root, `commit-${size}-floe`);
    const ref = path.join(root, `commit-${size}-ref`);
    await writeSyntheticHistory(fsStorage(floe), size);
    cpSync(floe, ref, { recursive: true });
    dirs.set(size, { floe, ref });
  }
  const loadBefore = load();
  const times = new Map(sizes.map((s) => [s, { floe: [] as Timing[], ref: [] as Timing[] }]));
  for (let round = 0; round < Number(opts.rounds); round++) {
    const order = round % 2 ? [...sizes].reverse() : sizes;
    for (const [k, size] of order.entries()) {
      const sides = (round + k) % 2 ? (['ref', 'floe'] as const) : (['floe', 'ref'] as const);
      for (const side of sides) {
        const dir = dirs.get(size)![side];
        const got = side === 'floe' ? await floeCommits(dir, commits) : (runChild('commit', dir) as { times: Timing[] }).times;
        times.get(size)![side].push(...got.slice(1)); // the first of a batch warms up
      }
    }
  }
  console.log(`\n## Commit latency by history size: one 16-byte chunk per commit (load ${loadBefore} -> ${load()})\n`);
  console.log(`${Number(opts.rounds)} rounds x ${commits - 1} timed commits per side and size, interleaved; medians.\n`);
  console.log('| history (snapshots) | Floe wall | reference wall | ratio ref/Floe | Floe CPU | reference CPU | ratio ref/Floe |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  const pick = (xs: Timing[], k: keyof Timing) => median(xs.map((x) => x[k]));
  const med = sizes.map((size) => {
    const t = times.get(size)!;
    return { size, floe: pick(t.floe, 'wall'), ref: pick(t.ref, 'wall'), floeCpu: pick(t.floe, 'cpu'), refCpu: pick(t.ref, 'cpu') };
  });
  for (const m of med) {
    console.log(`| ${m.size.toLocaleString('en')} | ${fmt(m.floe)} ms | ${fmt(m.ref)} ms | ${(m.ref / m.floe).toFixed(2)} | ${fmt(m.floeCpu)} ms | ${fmt(m.refCpu)} ms | ${(m.refCpu / m.floeCpu).toFixed(2)} |`);
  }
  const growth = (k: 'floe' | 'ref' | 'floeCpu' | 'refCpu') => fitLine(sizes, med.map((m) => m[k]));
  const us = (line: { slope: number }) => (line.slope * 1000).toFixed(2);
  console.log(`\nGrowth per snapshot of history (least squares over the medians): wall Floe ${us(growth('floe'))} µs, reference ${us(growth('ref'))} µs; CPU Floe ${us(growth('floeCpu'))} µs, reference ${us(growth('refCpu'))} µs.`);
  const largest = Math.max(...sizes);
  // From a history whose ops log is already full (1,000 entries at 1,000 snapshots), so that
  // the difference is the snapshots' alone.
  const base = [...sizes].sort((a, b) => a - b).find((s) => s >= 1000 && s < largest) ?? Math.min(...sizes);
  if (largest > base) {
    const scratch = () => fsStorage(mkdtempSync(path.join(root, 'scratch-')));
    const steps = await commitCostBreakdown(fsStorage(dirs.get(largest)!.floe), fsStorage(dirs.get(base)!.floe), largest - base, scratch);
    console.log(`\nFloe's whole-history steps of a commit, per snapshot (${largest.toLocaleString('en')} vs ${base.toLocaleString('en')} snapshots, each step alone, min of 14 interleaved rounds; load ${load()}):\n`);
    console.log('| step | CPU µs / snapshot | wall µs / snapshot |');
    console.log('|---|---:|---:|');
    for (const s of steps) console.log(`| ${s.step} | ${s.cpuPerSnapshot.toFixed(3)} | ${s.wallPerSnapshot.toFixed(3)} |`);
    const sum = (k: 'cpuPerSnapshot' | 'wallPerSnapshot') => steps.reduce((a, s) => a + s[k], 0).toFixed(3);
    console.log(`| all | ${sum('cpuPerSnapshot')} | ${sum('wallPerSnapshot')} |`);
  }
  if (opts.profile) {
    const { value, top } = await profiled(() => floeCommits(dirs.get(largest)!.floe, commits));
    console.log(`\nFloe, ${commits} commits on ${largest.toLocaleString('en')} snapshots (median ${fmt(pick(value.slice(1), 'wall'))} ms wall, ${fmt(pick(value.slice(1), 'cpu'))} ms CPU), top self time:\n${top}`);
  }
}

async function deepPart(root: string): Promise<void> {
  const n = Number(opts.deep);
  const dir = path.join(root, 'deep');
  let t0 = now();
  const synthetic = await writeSyntheticHistory(fsStorage(dir), n, { materialize: [1000] });
  const buildMs = ms(t0);
  const loadBefore = load();
  const rows: [string, number][] = [];
  t0 = now();
  const repo = await openFloe(dir);
  rows.push(['open (read + decode the repo info)', ms(t0)]);
  const walk = async (limit: number) => {
    const t = now();
    let seen = 0;
    for await (const _ of repo.ancestry({ branch: 'main' })) if (++seen >= limit) break;
    if (seen !== limit) throw new Error(`ancestry ended after ${seen}`);
    return ms(t);
  };
  rows.push(['ancestry, first 1,000 (first call)', await walk(1000)]);
  const again: number[] = [];
  for (let r = 0; r < 5; r++) again.push(await walk(1000));
  rows.push(['ancestry, first 1,000 (median of 5 more)', median(again)]);
  rows.push(['log of the last 100', await walk(100)]);
  const target = synthetic.materialized.get(1000)!;
  t0 = now();
  const session = await repo.readonlySession({ branch: 'main', asOf: new Date(target.flushedAt / 1000) });
  rows.push(['as-of session 1,000 commits back', ms(t0)]);
  if (session.snapshotId !== target.id) throw new Error(`as-of found ${session.snapshotId}, expected ${target.id}`);
  const commitTimes = await floeCommits(dir, 4);
  rows.push(['commit on top (median of 3 after one warm-up)', median(commitTimes.slice(1).map((t) => t.wall))]);
  rows.push(['  the same, CPU time', median(commitTimes.slice(1).map((t) => t.cpu))]);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`\n## ${n.toLocaleString('en')}-snapshot repository (synthetic, written in ${fmt(buildMs)} ms; load ${loadBefore} -> ${load()})\n`);
  console.log('| Floe | time |');
  console.log('|---|---:|');
  for (const [name, t] of rows) console.log(`| ${name} | ${fmt(t)} ms |`);
  console.log(`\nPeak RSS of this process so far: ${rssMb.toFixed(0)} MiB.`);
  if (opts['deep-reference']) {
    const got = runChild('ancestry', dir, ['--reps', '1']) as unknown as AncestryTimes;
    const again = got.warm.map((t) => t.wall);
    console.log(`Reference on the same files: open + full ancestry (${got.length.toLocaleString('en')}) ${fmt(got.cold.wall)} ms, again ${fmt(median(again))} ms (its ancestry returns the whole list).`);
  }
}

async function main() {
  if (opts.child) {
    process.stdout.write(JSON.stringify(await referenceChild(opts.child, opts.dir!)) + '\n');
    process.exit(0);
  }
  const root = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'floe-bench-history-'));
  mkdirSync(root, { recursive: true });
  try {
    console.log(`# bench/history.ts — ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    if (!skip.has('ancestry')) await ancestryPart(root);
    if (!skip.has('commit')) await commitPart(root);
    if (!skip.has('deep')) await deepPart(root);
    console.log(`\nload average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    if (!opts.dir) rmSync(root, { recursive: true, force: true });
  }
}

await main();
