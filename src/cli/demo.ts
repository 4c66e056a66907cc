// `floe demo`: the tour the README's first command runs. It creates a repository on the embedded
// default (a local directory), lays out a year of gridded temperature, writes it from several
// concurrent writers that rebase when another commits first (one of them splitting its work
// across forks it merges), tags a release, checks what it reads back, and runs a declarative
// query with its plan — printing each step with its timing.
import { existsSync, rmSync } from 'node:fs';
import { floeError } from '../errors.ts';
import { ZarrArray } from '../engine/array.ts';
import { ZarrGroup } from '../engine/group.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { slice } from '../engine/selection.ts';
import { query } from '../query/builder.ts';
import { ConflictDetector, Repository, Storage, type ConflictSolver, type Session } from '../txn/index.ts';
import type { CommandContext, CommandSpec } from './command.ts';
import { boxSize, DEMO_GRIDS, days, fillBox, latitudes, longitudes, TIME_UNITS, type Box, type DemoGrid } from './demo-dataset.ts';
import { formatBytes } from './node-summary.ts';
import { Progress } from './progress.ts';

const TEMPERATURE = '/climate/temperature';
/** Written to the repository's metadata so a re-run may replace the demo's own repository, and nothing else. */
const DEMO_MARK = 'floe_demo';

