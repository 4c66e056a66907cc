// Reading over HTTP (issue 30): the demo's temperature (`floe demo`, 0.5 degrees: 365 x 360 x
// 720 float32 in 20 zstd shards of [73, 180, 360] with [1, 90, 90] inner chunks; `--small`: the
// 5-degree grid) published on nginx on loopback, behind a proxy adding a fixed delay to every
// request and counting requests and bytes. One box, 1 x 1 degree (47-48 N, 7-8 E) over the whole
// year, read cold (a fresh process) and warm (again in that process), by:
//   (a) an Icechunk session at tag v1.0: Floe's HTTP storage vs the reference's fetch storage;
//   (b) a plain Zarr v3 copy (`floe export v1.0:/climate`): Floe's openStore(url) vs zarrita's
//       FetchStore, both slicing by index;
//   (c) Floe's query by labels on the session (coordinates and metadata counted apart by the
//       query's own report), with its default concurrency (8) and with 32.
// Each reader runs in its own process (bench/support/http-read-probe.ts); every reader's values
// are checked against the demo's generator.
//
//   npx tsx bench/http-read.ts [--small] [--delay-ms 20] [--dir .bench-data/http-read-full]
// Never part of the test suite. Prints a markdown table (BENCHMARKS.md, "Issue 30").
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { boxSize, DEMO_GRIDS, latitudes, longitudes, type Box } from '../src/cli/demo-dataset.ts';
import { startNginx } from '../test/support/loopback-static-hosts.ts';
import { startDelayProxy, type PhaseCount } from './support/delay-proxy.ts';

const { values: opts } = parseArgs({
  options: {
    small: { type: 'boolean', default: false },
    'delay-ms': { type: 'string', default: '20' },
    dir: { type: 'string' },
  },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const gridName = opts.small ? 'small' : 'full';
const grid = DEMO_GRIDS[gridName];
const DELAY = Number(opts['delay-ms']);
const DIR = path.resolve(opts.dir ?? path.join(ROOT, `.bench-data/http-read-${gridName}`));
const PROBE = path.join(ROOT, 'bench/support/http-read-probe.ts');
const LABELS = { lat: [47, 48] as [number, number], lon: [7, 8] as [number, number] };

function indexRange(values: Float64Array, [lo, hi]: [number, number]): [number, number] {
  const inside = [...values.keys()].filter((i) => values[i]! >= lo && values[i]! <= hi);
  if (inside.length === 0) throw new Error(`no grid point in [${lo}, ${hi}]`);
  return [Math.min(...inside), Math.max(...inside) + 1];
}
const box: Box = [[0, grid.time], indexRange(latitudes(grid), LABELS.lat), indexRange(longitudes(grid), LABELS.lon)];

function floe(args: string[]): void {
  execFileSync(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const du = (p: string) => execFileSync('du', ['-sb', p], { encoding: 'utf8' }).split('\t')[0]!;
const MiB = (n: number | string) => (Number(n) / 2 ** 20).toFixed(1);

/** Runs one probe (asynchronously: the proxy lives in this process); killed by pid after 5 minutes. */
function probe(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', PROBE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

async function main(): Promise<void> {
  const repoDir = path.join(DIR, 'repo.icechunk');
  const plainDir = path.join(DIR, 'plain.zarr');
  if (!existsSync(path.join(repoDir, 'repo'))) {
    mkdirSync(DIR, { recursive: true });
    console.error(`# writing the demo (${gridName}) to ${repoDir}`);
    floe(['demo', ...(opts.small ? ['--small'] : []), '--repo', repoDir]);
  }
  if (!existsSync(path.join(plainDir, 'zarr.json'))) floe(['export', 'v1.0:/climate', plainDir, '--repo', repoDir]);
  const nginx = await startNginx(DIR);
  const proxy = await startDelayProxy(nginx.url, DELAY);
  // Ctrl-C or a kill: stop nginx (by its pid) and remove its temp dir before leaving.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void Promise.allSettled([proxy.close(), nginx.close()]).then(() => process.exit(130)));
  }
  const sizes = `repository ${MiB(du(repoDir))} MiB, plain copy ${MiB(du(plainDir))} MiB`;
  console.error(`# grid ${gridName}: temperature [${grid.time}, ${grid.lat}, ${grid.lon}] float32, shards [${grid.shard}] of [${grid.inner}]; ${sizes}`);
  console.error(`# box [${box.map((r) => r.join(':')).join(', ')}] (${boxSize(box)} values); +${DELAY} ms per request`);

  const readers = [
    { name: 'floe-session', label: '(a) Floe, session (HTTP storage)', url: `${proxy.url}/repo.icechunk` },
    { name: 'reference-session', label: '(a) reference, session (fetch storage)', url: `${proxy.url}/repo.icechunk` },
    { name: 'floe-plain', label: '(b) Floe, plain Zarr (openStore)', url: `${proxy.url}/plain.zarr` },
    { name: 'zarrita-plain', label: '(b) zarrita, plain Zarr (FetchStore)', url: `${proxy.url}/plain.zarr` },
    { name: 'floe-query', label: '(c) Floe, query by labels (session)', url: `${proxy.url}/repo.icechunk` },
    { name: 'floe-query-c32', label: '(c) the same, `concurrency: 32`', url: `${proxy.url}/repo.icechunk` },
  ];
  const rows: string[] = ['| reader | phase | requests | bytes | wall ms | CPU ms | most in flight | requests by key |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |'];
  const notes: string[] = [];
  try {
    for (const reader of readers) {
      proxy.phases.clear();
      const res = await probe([reader.name, proxy.url, reader.url, gridName, JSON.stringify({ ranges: box, labels: LABELS })]);
      const line = res.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      const out = line ? (JSON.parse(line) as { timings?: Record<string, number>; cpuMs?: Record<string, number>; correct?: boolean; extra?: Record<string, unknown>; error?: string }) : { error: res.stderr.slice(-1500) };
      if (out.error || !out.timings) {
        rows.push(`| ${reader.label} | failed | | | | | | ${out.error?.split('\n')[0]} |`);
        continue;
      }
      if (!out.correct) notes.push(`${reader.label}: WRONG VALUES`);
      for (const [phase, ms] of Object.entries(out.timings)) {
        const count: PhaseCount = proxy.phases.get(phase) ?? { requests: 0, bytes: 0, maxInFlight: 0, byClass: {} };
        const classes = Object.entries(count.byClass).map(([k, n]) => `${k} ${n}`).join(', ');
        rows.push(`| ${reader.label} | ${phase} | ${count.requests} | ${count.bytes} | ${ms.toFixed(0)} | ${(out.cpuMs?.[phase] ?? 0).toFixed(0)} | ${count.maxInFlight} | ${classes} |`);
      }
      for (const [k, v] of Object.entries(out.extra ?? {})) notes.push(`${reader.label} ${k} (the query's report): ${JSON.stringify(v)}`);
    }
  } finally {
    await proxy.close();
    await nginx.close();
  }
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} (uptime); ${sizes}.`);
  console.log(rows.join('\n'));
  for (const note of notes) console.log(`- ${note}`);
}

await main();
