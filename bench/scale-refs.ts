// Scale run (issue 19, item 5): one array with 10^5 .. 10^7 (and once 10^8) chunk refs through
// manifest splitting.
//
//   npx tsx bench/scale-refs.ts [--sizes 100000,1000000,10000000] [--huge 100000000] [--huge-parts 10]
//        [--single 17000000] [--split-rows 100] [--heap-mb 12000] [--cold 3] [--profile]
//
// The array is rows x 1000 chunks of one int32 each (chunk [r, c] holds r*1000+c), native refs
// into shared pack objects (inline threshold 0), split by the config into manifests of
// --split-rows rows (10^5 refs each), on the local filesystem (not durable). Per size, each phase
// in a fresh child process with its own peak RSS (VmHWM reset before the step):
//   build    a session sets every chunk through session.store.set (timed: sets) and commits
//            (timed: commit); with --huge-parts P the refs go in P commits of disjoint rows, each
//            a session of its own (a commit reuses the manifests of the rows it does not touch)
//   read     a cold process opens the repository and reads one chunk (middle of the grid);
//            --cold processes, the median
//   rewrite  a cold process rewrites one chunk and commits: one split's manifest is written, the
//            others are reused (the files that appear under manifests/ are counted); --cold
//            processes in turn, the median
// --profile: a CPU profile of each build commit; its top self-time functions are printed.
// --huge N runs the same at N refs once, in --huge-parts commits (not part of the growth fit).
// --single N: one session sets N chunks and commits once, past a JS Map's 2^24 entries, and
// reports where it stops (the change set keeps going past 2^24: src/txn/change-set.ts).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { topFunctions } from './support/cpuprofile-top.ts';
import { median } from './support/probe-runner.ts';
import { Repository, Storage, type RepositoryConfig } from '../src/txn/index.ts';
import { fmtMs, growth, loadAverage, measured, mib, printTable, runChild, type StepFigure } from './support/scale-run.ts';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000,10000000' },
    huge: { type: 'string', default: '' },
    'huge-parts': { type: 'string', default: '10' },
    single: { type: 'string', default: '' },
    'split-rows': { type: 'string', default: '100' },
    'heap-mb': { type: 'string', default: '12000' },
    profile: { type: 'boolean', default: false },
    cold: { type: 'string', default: '3' },
    // child side
    phase: { type: 'string' },
    size: { type: 'string' },
    parts: { type: 'string', default: '1' },
    dir: { type: 'string' },
  },
});
const SELF = fileURLToPath(import.meta.url);
const COLS = 1000;
const SPLIT_ROWS = Number(opts['split-rows']);

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const arrayMetadata = (rows: number) => json({
  zarr_format: 3, node_type: 'array', shape: [rows, COLS], data_type: 'int32', fill_value: 0, attributes: {},
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, 1] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
});
const config: RepositoryConfig = {
  inlineChunkThresholdBytes: 0,
  manifest: { splitting: { split_sizes: [['any_array', [{ condition: { Axis: 0 }, num_chunks: SPLIT_ROWS }]]] } },
};
const storageAt = (dir: string) => Storage.fromObjectStorage(new FsStorage({ root: dir, durable: false }));
const rowsFor = (refs: number) => Math.ceil(refs / COLS);
const valueAt = (r: number, c: number) => r * COLS + c;
const chunkKey = (r: number, c: number) => `a/c/${r}/${c}`;
const progress = (text: string) => process.stderr.write(`    [${new Date().toISOString().slice(11, 19)} load ${loadAverage()}] ${text}\n`);

/** Chunks set so far in this process (so a failing run can say how far it got). */
let setsSoFar = 0;

/** Sets chunks of rows [from, to) in one session, one awaited set each (a 4-byte buffer reused). */
async function setRows(session: Awaited<ReturnType<Repository['writableSession']>>, from: number, to: number): Promise<void> {
  const value = new Int32Array(1);
  const bytes = new Uint8Array(value.buffer);
  for (let r = from; r < to; r++) {
    for (let c = 0; c < COLS; c++) {
      value[0] = valueAt(r, c);
      await session.store.set(chunkKey(r, c), bytes);
      setsSoFar++;
    }
    if ((r + 1) % 1000 === 0) progress(`set rows ${from}..${r + 1} of ${to}`);
  }
}

