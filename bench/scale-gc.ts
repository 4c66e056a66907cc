// Scale run (issue 19, item 5): garbage collection over 10^5 .. 10^7 objects, memory bounded.
//
//   npx tsx bench/scale-gc.ts [--garbage 100000,1000000,10000000] [--live 10000] [--live-check 100000]
//
// A real repository in memory holds --live chunk objects (one int32 array, a chunk object each,
// all referenced by the one commit); a storage wrapper (bench/support/synthetic-listing-storage.ts)
// adds --garbage chunk objects that exist only as listing entries, older than the cutoff and
// referenced by nothing. Per size, in a fresh child process, each with its peak RSS (VmHWM reset
// before the step):
//   list   the chunks/ listing alone, counted (what the storage side costs)
//   gc     Repository.garbageCollect (mark, then the sweep deleting in batches)
// Checked: every garbage key deleted exactly once, no live object deleted.
// The memory bound: GC keeps the live set (keys of what the kept snapshots need) and at most
// maxConcurrentDeletes (4) batches in flight plus one filling, of deleteBatchSize (1,000) keys;
// nothing grows with the number of objects scanned. The run shows it: the peak stays flat as
// --garbage grows 100x, and moves with --live (--live-check runs one size with more live objects).
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MemoryStorage } from '../src/engine/storage/memory.ts';
import { PREFIXES } from '../src/format/icechunk/keys.ts';
import { Repository } from '../src/txn/index.ts';
import { fmtMs, growth, loadAverage, measured, mib, printTable, runChild, type StepFigure } from './support/scale-run.ts';
import { SyntheticListingStorage } from './support/synthetic-listing-storage.ts';

const { values: opts } = parseArgs({
  options: {
    garbage: { type: 'string', default: '100000,1000000,10000000' },
    live: { type: 'string', default: '10000' },
    'live-check': { type: 'string', default: '100000' },
    child: { type: 'boolean', default: false },
  },
});
const SELF = fileURLToPath(import.meta.url);

