// Built JS (dist/, what the package ships) against the TypeScript sources run through tsx (how
// the CLI and library ran before the build), on a full read and a commit, as interleaved A/B
// pairs of fresh processes. Run: npx tsx bench/built-vs-source.ts [--pairs 9] [--chunks 10000]
// (needs `npm run build` first). Prints each pair's ratio (source time / built time) and medians.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median, probeMs } from './support/probe-runner.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { pairs: { type: 'string', default: '9' }, chunks: { type: 'string', default: '10000' } } });
const PAIRS = Math.max(9, Number(values.pairs));
const BUILT = { name: 'built', args: [] as string[], entry: path.join(root, 'dist/index.js') };
const SOURCE = { name: 'source', args: ['--import', 'tsx'], entry: path.join(root, 'src/index.ts') };
type Side = typeof BUILT;

function runProbe(side: Side, task: string, dir: string, extra: string[] = []): number {
  return probeMs(side.entry, task, dir, extra, side.args);
}

const work = mkdtempSync(path.join(tmpdir(), 'floe-bench-built-'));
try {
  const store = path.join(work, 'read.zarr');
  runProbe(BUILT, 'write', store);
  const load = loadavg()[0]!;
  const rows: string[] = [];
  for (const task of ['read', 'commit'] as const) {
    const ratios: number[] = [];
    const times = { built: [] as number[], source: [] as number[] };
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 ? [SOURCE, BUILT] : [BUILT, SOURCE];
      const got: Record<string, number> = {};
      for (const side of order) {
        const dir = task === 'read' ? store : path.join(work, `commit-${side.name}-${pair}`);
        got[side.name] = runProbe(side, task, dir, task === 'commit' ? [values.chunks!] : []);
        if (task === 'commit') rmSync(dir, { recursive: true, force: true });
      }
      times.built.push(got.built!);
      times.source.push(got.source!);
      ratios.push(got.source! / got.built!);
    }
    rows.push(`| ${task === 'read' ? 'full read, 256 MiB float32, zstd, plain store' : `commit of ${values.chunks} chunks, local repository`} | ${median(times.built).toFixed(0)} | ${median(times.source).toFixed(0)} | ${median(ratios).toFixed(3)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} |`);
  }
  console.log(`built JS vs sources under tsx, ${PAIRS} interleaved pairs; load average ${load.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`);
  console.log('| workload | built ms (median) | tsx ms (median) | median ratio tsx/built | pairs |');
  console.log('|---|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
} finally {
  rmSync(work, { recursive: true, force: true });
}
