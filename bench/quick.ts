// `npm run bench:quick`: a small version of every bench in bench/, one after another, so a
// regression shows before it lands. Each prints its own tables and ratios (Floe against zarrita,
// the reference Icechunk or a minimal reader, where it has one); this runner prints the load
// average before each, times each, and ends with a summary. Exit status 1 if any script failed.
//
//   npx tsx bench/quick.ts [--only name,name] [--skip name,name] [--timeout-s 90]
//
// Not run: bench/ab.ts (an A/B of two checkouts given on its command line) and
// bench/built-vs-source.ts (at least 9 pairs of fresh processes reading 256 MiB: ~30 s of CPU, a
// quarter of the budget, for a ratio that only moves with the build setup). startup runs the
// built CLI: skipped with a note when dist/ is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: '' },
    skip: { type: 'string', default: '' },
    'timeout-s': { type: 'string', default: '90' },
  },
});

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH);

interface QuickRun {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** Why it cannot run here, if it cannot. */
  unavailable?: () => string | undefined;
}

const needsDist = () => (existsSync(path.join(ROOT, 'dist', 'index.js')) ? undefined : 'no dist/ (run `npm run build` first)');

// Sizes are what keeps the whole under two minutes of wall time at load 10-20 on 2 cores: every
// script and child is a fresh process that loads tsx and the sources (~0.5 s of CPU each), so the
// scale benches run 2 sizes (a 10x range still shows the growth), memory probes run for Floe
// only, and loops that repeat for a fixed wall time (codecs) repeat briefly.
const RUNS: QuickRun[] = [
  { name: 'zarr-read', args: ['--size-mb', '16', '--windows', '20', '--repeat', '1', '--memory-readers', 'floe'] },
  { name: 'commit', args: ['--chunks', '300', '--read-mb', '8'] },
  { name: 'history', args: ['--sizes', '0,500', '--commits', '3', '--rounds', '1', '--ancestry', '300', '--reps', '2', '--skip', 'deep'] },
  { name: 'query', args: ['--hours', '48', '--day', '1', '--reps', '1'] },
  { name: 'codecs', args: ['--size-kb', '256', '--min-ms', '40'] },
  { name: 'zstd-backends', args: ['4'] },
  { name: 'storage', args: ['--objects', '100'] },
  { name: 'gc', args: [], env: { SNAPSHOTS: '10', CHUNKS_PER_COMMIT: '10' } },
  { name: 'icechunk-format', args: ['10000', '--reference-refs=1000'] },
  { name: 'split-amplification', args: ['--rows', '32', '--cols', '16', '--splits', '1,4,16'] },
  { name: 'startup', args: ['--runs', '5'], unavailable: needsDist },
  { name: 'scale-history', args: ['--sizes', '1000,10000'] },
  { name: 'scale-refs', args: ['--sizes', '3000,30000', '--split-rows', '3', '--heap-mb', '2000', '--cold', '1'] },
  { name: 'scale-gc', args: ['--garbage', '10000,100000', '--live', '1000', '--live-check', '0'] },
  { name: 'scale-writers', args: ['--writers', '1,2,4', '--commits', '1', '--latency-ms', '10', '--jitter-ms', '2'] },
];

interface Outcome {
  name: string;
  seconds: number;
  /** CPU seconds (user + system) of the script's processes; NaN where /proc is missing. */
  cpuSeconds: number;
  status: 'ok' | 'FAILED' | 'skipped';
  note: string;
  load: string;
}

/**
 * CPU seconds used by this process's finished children (cutime + cstime in /proc/self/stat): on
 * a loaded machine wall time is mostly waiting for a core, CPU time far less so. Clock ticks are
 * 100 per second on Linux (USER_HZ).
 */
function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state is field 3; cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
const listed = (text: string) => new Set(text.split(',').filter(Boolean));

function runOne(run: QuickRun): Outcome {
  const load = loadAverage();
  const why = run.unavailable?.();
  if (why) return { name: run.name, seconds: 0, cpuSeconds: 0, status: 'skipped', note: why, load };
  const script = path.join(BENCH, `${run.name}.ts`);
  console.log(`\n=== ${run.name} ${run.args.join(' ')} (load ${load})`);
  const t0 = performance.now();
  const cpu0 = childrenCpuSeconds();
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--no-warnings', script, ...run.args], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...run.env },
    timeout: Number(opts['timeout-s']) * 1000,
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = childrenCpuSeconds() - cpu0;
  if (result.status === 0) return { name: run.name, seconds, cpuSeconds, status: 'ok', note: '', load };
  const note = result.error?.message ?? (result.signal ? `killed by ${result.signal}` : `exit ${result.status}`);
  return { name: run.name, seconds, cpuSeconds, status: 'FAILED', note, load };
}

function main(): number {
  const only = listed(opts.only);
  const skip = listed(opts.skip);
  const chosen = RUNS.filter((r) => (only.size === 0 || only.has(r.name)) && !skip.has(r.name));
  console.log(`# npm run bench:quick — ${chosen.length} benches, ${os.cpus().length} cores, Node ${process.version}, load average ${loadAverage()}`);
  const t0 = performance.now();
  const outcomes = chosen.map(runOne);
  const total = (performance.now() - t0) / 1000;
  const cpu = outcomes.reduce((s, o) => s + o.cpuSeconds, 0);
  console.log(`\n## bench:quick summary (${total.toFixed(0)} s wall, ${cpu.toFixed(0)} s CPU in all; load average at the end ${loadAverage()})\n`);
  console.log('| bench | status | wall s | CPU s | load before | note |');
  console.log('|---|---|---:|---:|---|---|');
  for (const o of outcomes) console.log(`| ${o.name} | ${o.status} | ${o.seconds.toFixed(1)} | ${o.cpuSeconds.toFixed(1)} | ${o.load} | ${o.note} |`);
  const failed = outcomes.filter((o) => o.status === 'FAILED');
  if (failed.length > 0) console.log(`\n${failed.length} failed: ${failed.map((o) => o.name).join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = main();
