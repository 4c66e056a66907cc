// Scale run (issue 19, item 5): 1 .. 64 concurrent writers on one branch, against a storage that
// adds 50 ms (± jitter, seeded) to every request.
//
//   npx tsx bench/scale-writers.ts [--writers 1,2,4,8,16,32,64] [--commits 2] [--chunks 4]
//        [--latency-ms 50] [--jitter-ms 10] [--seed 1] [--tries 1000] [--modes disjoint,overlapping]
//
// One in-memory repository; each writer has its own Repository over its own latency wrapper of
// that storage (as separate processes would: no shared caches) and makes --commits commits, each
// a new session writing --chunks chunks of one array and committing with rebase
// (BasicConflictSolver: a chunk both sides wrote keeps ours) and at most --tries attempts, with the
// commit path's jittered backoff (seeded per writer). Disjoint: writer w writes row w of the array;
// overlapping: every writer writes the same chunks of row 0. All writers start together.
// Per run: commits/s (all commits / wall time), retries per commit (attempts − 1; an attempt is a
// snapshot written), p50/p99 of the commit call's latency (retries included), and the fairness
// figures: the most retries one commit took, the most one writer took in all, the fastest, median
// and slowest writer's finish and slowest/median (1 = every writer done together). Checked: every writer finishes, every commit is in main's ancestry
// exactly once, no commit retried more often than other commits landed meanwhile (a retry is
// always someone else's progress, so retries are bounded by the others' commits), and (disjoint)
// every writer's last values read back. A writer that starves fails the run: its commit throws
// after --tries attempts.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sleepAbortably } from '../src/engine/abort.ts';
import { systemClock, type Clock } from '../src/engine/storage/clock.ts';
import { MemoryStorage } from '../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../src/engine/storage/types.ts';
import { wrapStorage, type StorageCall } from '../src/engine/storage/wrap.ts';
import { PREFIXES } from '../src/format/icechunk/keys.ts';
import { BasicConflictSolver, Repository } from '../src/txn/index.ts';
import { fmtMs, loadAverage, printTable } from './support/scale-run.ts';
import { seededRandom } from '../src/format/seeded-random.ts';

