// Issue 31: reading in Chromium through the browser build (dist/browser/floe.js) next to Node.
//   (1) the HTTP bench's box query by labels (bench/http-read.ts: the same demo data on nginx
//       behind the same delay proxy, +20 ms a request), cold then warm: Node (its floe-query probe,
//       a fresh process) and a fresh Chromium page (the page on another loopback origin, so the
//       browser also sends CORS preflights, which the proxy counts); requests, bytes, wall ms;
//   (2) a full read of a 64 MiB zstd array (16 chunks of 4 MiB, a byte of entropy a value) from
//       nginx without delay: Node (in this process, the first and the second read) and the page
//       (its first read decodes on the page's thread and starts the Web Workers; the next ones use
//       them once ready).
// Values are checked: the page's query against Node's (value by value), the full reads by SHA-256.
//
// With --isolated, (2) instead compares the decode pool's two paths in Chromium, interleaved round
// by round: a cross-origin isolated page (COOP: same-origin, COEP: require-corp on the page, its
// scripts and the worker; nginx's CORS answers satisfy COEP), whose results are shared memory the
// workers write into (asserted: crossOriginIsolated, every pooled chunk sent with a target, the
// result over a SharedArrayBuffer), the same isolated page with SharedArrayBuffer hidden before
// floe.js loads (the transfer path: chunks there, results back), and a page without the headers.
//
//   npx tsx bench/browser-read.ts [--small] [--delay-ms 20] [--dir .bench-data/http-read-full]
// With --modules, instead: what a cold page fetches of the browser build itself to open the
// repository over HTTP and read a slice, and to run the query by labels: JS files, their bytes,
// the depth of the module waterfall (a file's level is one more than the deepest file that had
// arrived when it was asked for) and the cold time, the page's files also behind +20 ms a request
// (fresh browser contexts: nothing cached), --rounds pages each, medians.
//
//   npx tsx bench/browser-read.ts --isolated [--rounds 6] [--small]
//   npx tsx bench/browser-read.ts --modules [--rounds 5] [--small] [--browser-dir dist/browser]
// Needs a built dist/ (npm run build). Never part of the test suite. Prints markdown (BENCHMARKS.md, "Issue 31").
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEMO_GRIDS, latitudes, longitudes } from '../src/cli/demo-dataset.ts';
import { ReadCaches, Repository, Storage, ZarrArray, query } from '../src/index.ts';
import { startNginx } from '../test/support/loopback-static-hosts.ts';
import { CROSS_ORIGIN_ISOLATION, launchChromium, openPage, servePages } from '../test/support/chromium.ts';
import { startDelayProxy, type PhaseCount } from './support/delay-proxy.ts';
import { median } from './support/probe-runner.ts';