interface GcRun {
  garbage: number;
  live: number;
  list: StepFigure;
  listed: number;
  gc: StepFigure;
  scanned: number;
  deleted: number;
  heapUsedAfterMb: number;
  load: string;
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** A repository whose one commit references `live` chunk objects of their own. */
async function liveRepository(live: number): Promise<MemoryStorage> {
  const inner = new MemoryStorage();
  const repo = await Repository.create(inner, { inlineChunkThresholdBytes: 1 }, 2, {}, { chunkPacking: false });
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await session.store.set('a/zarr.json', json({
    zarr_format: 3, node_type: 'array', shape: [live], data_type: 'int32', fill_value: 0, attributes: {},
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [1] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
  }));
  for (let i = 0; i < live; i++) await session.store.set(`a/c/${i}`, new Uint8Array(Int32Array.of(i + 1).buffer));
  await session.commit('live chunks');
  return inner;
}

async function countKeys(storage: MemoryStorage | SyntheticListingStorage, prefix: string): Promise<number> {
  let n = 0;
  for await (const _ of storage.list(prefix)) n++;
  return n;
}

async function child(garbage: number, live: number): Promise<GcRun> {
  const inner = await liveRepository(live);
  const liveChunks = await countKeys(inner, PREFIXES.chunks);
  if (liveChunks !== live) throw new Error(`expected ${live} live chunk objects, found ${liveChunks}`);
  const storage = new SyntheticListingStorage(inner, garbage);
  const list = await measured(() => countKeys(storage, PREFIXES.chunks));
  if (list.value !== garbage + live) throw new Error(`listing gave ${list.value}, expected ${garbage + live}`);
  const repo = await Repository.open(storage);
  await new Promise((resolve) => setTimeout(resolve, 5)); // the live objects are then older than the cutoff too
  const cutoff = new Date();
  // One writer, finished: the short grace is safe here.
  const gc = await measured(() => repo.garbageCollect(cutoff, { allowShortGrace: true }));
  const heapUsedAfterMb = process.memoryUsage().heapUsed / 2 ** 20;
  const summary = gc.value;
  if (storage.deleted !== garbage || storage.deletedTwice !== 0) throw new Error(`GC deleted ${storage.deleted} of ${garbage} garbage keys (${storage.deletedTwice} twice)`);
  if (storage.realDeleted.some((k) => k.startsWith(PREFIXES.chunks))) throw new Error('GC deleted a live chunk');
  if ((await countKeys(inner, PREFIXES.chunks)) !== live) throw new Error('live chunks changed');
  if (summary.deleted.chunks.objects !== garbage) throw new Error(`summary says ${summary.deleted.chunks.objects} chunks deleted, expected ${garbage}`);
  return { garbage, live, list: list.figure, listed: list.value, gc: gc.figure, scanned: summary.scanned, deleted: storage.deleted, heapUsedAfterMb, load: loadAverage() };
}

function report(runs: GcRun[], live: number, check: GcRun | undefined): void {
  console.log(`\n## GC over a synthetic listing: ${live.toLocaleString('en')} live chunk objects, garbage growing (fresh process per size)\n`);
  const header = ['', ...runs.map((r) => `${r.garbage.toLocaleString('en')} garbage`), 'growth', ...(check ? [`check: ${check.live.toLocaleString('en')} live, ${check.garbage.toLocaleString('en')} garbage`] : [])];
  const sizes = runs.map((r) => r.scanned);
  const perSecond = (n: number, f: StepFigure) => Math.round(n / (f.ms / 1000)).toLocaleString('en');
  const extra = (f: (r: GcRun) => string) => (check ? [f(check)] : []);
  const rows: string[][] = [
    ['objects scanned by GC', ...runs.map((r) => r.scanned.toLocaleString('en')), '', ...extra((r) => r.scanned.toLocaleString('en'))],
    ['GC time (ms)', ...runs.map((r) => fmtMs(r.gc.ms)), growth(sizes, runs.map((r) => r.gc.ms), 'object'), ...extra((r) => fmtMs(r.gc.ms))],
    ['GC objects/s', ...runs.map((r) => perSecond(r.scanned, r.gc)), '', ...extra((r) => perSecond(r.scanned, r.gc))],
    ['listing alone, objects/s', ...runs.map((r) => perSecond(r.listed, r.list)), '', ...extra((r) => perSecond(r.listed, r.list))],
    ['RSS before GC (MiB)', ...runs.map((r) => mib(r.gc.rssBeforeBytes)), '', ...extra((r) => mib(r.gc.rssBeforeBytes))],
    ['peak RSS during GC (MiB)', ...runs.map((r) => mib(r.gc.peakBytes)), growth(sizes, runs.map((r) => r.gc.peakBytes / 2 ** 20), 'object', 'MiB'), ...extra((r) => mib(r.gc.peakBytes))],
    ['peak − before (MiB)', ...runs.map((r) => mib(r.gc.peakBytes - r.gc.rssBeforeBytes)), '', ...extra((r) => mib(r.gc.peakBytes - r.gc.rssBeforeBytes))],
    ['heap used after GC (MiB)', ...runs.map((r) => r.heapUsedAfterMb.toFixed(0)), '', ...extra((r) => r.heapUsedAfterMb.toFixed(0))],
    ['load average after', ...runs.map((r) => r.load), '', ...extra((r) => r.load)],
  ];
  printTable(header, rows, ['l']);
}

async function main(): Promise<void> {
  if (opts.child) {
    process.stdout.write(JSON.stringify(await child(Number(opts.garbage), Number(opts.live))) + '\n');
    return;
  }
  console.log(`# bench/scale-gc.ts — ${os.cpus().length} cores, Node ${process.version}, load average ${loadAverage()}`);
  const live = Number(opts.live);
  const sizes = opts.garbage.split(',').map(Number);
  const run = (garbage: number, liveCount: number) => {
    console.error(`  ${garbage.toLocaleString('en')} garbage, ${liveCount.toLocaleString('en')} live (load ${loadAverage()})`);
    return runChild<GcRun>(SELF, ['--child', '--garbage', String(garbage), '--live', String(liveCount)]);
  };
  const runs = sizes.map((g) => run(g, live));
  const checkLive = Number(opts['live-check']);
  const middle = sizes[Math.floor(sizes.length / 2)];
  const check = checkLive > 0 && middle !== undefined ? run(middle, checkLive) : undefined;
  report(runs, live, check);
}

await main();