const { values: opts } = parseArgs({
  options: {
    writers: { type: 'string', default: '1,2,4,8,16,32,64' },
    commits: { type: 'string', default: '2' },
    chunks: { type: 'string', default: '4' },
    'latency-ms': { type: 'string', default: '50' },
    'jitter-ms': { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
    tries: { type: 'string', default: '1000' },
    modes: { type: 'string', default: 'disjoint,overlapping' },
  },
});
const COMMITS = Number(opts.commits);
const CHUNKS = Number(opts.chunks);
const LATENCY = Number(opts['latency-ms']);
const JITTER = Number(opts['jitter-ms']);
const TRIES = Number(opts.tries);
const MAX_WRITERS = Math.max(...opts.writers.split(',').map(Number));
type Mode = 'disjoint' | 'overlapping';


/** Requests one writer made, by what they were. */
interface RequestCounts {
  requests: number;
  snapshotPuts: number;
  repoInfoSwapsLost: number;
}

/**
 * `inner` with `LATENCY ± JITTER` ms before every request, on `clock`. A listing counts as one
 * request per 1,000 entries (a page), not one per entry.
 */
function withLatency(inner: ObjectStorage, clock: Clock, random: () => number, counts: RequestCounts): ObjectStorage {
  const listed = new WeakMap<StorageCall, number>();
  return wrapStorage(inner, async (call, run) => {
    const fetched = call.operation === 'list' ? (listed.get(call) ?? 0) : 0;
    if (call.operation === 'list') listed.set(call, fetched + 1);
    if (fetched % 1000 === 0) {
      counts.requests++;
      await sleepAbortably(clock, LATENCY + (2 * random() - 1) * JITTER, call.signal, call.key);
    }
    if (call.operation === 'put' && call.key.startsWith(PREFIXES.snapshots)) counts.snapshotPuts++;
    try {
      return await run();
    } catch (err) {
      if (call.operation === 'put' && call.key === 'repo') counts.repoInfoSwapsLost++;
      throw err;
    }
  });
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const int32 = (v: number) => new Uint8Array(Int32Array.of(v).buffer);

async function createRepository(inner: MemoryStorage): Promise<void> {
  const repo = await Repository.create(inner);
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await session.store.set('a/zarr.json', json({
    zarr_format: 3, node_type: 'array', shape: [MAX_WRITERS, CHUNKS], data_type: 'int32', fill_value: 0, attributes: {},
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, 1] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
  }));
  await session.commit('array');
}

interface CommitFigure {
  writer: number;
  ms: number;
  attempts: number;
  snapshotId: string;
  /** When the commit call began and returned (performance.now()). */
  startedAt: number;
  landedAt: number;
}

interface WriterFigure {
  writer: number;
  finishedMs: number;
  counts: RequestCounts;
}

async function writer(w: number, mode: Mode, inner: MemoryStorage, seed: number, start: number, commits: CommitFigure[]): Promise<WriterFigure> {
  const counts: RequestCounts = { requests: 0, snapshotPuts: 0, repoInfoSwapsLost: 0 };
  const random = seededRandom(seed * 7919 + w + 1); // seeded: a run's delays and backoffs replay
  const repo = await Repository.open(withLatency(inner, systemClock, random, counts));
  const solver = new BasicConflictSolver();
  await startTogether(start);
  const t0 = performance.now();
  for (let k = 0; k < COMMITS; k++) {
    const session = await repo.writableSession('main');
    const row = mode === 'disjoint' ? w : 0;
    for (let c = 0; c < CHUNKS; c++) await session.store.set(`a/c/${row}/${c}`, int32(w * 1000 + k));
    const before = counts.snapshotPuts;
    const startedAt = performance.now();
    const snapshotId = await session.commit(`writer ${w} commit ${k}`, { rebaseWith: solver, rebaseTries: TRIES, retryBackoff: { random } });
    const landedAt = performance.now();
    commits.push({ writer: w, ms: landedAt - startedAt, attempts: counts.snapshotPuts - before, snapshotId, startedAt, landedAt });
  }
  return { writer: w, finishedMs: performance.now() - t0, counts };
}

/** Every writer opens its repository first, then all start at the same moment. */
const startTogether = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

function percentile(sorted: readonly number[], p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at] ?? Number.NaN;
}

interface RunFigure {
  mode: Mode;
  writers: number;
  commits: number;
  wallMs: number;
  retriesPerCommit: number;
  p50: number;
  p99: number;
  maxAttempts: number;
  maxWriterRetries: number;
  minWriterRetries: number;
  slowestMs: number;
  medianMs: number;
  fastestMs: number;
  swapsLost: number;
  requestsPerCommit: number;
  load: string;
}

async function run(mode: Mode, writers: number, seed: number): Promise<RunFigure> {
  const inner = new MemoryStorage();
  await createRepository(inner);
  const commits: CommitFigure[] = [];
  const start = Date.now() + 300 + writers * 20; // time for every writer to open first
  const figures = await Promise.all(Array.from({ length: writers }, (_, w) => writer(w, mode, inner, seed, start, commits)));
  await check(inner, mode, writers, commits);
  const latencies = commits.map((c) => c.ms).sort((a, b) => a - b);
  const retriesOf = (w: WriterFigure) => w.counts.snapshotPuts - COMMITS;
  const finished = figures.map((f) => f.finishedMs);
  return {
    mode,
    writers,
    commits: commits.length,
    wallMs: Math.max(...finished), // every writer starts at the same moment
    retriesPerCommit: commits.reduce((s, c) => s + c.attempts - 1, 0) / commits.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    maxAttempts: Math.max(...commits.map((c) => c.attempts)),
    maxWriterRetries: Math.max(...figures.map(retriesOf)),
    minWriterRetries: Math.min(...figures.map(retriesOf)),
    slowestMs: Math.max(...finished),
    medianMs: percentile([...finished].sort((a, b) => a - b), 50),
    fastestMs: Math.min(...finished),
    swapsLost: figures.reduce((s, f) => s + f.counts.repoInfoSwapsLost, 0),
    requestsPerCommit: figures.reduce((s, f) => s + f.counts.requests, 0) / commits.length,
    load: loadAverage(),
  };
}