const { values: opts } = parseArgs({
  options: {
    small: { type: 'boolean', default: false }, 'delay-ms': { type: 'string', default: '20' }, dir: { type: 'string' },
    'browser-dir': { type: 'string', default: 'dist/browser' },
    isolated: { type: 'boolean', default: false }, modules: { type: 'boolean', default: false }, rounds: { type: 'string', default: '6' },
  },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const gridName = opts.small ? 'small' : 'full';
const grid = DEMO_GRIDS[gridName];
const DELAY = Number(opts['delay-ms']);
const DIR = path.resolve(opts.dir ?? path.join(ROOT, `.bench-data/http-read-${gridName}`));
const LABELS = { lat: [47, 48] as [number, number], lon: [7, 8] as [number, number] };
const BIG_SHAPE = [16, 1024, 1024];
/** The browser build the pages load (--browser-dir: another build, e.g. an older one, to compare). */
const BROWSER_DIR = path.resolve(ROOT, opts['browser-dir']);

function indexRange(values: Float64Array, [lo, hi]: [number, number]): [number, number] {
  const inside = [...values.keys()].filter((i) => values[i]! >= lo && values[i]! <= hi);
  return [Math.min(...inside), Math.max(...inside) + 1];
}
const box = [[0, grid.time], indexRange(latitudes(grid), LABELS.lat), indexRange(longitudes(grid), LABELS.lon)] as [number, number][];

/**
 * The query of bench/support/http-read-probe.ts's floe-query reader, as page code (`floe`, `url`,
 * and `state` in scope: the repository and the query caches kept from cold to warm, as the probe does).
 */
const QUERY = `
  state.repo ??= await floe.Repository.open(url);
  state.caches ??= new floe.ReadCaches();
  const session = await state.repo.readonlySession({ tag: 'v1.0' });
  const result = await floe.query(session, { caches: state.caches }).from('/climate/temperature', 'float32')
    .where('time', 'between', [new Date(${Date.UTC(2024, 0, 1) + box[0]![0] * 86_400_000}), new Date(${Date.UTC(2024, 0, 1) + (box[0]![1] - 1) * 86_400_000})])
    .where('lat', 'between', ${JSON.stringify(LABELS.lat)})
    .where('lon', 'between', ${JSON.stringify(LABELS.lon)})
    .execute();
`;

const PAGE_QUERY = `(async () => {
  const floe = await import('/floe.js');
  const url = URL_HERE;
  const out = {};
  const state = {};
  for (const when of ['cold', 'warm']) {
    await fetch(PROXY_HERE + '/__phase/page-' + when + '-query', { mode: 'no-cors' });
    const started = performance.now();
    ${QUERY}
    out[when] = { ms: performance.now() - started, shape: result.shape, data: Array.from(result.data) };
  }
  return out;
})()`;

const PAGE_BIG = `(async () => {
  const floe = await import('/floe.js');
  let sent = 0;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, t) { if (m && m.bytes) sent++; return post.call(this, m, t); };
  const repo = await floe.Repository.open(URL_HERE);
  const big = await floe.ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/big');
  const reads = [];
  for (let i = 0; i < 4; i++) {
    const before = sent;
    const started = performance.now();
    const whole = await big.get();
    const ms = performance.now() - started;
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(whole.data.buffer)))).map((b) => b.toString(16).padStart(2, '0')).join('');
    reads.push({ ms, toWorkers: sent - before, digest });
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return reads;
})()`;

/**
 * Opens the 64 MiB array in a page and leaves `globalThis.bigRead()` there: one whole read, its
 * time, how many chunks went to workers and how many of those with a shared-memory target, and
 * whether the result is shared memory. HIDE_HERE hides SharedArrayBuffer before floe.js loads.
 */
const PAGE_BIG_SETUP = `(async () => {
  const SAB = globalThis.SharedArrayBuffer;
  if (HIDE_HERE) delete globalThis.SharedArrayBuffer;
  const floe = await import('/floe.js');
  const counts = { sent: 0, into: 0 };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, t) { if (m && m.bytes) { counts.sent++; if (m.target) counts.into++; } return post.call(this, m, t); };
  const repo = await floe.Repository.open(URL_HERE);
  const big = await floe.ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/big');
  globalThis.bigRead = async () => {
    const before = { ...counts };
    const started = performance.now();
    const whole = await big.get();
    const ms = performance.now() - started;
    const shared = SAB !== undefined && whole.data.buffer instanceof SAB;
    const bytes = shared ? new Uint8Array(whole.data.buffer).slice() : new Uint8Array(whole.data.buffer);
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
    return { ms, toWorkers: counts.sent - before.sent, into: counts.into - before.into, shared, digest };
  };
  return { isolated: globalThis.crossOriginIsolated === true, workers: navigator.hardwareConcurrency };
})()`;

/**
 * A cold page's read (WHAT_HERE: 'slice' or 'query'): the time from importing floe.js to the
 * answer, and the JS files the page fetched (path, bytes, asked for / arrived, ms from the import).
 */
const PAGE_COLD = `(async () => {
  const url = URL_HERE;
  const t0 = performance.now();
  const floe = await import('/floe.js');
  const imported = performance.now() - t0;
  const repo = await floe.Repository.open(url);
  const session = await repo.readonlySession({ tag: 'v1.0' });
  let values;
  if (WHAT_HERE === 'slice') {
    const temperature = await floe.ZarrArray.open(session.store, '/climate/temperature');
    values = (await temperature.get([200, floe.slice(8, 11), floe.slice(36, 40)])).data;
  } else {
    values = (await floe.query(session).from('/climate/temperature', 'float32')
      .where('lat', 'between', [32.5, 47.5]).where('lon', 'between', [2.5, 17.5]).whereIndex('time', 100, 110).execute()).data;
  }
  const ms = performance.now() - t0;
  const files = performance.getEntriesByType('resource').filter((e) => new URL(e.name).origin === location.origin && e.name.endsWith('.js'))
    .map((e) => ({ path: new URL(e.name).pathname, bytes: e.encodedBodySize, start: e.startTime - t0, end: e.responseEnd - t0 }));
  return { ms, imported, files, values: values.length };
})()`;

interface ColdRead { ms: number; imported: number; files: { path: string; bytes: number; start: number; end: number }[]; values: number }

/** The module waterfall's depth: a file's level is 1 + the deepest level among files that had arrived when it was asked for. */
function waterfallDepth(files: ColdRead['files']): number {
  const level = new Map<string, number>();
  for (const f of [...files].sort((a, b) => a.start - b.start)) {
    const before = files.filter((g) => level.has(g.path) && g.end <= f.start).map((g) => level.get(g.path)!);
    level.set(f.path, 1 + Math.max(0, ...before));
  }
  return Math.max(0, ...level.values());
}

interface BigRead { ms: number; toWorkers: number; into: number; shared: boolean; digest: string }

function bigValues(): Float32Array {
  let x = 12345;
  return Float32Array.from({ length: BIG_SHAPE.reduce((a, b) => a * b, 1) }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 24) / 4;
  });
}