export const demoCommand: CommandSpec = {
  usage: '[--small]',
  details: [
    'Writes ./floe-demo.icechunk (or --repo); a repository an earlier demo made is replaced, any other is left alone.',
    '--small   a 5-degree grid (3.8 MB) instead of 0.5 degrees (378 MB), for a quick look',
  ].join('\n'),
  examples: ['floe demo', 'floe demo --repo /tmp/demo.icechunk --small'],
  options: { small: { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(0);
    const grid: DemoGrid = ctx.flags.small ? DEMO_GRIDS.small : DEMO_GRIDS.full;
    const step = stepper(ctx);
    const location = ctx.repoPath;
    if (location.includes('://')) throw floeError('UNSUPPORTED', 'the demo writes a local directory; pass --repo PATH');

    const request = ctx.request; // Ctrl-C stops each step cleanly (ABORTED)
    await clearPreviousDemo(location);
    const repo = await Repository.create(Storage.newLocalFilesystem(location), {}, 2, {}, request);
    await repo.setMetadata({ [DEMO_MARK]: true }, request);
    step(`created a repository at ${location} (local filesystem, Icechunk spec 2)`);

    const layout = await writeLayout(repo, grid, request);
    step(`committed the layout ${layout}: ${TEMPERATURE} float32 [${grid.time}, ${grid.lat}, ${grid.lon}] (time, lat, lon), shards [${grid.shard.join(', ')}] of inner chunks [${grid.inner.join(', ')}], zstd; coordinates time, lat, lon`);

    const written = await writeConcurrently(ctx, repo, grid);
    step(`${written.writers} writers committed concurrently: ${formatBytes(written.bytes)} of float32 in ${written.commits} commits, ${written.rebases} rebases over commits that landed first (one writer split its slab across ${written.forks} forks and merged them)`);

    const tip = await repo.lookupBranch('main', request);
    await repo.createTag('v1.0', tip, request);
    step(`tagged ${tip} as v1.0`);

    const check = await verify(repo, grid, request);
    step(`read day ${check.day} back from v1.0: ${check.values} values, all equal to what was written`);

    const corrected = await correctOnBranch(repo, grid, request);
    step(`branch "qc" from v1.0: set a bad day to NaN and committed ${corrected}; main and v1.0 are unchanged`);

    const ran = await runQuery(repo, request);
    step(`explained and ran a query on v1.0:\n${indent(ran.text)}`);

    const size = await directorySize(location);
    step(`done: ${formatBytes(size)} on disk. Try: floe log, floe ls, floe cat 'v1.0:${TEMPERATURE}[0, :3, :4]', floe plot 'v1.0:${TEMPERATURE}[180]', floe serve`);
  },
};

async function clearPreviousDemo(location: string): Promise<void> {
  if (!existsSync(location)) return;
  const storage = Storage.newLocalFilesystem(location);
  if (!(await Repository.exists(storage))) {
    throw floeError('ALREADY_EXISTS', `${location} exists and is not a Floe repository; pass --repo with another path`);
  }
  const metadata = await (await Repository.open(storage)).getMetadata();
  if (metadata[DEMO_MARK] !== true) throw floeError('ALREADY_EXISTS', `${location} is a repository the demo did not create; pass --repo with another path`);
  rmSync(location, { recursive: true, force: true });
}

async function writeLayout(repo: Repository, grid: DemoGrid, request: AbortOptions): Promise<string> {
  const session = await repo.writableSession('main', request);
  const store = session.store;
  await ZarrGroup.create(store, '/', { attributes: { title: 'Floe demo: synthetic daily near-surface temperature, 2024' } });
  await ZarrGroup.create(store, '/climate', { attributes: { Conventions: 'CF-1.8' } });
  const coordinate = async (name: string, values: Float64Array, attributes: Record<string, string>) => {
    const a = await ZarrArray.create(store, `/climate/${name}`, { shape: [values.length], chunkShape: [values.length], dataType: 'float64', dimensionNames: [name], attributes });
    await a.set(undefined, values);
  };
  await coordinate('time', days(grid), { units: TIME_UNITS, calendar: 'proleptic_gregorian', standard_name: 'time' });
  await coordinate('lat', latitudes(grid), { units: 'degrees_north', standard_name: 'latitude' });
  await coordinate('lon', longitudes(grid), { units: 'degrees_east', standard_name: 'longitude' });
  await ZarrArray.create(store, TEMPERATURE, {
    shape: [grid.time, grid.lat, grid.lon],
    chunkShape: [...grid.shard],
    dataType: 'float32',
    fillValue: 'NaN',
    dimensionNames: ['time', 'lat', 'lon'],
    attributes: { units: 'K', standard_name: 'air_temperature', long_name: 'near-surface air temperature' },
    codecs: [{
      name: 'sharding_indexed',
      configuration: {
        chunk_shape: [...grid.inner],
        codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
        index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
      },
    }],
  });
  return session.commit('layout: coordinates and an empty temperature array', { ...request });
}

/** Counts the commits each rebase replays over, passing the decision to the conflict detector. */
class CountingSolver implements ConflictSolver {
  replayed = 0;
  private readonly inner = new ConflictDetector();
  solve(input: Parameters<ConflictSolver['solve']>[0]) {
    this.replayed++;
    return this.inner.solve(input);
  }
}

/** The shards of one time slab, as boxes. */
function shardBoxes(grid: DemoGrid, slab: number): Box[] {
  const [st, sy, sx] = grid.shard;
  const boxes: Box[] = [];
  for (let y = 0; y < grid.lat; y += sy) {
    for (let x = 0; x < grid.lon; x += sx) boxes.push([[slab * st, Math.min(grid.time, (slab + 1) * st)], [y, Math.min(grid.lat, y + sy)], [x, Math.min(grid.lon, x + sx)]]);
  }
  return boxes;
}

async function writeBoxes(session: Session, grid: DemoGrid, boxes: Box[], progress: Progress, request: AbortOptions): Promise<void> {
  const array = await ZarrArray.open(session.store, TEMPERATURE, request);
  for (const box of boxes) {
    // One shard at a time: each box is exactly one shard, so nothing is read back and memory stays at one shard.
    const data = new Float32Array(boxSize(box));
    fillBox(grid, box, data);
    await array.set(box.map(([a, b]) => slice(a, b)), data, { ...request });
    progress.add(data.byteLength);
  }
}

/**
 * One writer per 73-day slab, all starting from the same snapshot and committing at once: all but
 * the first find main moved and rebase over the commits that landed (disjoint chunks, so the
 * detector finds no conflicts). The last writer forks its session in two and merges the forks.
 */
async function writeConcurrently(ctx: CommandContext, repo: Repository, grid: DemoGrid) {
  const slabs = Math.ceil(grid.time / grid.shard[0]);
  const total = grid.time * grid.lat * grid.lon * 4;
  const progress = new Progress({ label: 'writing', total, unit: 'bytes', stream: ctx.io.stderr, now: () => ctx.now() });
  const solver = new CountingSolver();
  const request = ctx.request;
  const sessions = await Promise.all(Array.from({ length: slabs }, () => repo.writableSession('main', request)));
  const forks = 2;
  await Promise.all(
    sessions.map(async (session, slab) => {
      const boxes = shardBoxes(grid, slab);
      if (slab === slabs - 1) {
        const parts = Array.from({ length: forks }, () => session.fork());
        await Promise.all(parts.map((fork, i) => writeBoxes(fork, grid, boxes.filter((_, k) => k % forks === i), progress, request)));
        await session.merge(...parts);
      } else {
        await writeBoxes(session, grid, boxes, progress, request);
      }
      await session.commit(`days ${slab * grid.shard[0]}-${Math.min(grid.time, (slab + 1) * grid.shard[0]) - 1}`, { rebaseWith: solver, ...request });
    }),
  );
  progress.finish();
  return { writers: slabs, bytes: total, commits: slabs, rebases: solver.replayed, forks };
}

async function verify(repo: Repository, grid: DemoGrid, request: AbortOptions) {
  const session = await repo.readonlySession({ tag: 'v1.0', ...request });
  const array = await ZarrArray.open(session.store, TEMPERATURE, request);
  const day = 200;
  const got = (await array.get([day, null, null], { ...request })).data as Float32Array;
  const expected = new Float32Array(grid.lat * grid.lon);
  fillBox(grid, [[day, day + 1], [0, grid.lat], [0, grid.lon]], expected);
  const bad = expected.findIndex((v, i) => !Object.is(v, got[i]));
  if (bad >= 0) throw floeError('CORRUPT_OBJECT', `day ${day} read back differs at element ${bad}: wrote ${expected[bad]}, read ${got[bad]}`);
  return { day, values: got.length };
}

async function correctOnBranch(repo: Repository, grid: DemoGrid, request: AbortOptions): Promise<string> {
  await repo.createBranch('qc', await repo.lookupTag('v1.0', request), request);
  const session = await repo.writableSession('qc', request);
  const array = await ZarrArray.open(session.store, TEMPERATURE, request);
  await array.set([17, null, null], NaN, { ...request });
  void grid;
  return session.commit('qc: day 17 failed quality control', { ...request });
}

async function runQuery(repo: Repository, request: AbortOptions) {
  const session = await repo.readonlySession({ tag: 'v1.0', ...request });
  const q = query(session, { ...request })
    .from(TEMPERATURE, 'float32')
    .where('time', 'between', [new Date('2024-07-01T00:00:00Z'), new Date('2024-07-07T00:00:00Z')])
    .where('lat', 'between', [35, 60])
    .where('lon', 'between', [-10, 30]);
  const explained = await q.explain();
  const result = await q.execute();
  let sum = 0;
  let n = 0;
  for (const v of result.data) if (!Number.isNaN(v)) (sum += v), n++;
  const r = result.report;
  const text = [
    explained.text,
    `result [${result.shape.join(', ')}], mean ${(sum / n - 273.15).toFixed(2)} °C; fetched ${r.total.requests} requests, ${formatBytes(r.total.bytes)} in ${r.elapsedMs.toFixed(0)} ms`,
  ].join('\n');
  return { text };
}

async function directorySize(dir: string): Promise<number> {
  const { readdir, stat } = await import('node:fs/promises');
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(`${entry.parentPath}/${entry.name}`)).size;
  }
  return total;
}

const indent = (text: string) => text.replace(/^/gm, '      ');

function stepper(ctx: CommandContext): (what: string) => void {
  const start = ctx.now();
  let last = start;
  let n = 0;
  return (what) => {
    const now = ctx.now();
    ctx.print(`${String(++n).padStart(2)}. ${what}  (${((now - last) / 1000).toFixed(2)} s${n > 1 ? `, total ${((now - start) / 1000).toFixed(1)} s` : ''})`);
    last = now;
  };
}