/** Every commit landed once, on main, in a line; disjoint writers' last values read back. */
async function check(inner: MemoryStorage, mode: Mode, writers: number, commits: readonly CommitFigure[]): Promise<void> {
  if (commits.length !== writers * COMMITS) throw new Error(`${commits.length} commits made, expected ${writers * COMMITS}`);
  const repo = await Repository.open(inner);
  const onMain = new Set<string>();
  for await (const s of repo.ancestry({ branch: 'main' })) onMain.add(s.id);
  for (const c of commits) if (!onMain.has(c.snapshotId)) throw new Error(`writer ${c.writer}'s commit ${c.snapshotId} is not on main`);
  if (onMain.size !== commits.length + 2) throw new Error(`main has ${onMain.size} snapshots, expected ${commits.length + 2}`);
  checkProgress(commits);
  if (mode !== 'disjoint') return;
  const session = await repo.readonlySession({ branch: 'main' });
  for (let w = 0; w < writers; w++) {
    const bytes = await session.store.get(`a/c/${w}/0`);
    const value = bytes ? new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true) : undefined;
    if (value !== w * 1000 + COMMITS - 1) throw new Error(`writer ${w}'s last value is ${value}`);
  }
}

/**
 * Why no writer starves: an attempt fails only because another commit moved the branch, so a
 * commit's retries are at most the commits that landed while it ran (with a landing-time margin
 * of one request for the last compare-and-swap). Every retry is some other writer's progress.
 */
function checkProgress(commits: readonly CommitFigure[]): void {
  for (const c of commits) {
    const others = commits.filter((o) => o !== c && o.landedAt > c.startedAt && o.landedAt <= c.landedAt + LATENCY + JITTER).length;
    if (c.attempts - 1 > others) throw new Error(`writer ${c.writer} retried ${c.attempts - 1} times while only ${others} other commits landed`);
  }
}

function report(figures: RunFigure[]): void {
  console.log(`\n## ${COMMITS} commits per writer of ${CHUNKS} chunks each, ${LATENCY} ± ${JITTER} ms per request, at most ${TRIES} attempts per commit\n`);
  printTable(
    ['chunks', 'writers', 'commits/s', 'retries / commit', 'p50 commit ms', 'p99 commit ms', 'most attempts, one commit', 'retries per writer (min–max)', 'writer finish (fastest–median–slowest) s', 'slowest / median', 'requests / commit', 'load after'],
    figures.map((f) => [
      f.mode, String(f.writers), (f.commits / (f.wallMs / 1000)).toFixed(2), f.retriesPerCommit.toFixed(2), fmtMs(f.p50), fmtMs(f.p99),
      String(f.maxAttempts), `${f.minWriterRetries}–${f.maxWriterRetries}`,
      `${(f.fastestMs / 1000).toFixed(1)}–${(f.medianMs / 1000).toFixed(1)}–${(f.slowestMs / 1000).toFixed(1)}`, (f.slowestMs / f.medianMs).toFixed(2),
      f.requestsPerCommit.toFixed(1), f.load,
    ]),
    ['l'],
  );
}

/** The machine's `uptime` line (load averages), where the command exists. */
function uptime(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average ${loadAverage()}`;
  }
}

async function main(): Promise<void> {
  console.log(`uptime before: ${uptime()}`);
  console.log(`# bench/scale-writers.ts — ${os.cpus().length} cores, Node ${process.version}, load average ${loadAverage()}`);
  const figures: RunFigure[] = [];
  for (const mode of opts.modes.split(',') as Mode[]) {
    for (const writers of opts.writers.split(',').map(Number)) {
      const figure = await run(mode, writers, Number(opts.seed));
      console.error(`  ${mode} ${writers}: ${(figure.wallMs / 1000).toFixed(1)} s, ${figure.retriesPerCommit.toFixed(2)} retries/commit (load ${figure.load})`);
      figures.push(figure);
    }
  }
  report(figures);
  const worst = Math.max(...figures.map((f) => f.maxAttempts));
  const bound = Math.max(...figures.map((f) => (f.writers - 1) * COMMITS + 1));
  console.log(`\nNo writer starved: every writer finished all ${COMMITS} commits in every run, no commit retried more often than other commits landed while it ran, and the most attempts any one commit needed was ${worst} (bound (N − 1)·${COMMITS} + 1 = ${bound} at the most writers; limit ${TRIES}).`);
  console.log(`uptime after: ${uptime()}`);
}

await main();