interface BuildResult {
  phase: 'build';
  refs: number;
  parts: { sets: StepFigure; commit: StepFigure; profile?: string }[];
  manifests: number;
  manifestBytes: number;
  heapLimitMb: number;
}

async function build(dir: string, refs: number, parts: number): Promise<BuildResult> {
  const rows = rowsFor(refs);
  const repo = await Repository.create(storageAt(dir), config);
  const setup = await repo.writableSession('main');
  await setup.store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await setup.store.set('a/zarr.json', arrayMetadata(rows));
  await setup.commit('array');
  // Parts cut the rows at split boundaries, so each commit writes whole splits of its own.
  const splits = Math.ceil(rows / SPLIT_ROWS);
  const out: BuildResult['parts'] = [];
  for (let p = 0; p < parts; p++) {
    const from = Math.floor((splits * p) / parts) * SPLIT_ROWS;
    const to = Math.min(rows, Math.floor((splits * (p + 1)) / parts) * SPLIT_ROWS);
    const session = await repo.writableSession('main');
    const sets = await measured(() => setRows(session, from, to));
    progress(`part ${p + 1}/${parts}: ${(to - from) * COLS} sets in ${fmtMs(sets.figure.ms)} ms; committing`);
    const commit = await measured(() => profiled(() => session.commit(`rows ${from}..${to}`)));
    progress(`part ${p + 1}/${parts}: commit ${fmtMs(commit.figure.ms)} ms`);
    out.push({ sets: sets.figure, commit: commit.figure, ...(commit.value.top ? { profile: commit.value.top } : {}) });
  }
  const files = manifestFiles(dir);
  return {
    phase: 'build', refs: rows * COLS, parts: out, manifests: files.length, manifestBytes: files.reduce((s, f) => s + f.size, 0),
    heapLimitMb: v8.getHeapStatistics().heap_size_limit / 2 ** 20,
  };
}

