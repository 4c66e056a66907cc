// Scale run (issue 19, item 5): history operations on repositories of 10^3 .. 10^5 snapshots.
//
//   npx tsx bench/scale-history.ts [--sizes 1000,10000,100000] [--depth 1000] [--commits 4]
//
// Per size, in a fresh child process: a synthetic history of that many snapshots on the local
// filesystem (bench/support/synthetic-history.ts: written at the format level, one real commit on
// top), then, each timed with its own peak RSS (VmHWM reset before it):
//   open         Repository.open (reads and decodes the repo info, builds the history index)
//   ancestry     the first --depth entries of main's ancestry (first call; then the median of 9)
//   as-of        a read-only session on main as of the snapshot --depth commits back (median of 9)
//   log          the last 100 entries of main's ancestry
//   commit       a commit of one small chunk on top (median of --commits after one warm-up)
// The parent prints the figures, the load average of each size, and how each cost grows with size.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { Repository, Storage } from '../src/txn/index.ts';
import { median } from './support/probe-runner.ts';
import { fmtMs, growth, loadAverage, measured, mib, printTable, runChild, type StepFigure } from './support/scale-run.ts';
import { chunkBytes, writeSyntheticHistory } from './support/synthetic-history.ts';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    depth: { type: 'string', default: '1000' },
    commits: { type: 'string', default: '4' },
    child: { type: 'string' },
  },
});
const SELF = fileURLToPath(import.meta.url);
const DEPTH = Number(opts.depth);
const STEPS = ['open', 'ancestry (first call)', 'ancestry (median of 9 more)', 'as-of session (median of 9)', 'log of the last 100 (median of 9)', 'commit on top'] as const;
type Step = (typeof STEPS)[number];

interface SizeResult {
  size: number;
  buildMs: number;
  steps: Record<Step, StepFigure>;
  loadBefore: string;
  loadAfter: string;
}

const fsStorage = (dir: string) => new FsStorage({ root: dir, durable: false });

async function walk(repo: Repository, limit: number): Promise<void> {
  let seen = 0;
  for await (const _ of repo.ancestry({ branch: 'main' })) if (++seen >= limit) break;
  if (seen !== limit) throw new Error(`ancestry ended after ${seen} of ${limit}`);
}

/** The median figure (by time) of several runs of a step. */
async function medianOf(runs: number, step: () => Promise<unknown>): Promise<StepFigure> {
  const figures: StepFigure[] = [];
  for (let r = 0; r < runs; r++) figures.push((await measured(step)).figure);
  const mid = median(figures.map((f) => f.ms));
  const pick = figures.reduce((best, f) => (Math.abs(f.ms - mid) < Math.abs(best.ms - mid) ? f : best));
  return { ...pick, ms: mid, peakBytes: Math.max(...figures.map((f) => f.peakBytes)) };
}

async function child(size: number): Promise<SizeResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-scale-history-'));
  try {
    const t0 = performance.now();
    const synthetic = await writeSyntheticHistory(fsStorage(dir), size, { materialize: [DEPTH] });
    const buildMs = performance.now() - t0;
    const loadBefore = loadAverage();
    const target = synthetic.materialized.get(DEPTH);
    if (!target) throw new Error(`no snapshot ${DEPTH} commits back in a history of ${size}`);
    const opened = await measured(() => Repository.open(Storage.fromObjectStorage(fsStorage(dir))));
    const repo = opened.value;
    const first = await measured(() => walk(repo, DEPTH));
    const again = await medianOf(9, () => walk(repo, DEPTH));
    const asOf = await medianOf(9, async () => {
      const session = await repo.readonlySession({ branch: 'main', asOf: new Date(target.flushedAt / 1000) });
      if (session.snapshotId !== target.id) throw new Error(`as-of found ${session.snapshotId}, expected ${target.id}`);
    });
    const log = await medianOf(9, () => walk(repo, 100));
    const commit = async (i: number) => {
      const session = await repo.writableSession('main');
      await session.store.set(`a/c/${i % 16}`, chunkBytes(i));
      return session.commit(`on top ${i}`);
    };
    await commit(0); // warm-up
    let i = 1;
    const commits = await medianOf(Number(opts.commits), () => commit(i++));
    const steps: Record<Step, StepFigure> = {
      open: opened.figure,
      'ancestry (first call)': first.figure,
      'ancestry (median of 9 more)': again,
      'as-of session (median of 9)': asOf,
      'log of the last 100 (median of 9)': log,
      'commit on top': commits,
    };
    return { size, buildMs, steps, loadBefore, loadAfter: loadAverage() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(results: SizeResult[]): void {
  console.log(`\n## History at scale: ${DEPTH.toLocaleString('en')}-deep operations by history size (wall ms · CPU ms · peak RSS MiB of the process during the step)\n`);
  const header = ['step', ...results.map((r) => `${r.size.toLocaleString('en')} snapshots`), 'growth of wall time', 'growth of CPU time'];
  const sizes = results.map((r) => r.size);
  const rows = STEPS.map((step) => [
    step,
    ...results.map((r) => `${fmtMs(r.steps[step].ms)} · ${fmtMs(r.steps[step].cpuMs)} · ${mib(r.steps[step].peakBytes)}`),
    growth(sizes, results.map((r) => r.steps[step].ms), 'snapshot'),
    growth(sizes, results.map((r) => r.steps[step].cpuMs), 'snapshot'),
  ]);
  rows.push(['(synthetic build, not a step)', ...results.map((r) => `${fmtMs(r.buildMs)} ms`), '', '']);
  rows.push(['load average (1/5/15 min) before -> after', ...results.map((r) => `${r.loadBefore} -> ${r.loadAfter}`), '', '']);
  printTable(header, rows, ['l']);
}

async function main(): Promise<void> {
  if (opts.child) {
    process.stdout.write(JSON.stringify(await child(Number(opts.child))) + '\n');
    return;
  }
  const sizes = opts.sizes.split(',').map(Number);
  console.log(`# bench/scale-history.ts — ${os.cpus().length} cores, Node ${process.version}, load average ${loadAverage()}`);
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const result = runChild<SizeResult>(SELF, ['--child', String(size), '--depth', opts.depth, '--commits', opts.commits]);
    console.error(`  ${size} snapshots done (load ${result.loadAfter})`);
    results.push(result);
  }
  report(results);
  const goal = results.find((r) => r.size >= 100_000)?.steps['ancestry (first call)'];
  if (goal) console.log(`\nGoal: ${DEPTH}-deep ancestry in a 10^5-snapshot repository < 100 ms: ${fmtMs(goal.ms)} ms (${goal.ms < 100 ? 'met' : 'NOT met'}).`);
}

await main();