function probe(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--no-warnings', path.join(ROOT, 'bench/support/http-read-probe.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(stdout);
    });
  });
}

/**
 * The 64 MiB read in three pages, interleaved round by round (round 1 is each page's first read:
 * inline on the page's thread while the Web Workers start): isolated with shared memory, isolated
 * with SharedArrayBuffer hidden (transfer), not isolated (transfer).
 */
async function isolationRounds(bigDigest: string): Promise<void> {
  const rounds = Number(opts.rounds);
  const nginx = await startNginx(DIR);
  const isolatedPages = await servePages(BROWSER_DIR, {}, CROSS_ORIGIN_ISOLATION);
  const plainPages = await servePages(BROWSER_DIR);
  const browser = await launchChromium();
  const version = browser.version();
  const variants = [
    { name: 'isolated, shared memory', host: isolatedPages, hide: false },
    { name: 'isolated, transfer (SharedArrayBuffer hidden)', host: isolatedPages, hide: true },
    { name: 'not isolated, transfer', host: plainPages, hide: false },
  ];
  const notes: string[] = [];
  const reads = new Map<string, BigRead[]>(variants.map((v) => [v.name, []]));
  try {
    const pages = [];
    for (const v of variants) {
      const opened = await openPage(browser, `${v.host.origin}/`);
      const setup = PAGE_BIG_SETUP.replace('HIDE_HERE', String(v.hide)).replace('URL_HERE', JSON.stringify(`${nginx.url}/big-zstd.icechunk`));
      const info = (await opened.page.evaluate(setup)) as { isolated: boolean; workers: number };
      notes.push(`${v.name}: crossOriginIsolated ${info.isolated}, hardwareConcurrency ${info.workers}`);
      if (info.isolated !== (v.host === isolatedPages)) throw new Error(`${v.name}: crossOriginIsolated is ${info.isolated}`);
      pages.push({ ...v, ...opened });
    }
    for (let round = 0; round < rounds; round++) {
      for (const p of pages) {
        const r = (await p.page.evaluate('globalThis.bigRead()')) as BigRead;
        if (r.digest !== bigDigest) throw new Error(`${p.name}, read ${round + 1}: WRONG VALUES`);
        reads.get(p.name)!.push(r);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    for (const p of pages) {
      if (p.problems.length) notes.push(`${p.name}: console errors ${p.problems.join('; ')}`);
      await p.page.close();
    }
  } finally {
    await browser.close();
    await isolatedPages.close();
    await plainPages.close();
    await nginx.close();
  }
  // The isolated page must really take the shared-memory path once its workers run; the others never.
  const sharedReads = reads.get(variants[0]!.name)!.slice(1);
  if (!sharedReads.every((r) => r.shared && r.toWorkers > 0 && r.into === r.toWorkers)) throw new Error(`the isolated page did not decode into shared memory: ${JSON.stringify(sharedReads)}`);
  for (const v of variants.slice(1)) if (reads.get(v.name)!.some((r) => r.shared || r.into > 0)) throw new Error(`${v.name} used shared memory`);
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}, Chromium ${version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}; 64 MiB zstd array from nginx (no delay), ${rounds} interleaved rounds.`);
  console.log('| page | read 1 ms (inline, starts workers) | later reads ms, median (min-max) | later reads, each | chunks to workers (with a shared target) |');
  console.log('| --- | ---: | ---: | --- | --- |');
  for (const v of variants) {
    const rs = reads.get(v.name)!;
    const later = rs.slice(1).map((r) => r.ms);
    console.log(`| ${v.name} | ${rs[0]!.ms.toFixed(0)} | ${median(later).toFixed(0)} (${Math.min(...later).toFixed(0)}-${Math.max(...later).toFixed(0)}) | ${later.map((ms) => ms.toFixed(0)).join(', ')} | ${rs.map((r) => `${r.toWorkers}${r.into ? ` (${r.into})` : ''}`).join(', ')} |`);
  }
  const pairs = (a: string, b: string) => reads.get(a)!.slice(1).map((r, i) => r.ms / reads.get(b)!.slice(1)[i]!.ms);
  console.log(`- later reads, round by round, shared / transfer on the isolated page: median ${median(pairs(variants[0]!.name, variants[1]!.name)).toFixed(2)}; shared / not isolated: median ${median(pairs(variants[0]!.name, variants[2]!.name)).toFixed(2)}`);
  for (const note of notes) console.log(`- ${note}`);
}

/** --modules: cold pages reading a slice, then running the query by labels, page and data behind the delay. */
async function moduleRounds(): Promise<void> {
  const rounds = Number(opts.rounds);
  const nginx = await startNginx(DIR);
  const data = await startDelayProxy(nginx.url, DELAY);
  const pages = await servePages(BROWSER_DIR);
  const pageProxy = await startDelayProxy(pages.origin, DELAY);
  const browser = await launchChromium();
  const version = browser.version();
  const rows: string[] = [];
  try {
    for (const what of ['slice', 'query']) {
      const runs: ColdRead[] = [];
      for (let round = 0; round < rounds; round++) {
        const { page, problems } = await openPage(browser, `${pageProxy.url}/`);
        runs.push((await page.evaluate(PAGE_COLD.replace('URL_HERE', JSON.stringify(`${data.url}/repo.icechunk`)).replace('WHAT_HERE', JSON.stringify(what)))) as ColdRead);
        await page.close();
        if (problems.length) throw new Error(`console errors: ${problems.join('; ')}`);
      }
      const r = runs[0]!;
      const files = new Set(runs.flatMap((x) => x.files.map((f) => f.path)));
      const lazy = [...files].filter((f) => !runs.every((x) => x.files.some((g) => g.path === f)));
      rows.push(`| ${what} | ${r.files.length}${lazy.length ? ` (varies: ${lazy.join(', ')})` : ''} | ${r.files.reduce((a, f) => a + f.bytes, 0)} | ${median(runs.map((x) => waterfallDepth(x.files)))} | ${median(runs.map((x) => x.imported)).toFixed(0)} | ${median(runs.map((x) => Math.max(...x.files.map((f) => f.end)))).toFixed(0)} | ${median(runs.map((x) => x.ms)).toFixed(0)} (${Math.min(...runs.map((x) => x.ms)).toFixed(0)}-${Math.max(...runs.map((x) => x.ms)).toFixed(0)}) |`);
      const after = r.files.filter((f) => f.start > r.imported).map((f) => f.path.replace(/^\/chunks\//, ''));
      rows.push(`|  | fetched after floe.js had loaded: ${after.join(', ') || 'none'} | | | | | |`);
    }
  } finally {
    await browser.close();
    await pageProxy.close();
    await pages.close();
    await data.close();
    await nginx.close();
  }
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}, Chromium ${version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}; grid ${gridName}; page files and data each +${DELAY} ms a request; ${rounds} cold pages each, medians.`);
  console.log('| read | JS files fetched | JS bytes | waterfall depth | import of floe.js ms | last JS file arrived ms | cold read ms, median (min-max) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  console.log(rows.join('\n'));
}

async function main(): Promise<void> {
  const repoDir = path.join(DIR, 'repo.icechunk');
  if (!opts.isolated && !existsSync(path.join(repoDir, 'repo'))) {
    mkdirSync(DIR, { recursive: true });
    console.error(`# writing the demo (${gridName}) to ${repoDir}`);
    execFileSync(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), 'demo', ...(opts.small ? ['--small'] : []), '--repo', repoDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (opts.modules) return moduleRounds();
  const bigDir = path.join(DIR, 'big-zstd.icechunk');
  const values = bigValues();
  const bigDigest = createHash('sha256').update(new Uint8Array(values.buffer)).digest('hex');
  if (!existsSync(path.join(bigDir, 'repo'))) {
    const repo = await Repository.create(Storage.newLocalFilesystem(bigDir));
    const session = await repo.writableSession('main');
    const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
    await (await ZarrArray.create(session.store, '/big', { shape: BIG_SHAPE, chunkShape: [1, 1024, 1024], dataType: 'float32', fillValue: 0, codecs })).set(undefined, values);
    await session.commit('64 MiB');
  }
  if (opts.isolated) return isolationRounds(bigDigest);
  const nginx = await startNginx(DIR);
  const proxy = await startDelayProxy(nginx.url, DELAY);
  const pages = await servePages(BROWSER_DIR);
  const browser = await launchChromium();
  const browserVersion = browser.version();
  const rows = ['| reader | phase | requests | bytes | wall ms |', '| --- | --- | ---: | ---: | ---: |'];
  const notes: string[] = [];
  const count = (phase: string): PhaseCount => proxy.phases.get(phase) ?? { requests: 0, bytes: 0, maxInFlight: 0, byClass: {} };
  try {
    // (1) The box query: Node's probe, then the page.
    proxy.phases.clear();
    const line = (await probe(['floe-query', proxy.url, `${proxy.url}/repo.icechunk`, gridName, JSON.stringify({ ranges: box, labels: LABELS })])).trim().split('\n').pop()!;
    const node = JSON.parse(line) as { timings: Record<string, number>; correct: boolean };
    if (!node.correct) notes.push('Node probe: WRONG VALUES');
    for (const [phase, ms] of Object.entries(node.timings)) {
      const c = count(phase);
      rows.push(`| Node (fresh process) | ${phase} | ${c.requests} | ${c.bytes} | ${ms.toFixed(0)} |`);
    }
    const expected = await (async () => {
      const floe = { Repository, query, ReadCaches };
      const url = `${nginx.url}/repo.icechunk`;
      const run = new Function('floe', 'url', 'state', `return (async () => {${QUERY} return { shape: result.shape, data: Array.from(result.data) }; })();`) as (f: unknown, u: string, s: object) => Promise<{ shape: number[]; data: number[] }>;
      return run(floe, url, {});
    })();
    proxy.phases.clear();
    const { page, problems } = await openPage(browser, `${pages.origin}/`);
    const inPage = (await page.evaluate(PAGE_QUERY.replace('URL_HERE', JSON.stringify(`${proxy.url}/repo.icechunk`)).replace('PROXY_HERE', JSON.stringify(proxy.url)))) as Record<string, { ms: number; shape: number[]; data: number[] }>;
    await page.close();
    for (const when of ['cold', 'warm']) {
      const r = inPage[when]!;
      const same = JSON.stringify(r.shape) === JSON.stringify(expected.shape) && r.data.length === expected.data.length && r.data.every((v, i) => Object.is(v, expected.data[i]));
      if (!same) notes.push(`page ${when}: VALUES DIFFER from Node's`);
      const c = count(`page-${when}-query`);
      const preflights = c.byClass['(preflight)'] ?? 0;
      rows.push(`| Chromium page | ${when}-query | ${c.requests} | ${c.bytes} | ${r.ms.toFixed(0)} |`);
      notes.push(`page ${when}: requests by class ${JSON.stringify(c.byClass)}, most in flight ${c.maxInFlight}${preflights ? `, ${preflights} preflights` : ''}`);
    }
    if (problems.length) notes.push(`page console errors: ${problems.join('; ')}`);

    // (2) The 64 MiB full read, no delay.
    const bigUrl = `${nginx.url}/big-zstd.icechunk`;
    const nodeBig = await ZarrArray.open((await (await Repository.open(bigUrl)).readonlySession({ branch: 'main' })).store, '/big');
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      const whole = await nodeBig.get();
      const ms = performance.now() - started;
      const ok = createHash('sha256').update(new Uint8Array((whole.data as Float32Array).buffer)).digest('hex') === bigDigest;
      rows.push(`| Node (this process) | 64 MiB read ${i + 1} | | | ${ms.toFixed(0)}${ok ? '' : ' WRONG'} |`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const big = await openPage(browser, `${pages.origin}/`);
    const reads = (await big.page.evaluate(PAGE_BIG.replace('URL_HERE', JSON.stringify(bigUrl)))) as { ms: number; toWorkers: number; digest: string }[];
    await big.page.close();
    reads.forEach((r, i) => rows.push(`| Chromium page | 64 MiB read ${i + 1} (${r.toWorkers} chunks to workers) | | | ${r.ms.toFixed(0)}${r.digest === bigDigest ? '' : ' WRONG'} |`));
  } finally {
    await browser.close();
    await pages.close();
    await proxy.close();
    await nginx.close();
  }
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}, ${`Chromium ${browserVersion}`}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}; grid ${gridName}, +${DELAY} ms a request through the proxy.`);
  console.log(rows.join('\n'));
  for (const note of notes) console.log(`- ${note}`);
}

await main();
// Idle keep-alive sockets and the Node reads' unref'd workers end on their own; do not wait for them.
process.exit(0);
