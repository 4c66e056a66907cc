// How fast `floe` starts, beside `node -e 0` on the same machine in the same run.
// Run: npx tsx bench/startup.ts [--runs 15] [--before DIR]
// Each round runs every command once, in a fresh order, so load changes hit all of them alike;
// the medians of the rounds and their ratios to `node -e 0` are printed. `--before DIR` adds the
// same commands run by another checkout's bin/floe.mjs (e.g. `git worktree add DIR <commit>` of
// the tsx-era CLI, with node_modules linked in), for a before/after in one run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './support/probe-runner.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, before: { type: 'string' } } });
// Fewer than the default only for bench:quick's glance; figures for BENCHMARKS.md use >= 9.
const RUNS = Math.max(1, Number(values.runs));

const dir = mkdtempSync(path.join(tmpdir(), 'floe-bench-startup-'));
const repo = path.join(dir, 'small.icechunk');
const bin = path.join(root, 'bin/floe.mjs');
const before = values.before ? path.join(path.resolve(values.before), 'bin/floe.mjs') : undefined;

interface Case { name: string; args: string[] }
const CASES: Case[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'floe --version', args: [bin, '--version'] },
  { name: 'floe help', args: [bin, 'help'] },
  { name: 'floe log', args: [bin, 'log', '--repo', repo] },
  ...(before
    ? [
        { name: 'floe help (before)', args: [before, 'help'] },
        { name: 'floe log (before)', args: [before, 'log', '--repo', repo] },
      ]
    : []),
];

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

try {
  execFileSync(process.execPath, [bin, 'init', '--repo', repo], { stdio: 'pipe' });
  for (const c of CASES) timeOnce(c.args); // warm the file cache once
  const times = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < RUNS; round++) {
    for (const c of shuffled(CASES, round + 1)) times.get(c.name)!.push(timeOnce(c.args));
  }
  const base = median(times.get('node -e 0')!);
  console.log(`startup, median of ${RUNS} interleaved runs; load average ${loadBefore.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`);
  console.log('| command | median ms | x node -e 0 |');
  console.log('|---|---:|---:|');
  for (const c of CASES) {
    const m = median(times.get(c.name)!);
    console.log(`| ${c.name} | ${m.toFixed(0)} | ${(m / base).toFixed(2)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