/** Runs `step`, under the CPU profiler with --profile: then also its top self-time functions. */
async function profiled<T>(step: () => Promise<T>): Promise<{ value: T; top?: string }> {
  if (!opts.profile) return { value: await step() };
  const { Session } = await import('node:inspector/promises');
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  const value = await step();
  const { profile } = await inspector.post('Profiler.stop');
  inspector.disconnect();
  const file = path.join(os.tmpdir(), `floe-scale-refs-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const { totalMs, top } = topFunctions([file], 12);
  rmSync(file, { force: true });
  const lines = top.map((f) => `  ${f.selfMs.toFixed(0).padStart(7)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name} ${f.where}`);
  return { value, top: [`  ${totalMs.toFixed(0)} ms of samples`, ...lines].join('\n') };
}

function manifestFiles(dir: string): { name: string; size: number }[] {
  const at = path.join(dir, 'manifests');
  return readdirSync(at).map((name) => ({ name, size: statSync(path.join(at, name)).size }));
}

/** The chunk the read and rewrite phases use: the middle of the grid. */
const probeChunk = (refs: number): [number, number] => [Math.floor(rowsFor(refs) / 2), COLS / 2 + 1];

async function readOne(session: Awaited<ReturnType<Repository['readonlySession']>>, r: number, c: number): Promise<number> {
  const bytes = await session.store.get(chunkKey(r, c));
  if (!bytes || bytes.length !== 4) throw new Error(`chunk [${r}, ${c}] missing or not 4 bytes`);
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
}

interface ReadResult {
  phase: 'read';
  open: StepFigure;
  read: StepFigure;
}

async function readCold(dir: string, refs: number): Promise<ReadResult> {
  const [r, c] = probeChunk(refs);
  const opened = await measured(async () => {
    const repo = await Repository.open(storageAt(dir));
    return repo.readonlySession({ branch: 'main' });
  });
  const read = await measured(() => readOne(opened.value, r, c));
  if (read.value !== valueAt(r, c)) throw new Error(`chunk [${r}, ${c}] holds ${read.value}, expected ${valueAt(r, c)}`);
  return { phase: 'read', open: opened.figure, read: read.figure };
}

interface RewriteResult {
  phase: 'rewrite';
  commit: StepFigure;
  manifestsWritten: number;
  bytesWritten: number;
}

async function rewriteOne(dir: string, refs: number): Promise<RewriteResult> {
  const [r, c] = probeChunk(refs);
  const before = new Set(manifestFiles(dir).map((f) => f.name));
  const repo = await Repository.open(storageAt(dir));
  const commit = await measured(async () => {
    const session = await repo.writableSession('main');
    await session.store.set(chunkKey(r, c), new Uint8Array(Int32Array.of(-1).buffer));
    return session.commit('one chunk');
  });
  const fresh = manifestFiles(dir).filter((f) => !before.has(f.name));
  const check = await Repository.open(storageAt(dir));
  if ((await readOne(await check.readonlySession({ branch: 'main' }), r, c)) !== -1) throw new Error('the rewritten chunk does not read back');
  return { phase: 'rewrite', commit: commit.figure, manifestsWritten: fresh.length, bytesWritten: fresh.reduce((s, f) => s + f.size, 0) };
}

interface SingleResult {
  phase: 'single';
  target: number;
  setsDone: number;
  sets: StepFigure;
  heapUsedAfterSetsMb: number;
  commit: StepFigure | null;
  stoppedBy: string | null;
  /** After a completed commit: its manifests and their refs (from the snapshot), and one chunk read back. */
  committed?: Committed;
  /** With --profile: the commit's top self-time functions. */
  profile?: string;
}

interface Committed {
  manifests: number;
  refs: number;
  readBack: boolean;
}

/** One session, `refs` sets, one commit: where does it stop? */
async function singleSession(dir: string, refs: number): Promise<SingleResult> {
  const rows = rowsFor(refs);
  const repo = await Repository.create(storageAt(dir), config);
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await session.store.set('a/zarr.json', arrayMetadata(rows));
  let stoppedBy: string | null = null;
  const sets = await measured(async () => {
    try {
      await setRows(session, 0, rows);
    } catch (err) {
      stoppedBy = `set number ${setsSoFar + 1}: ${err instanceof Error ? `${err.constructor.name}: ${err.message}\n${err.stack?.split('\n').slice(1, 4).join('\n')}` : String(err)}`;
    }
  });
  const setsDone = setsSoFar;
  if (stoppedBy !== null) return { phase: 'single', target: refs, setsDone, sets: sets.figure, heapUsedAfterSetsMb: process.memoryUsage().heapUsed / 2 ** 20, commit: null, stoppedBy };
  const heapUsedAfterSetsMb = process.memoryUsage().heapUsed / 2 ** 20;
  progress(`${setsDone} sets done (heap ${heapUsedAfterSetsMb.toFixed(0)} MiB); committing`);
  let profile: string | undefined;
  const commit = await measured(async () => {
    try {
      profile = (await profiled(() => session.commit('all in one'))).top;
    } catch (err) {
      stoppedBy = `commit: ${err instanceof Error ? `${err.constructor.name}: ${err.message}\n${err.stack?.split('\n').slice(1, 6).join('\n')}` : String(err)}`;
    }
  });
  if (stoppedBy !== null) return { phase: 'single', target: refs, setsDone, sets: sets.figure, heapUsedAfterSetsMb, commit: commit.figure, stoppedBy };
  return {
    phase: 'single', target: refs, setsDone, sets: sets.figure, heapUsedAfterSetsMb, commit: commit.figure, stoppedBy,
    committed: await checkCommitted(repo, refs), ...(profile ? { profile } : {}),
  };
}

/** What the commit of `singleSession` wrote: manifests and refs by the snapshot, and the middle chunk read back. */
async function checkCommitted(repo: Repository, refs: number): Promise<Committed> {
  const session = await repo.readonlySession({ branch: 'main' });
  const files = session.baseSnapshot.snapshot.manifestFiles;
  const [r, c] = probeChunk(refs);
  return { manifests: files.length, refs: files.reduce((sum, f) => sum + f.numChunkRefs, 0), readBack: (await readOne(session, r, c)) === valueAt(r, c) };
}

// ---- parent --------------------------------------------------------------------------------------
interface SizeRun {
  refs: number;
  build: BuildResult;
  read: ReadResult;
  /** Manifests the snapshot still references unchanged: those of the build minus the one rewritten. */
  rewrite: RewriteResult & { manifestsReused: number };
  load: string;
}

function runSize(refs: number, parts: number): SizeRun {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-scale-refs-'));
  const nodeArgs = [`--max-old-space-size=${opts['heap-mb']}`];
  const common = ['--size', String(refs), '--dir', dir, '--split-rows', String(SPLIT_ROWS), ...(opts.profile ? ['--profile'] : [])];
  try {
    console.error(`  ${refs.toLocaleString('en')} refs in ${parts} commit(s): build (load ${loadAverage()})`);
    const build = runChild<BuildResult>(SELF, ['--phase', 'build', '--parts', String(parts), ...common], { nodeArgs });
    const cold = Number(opts.cold);
    const reads = Array.from({ length: cold }, () => runChild<ReadResult>(SELF, ['--phase', 'read', ...common], { nodeArgs }));
    const rewrites = Array.from({ length: cold }, () => runChild<RewriteResult>(SELF, ['--phase', 'rewrite', ...common], { nodeArgs }));
    const read = { phase: 'read' as const, open: medianFigure(reads.map((r) => r.open)), read: medianFigure(reads.map((r) => r.read)) };
    const last = rewrites[rewrites.length - 1];
    if (!last) throw new Error('--cold must be at least 1');
    const rewrite = { ...last, commit: medianFigure(rewrites.map((r) => r.commit)), manifestsReused: build.manifests - last.manifestsWritten };
    return { refs, build, read, rewrite, load: loadAverage() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figure of median time (peak: the highest of them). */
function medianFigure(figures: readonly StepFigure[]): StepFigure {
  const mid = median(figures.map((f) => f.ms));
  const pick = figures.reduce((best, f) => (Math.abs(f.ms - mid) < Math.abs(best.ms - mid) ? f : best));
  return { ...pick, ms: mid, peakBytes: Math.max(...figures.map((f) => f.peakBytes)) };
}

const cell = (f: StepFigure) => `${fmtMs(f.ms)} · ${fmtMs(f.cpuMs)} · ${mib(f.peakBytes)}`;
const sum = (figures: StepFigure[]) => figures.reduce((s, f) => s + f.ms, 0);
const sumCpu = (figures: StepFigure[]) => figures.reduce((s, f) => s + f.cpuMs, 0);
const maxPeak = (figures: StepFigure[]) => Math.max(...figures.map((f) => f.peakBytes));

function report(runs: SizeRun[], title: string, fit: boolean): void {
  console.log(`\n## ${title} (wall ms · CPU ms · peak RSS MiB of the process during the step)\n`);
  const sizes = runs.map((r) => r.refs);
  const header = ['step', ...runs.map((r) => `${r.refs.toLocaleString('en')} refs`), ...(fit ? ['growth (CPU time)'] : [])];
  const setsOf = (r: SizeRun) => r.build.parts.map((p) => p.sets);
  const commitsOf = (r: SizeRun) => r.build.parts.map((p) => p.commit);
  const rows: string[][] = [
    ['set every chunk (session.store.set)', ...runs.map((r) => `${fmtMs(sum(setsOf(r)))} · ${fmtMs(sumCpu(setsOf(r)))} · ${mib(maxPeak(setsOf(r)))}`)],
    ['commit them', ...runs.map((r) => `${fmtMs(sum(commitsOf(r)))} · ${fmtMs(sumCpu(commitsOf(r)))} · ${mib(maxPeak(commitsOf(r)))}`)],
    ['cold process: open + session', ...runs.map((r) => cell(r.read.open))],
    ['cold process: read one chunk', ...runs.map((r) => cell(r.read.read))],
    ['rewrite one chunk + commit', ...runs.map((r) => cell(r.rewrite.commit))],
  ];
  if (fit) {
    const costs = [(r: SizeRun) => sumCpu(setsOf(r)), (r: SizeRun) => sumCpu(commitsOf(r)), (r: SizeRun) => r.read.open.cpuMs, (r: SizeRun) => r.read.read.cpuMs, (r: SizeRun) => r.rewrite.commit.cpuMs];
    rows.forEach((row, i) => row.push(growth(sizes, runs.map(costs[i] ?? (() => 0)), 'ref')));
    const rise = (r: SizeRun) => Math.max(...commitsOf(r).map((f) => f.peakBytes - f.rssBeforeBytes));
    rows.push(['commit: peak RSS − RSS before it (MiB)', ...runs.map((r) => mib(rise(r))), growth(sizes, runs.map((r) => rise(r) / 2 ** 20), 'ref', 'MiB')]);
  }
  const blank = fit ? [''] : [];
  rows.push(['commits to build', ...runs.map((r) => String(r.build.parts.length)), ...blank]);
  rows.push(['manifests (bytes per ref)', ...runs.map((r) => `${r.build.manifests} (${(r.build.manifestBytes / r.refs).toFixed(2)})`), ...blank]);
  rows.push(['rewrite: manifests written / reused, bytes written', ...runs.map((r) => `${r.rewrite.manifestsWritten} / ${r.rewrite.manifestsReused}, ${r.rewrite.bytesWritten.toLocaleString('en')}`), ...blank]);
  rows.push(['load average after', ...runs.map((r) => r.load), ...blank]);
  printTable(header, rows, ['l']);
  for (const r of runs) {
    for (const [p, part] of r.build.parts.entries()) {
      if (part.profile) console.log(`\nCPU profile of the commit of ${r.refs.toLocaleString('en')} refs${r.build.parts.length > 1 ? ` (part ${p + 1})` : ''}, top self time:\n${part.profile}`);
    }
  }
}

async function childMain(): Promise<unknown> {
  const dir = opts.dir ?? '';
  const refs = Number(opts.size);
  switch (opts.phase) {
    case 'build':
      return build(dir, refs, Number(opts.parts));
    case 'read':
      return readCold(dir, refs);
    case 'rewrite':
      return rewriteOne(dir, refs);
    case 'single':
      return singleSession(dir, refs);
    default:
      throw new Error(`unknown phase ${opts.phase}`);
  }
}

async function main(): Promise<void> {
  if (opts.phase) {
    process.stdout.write(JSON.stringify(await childMain()) + '\n');
    return;
  }
  console.log(`# bench/scale-refs.ts — ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${loadAverage()}; ${COLS} chunks per row, ${SPLIT_ROWS} rows (${(SPLIT_ROWS * COLS).toLocaleString('en')} refs) per split; heap limit ${opts['heap-mb']} MB`);
  const sizes = opts.sizes.split(',').filter(Boolean).map(Number);
  if (sizes.length > 0) report(sizes.map((n) => runSize(n, 1)), 'Chunk refs through manifest splitting, one commit each', true);
  if (opts.huge) report([runSize(Number(opts.huge), Number(opts['huge-parts']))], `${Number(opts.huge).toLocaleString('en')} refs, once`, false);
  if (opts.single) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-scale-single-'));
    try {
      const got = runChild<SingleResult>(SELF, ['--phase', 'single', '--size', opts.single, '--dir', dir, ...(opts.profile ? ['--profile'] : [])], { nodeArgs: [`--max-old-space-size=${opts['heap-mb']}`] });
      console.log(`\n## One session, ${got.target.toLocaleString('en')} sets, one commit (load ${loadAverage()})\n`);
      console.log(`sets done: ${got.setsDone.toLocaleString('en')} in ${fmtMs(got.sets.ms)} ms (peak RSS ${mib(got.sets.peakBytes)} MiB, heap used after ${got.heapUsedAfterSetsMb.toFixed(0)} MiB = ${((got.heapUsedAfterSetsMb * 2 ** 20) / Math.max(1, got.setsDone)).toFixed(0)} B per change)`);
      if (got.commit) console.log(`commit: ${fmtMs(got.commit.ms)} ms wall, ${fmtMs(got.commit.cpuMs)} ms CPU, peak RSS ${mib(got.commit.peakBytes)} MiB (RSS before it ${mib(got.commit.rssBeforeBytes)} MiB)`);
      if (got.committed) console.log(`committed: ${got.committed.manifests} manifests holding ${got.committed.refs.toLocaleString('en')} refs; middle chunk reads back: ${got.committed.readBack}`);
      console.log(`stopped by: ${got.stoppedBy ?? 'nothing (completed)'}`);
      if (got.profile) console.log(`\nCPU profile of the commit, top self time:\n${got.profile}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
