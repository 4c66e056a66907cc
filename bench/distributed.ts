// Distributed writes (issue 32): BENCHMARKS.md "Issue 32". Three parts:
//
//   npx tsx bench/distributed.ts [--parts merge,ingest,sim] [--tasks 256] [--task-chunks 16]
//        [--chunk-mib 1] [--workers 1,2] [--forks 10000] [--fork-chunks 16]
//        [--sim-workers 64] [--sim-tasks 256] [--latency-ms 50] [--s3]
//
// ingest: `floe import --distributed` of a Zarr v3 store of --tasks × --task-chunks chunk objects
//   of --chunk-mib MiB (random bytes, no compression) into a repository on the local filesystem
//   (and with --s3 on a Ceph gateway started by scripts/ceph-s3.sh: FLOE_S3_ENDPOINT and keys;
//   its memstore holds 2 GiB, so --s3-tasks (32: 512 MiB a run) sizes the S3 runs),
//   with 1 and 2 `floe worker` processes started (and ready) before the import: wall time of the
//   import command, throughput, scaling efficiency (T1 / (n · Tn)).
// merge: the coordinator's end of a write of --forks forks of --fork-chunks chunks each: forks
//   parsed from JSON and revived (Session.fromFork), Session.mergeDisjoint, commit; goal < 5 s.
// sim: --sim-workers worker processes (esbuild bundle of bench/support/distributed-child.ts) and
//   the coordinator against a repository behind a storage adding --latency-ms per request, Redis
//   on loopback: --sim-tasks tasks of 16 chunks of 4 KiB; coordinator overhead per task (wall and
//   CPU) and commit latency.
// Redis: test/support/redis-server.ts (appendfsync always). Data in .bench-data/distributed/.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { distributedWrite, type WriteProgress } from '../src/distributed/index.ts';
import { ZarrArray } from '../src/engine/array.ts';
import { sleepAbortably } from '../src/engine/abort.ts';
import { systemClock } from '../src/engine/storage/clock.ts';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { wrapStorage } from '../src/engine/storage/wrap.ts';
import { slice } from '../src/engine/selection.ts';
import type { ForkJSON } from '../src/txn/fork.ts';
import { Repository, Session, Storage } from '../src/txn/index.ts';
import { bundledWorker } from '../test/support/bundled-worker.ts';
import { slowCall } from './support/slow-storage.ts';
import { startRedis, type RedisServer } from '../test/support/redis-server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    parts: { type: 'string', default: 'merge,ingest,sim' },
    tasks: { type: 'string', default: '256' },
    'task-chunks': { type: 'string', default: '16' },
    'chunk-mib': { type: 'string', default: '1' },
    workers: { type: 'string', default: '1,2' },
    forks: { type: 'string', default: '10000' },
    'fork-chunks': { type: 'string', default: '16' },
    'sim-workers': { type: 'string', default: '64' },
    'sim-tasks': { type: 'string', default: '256' },
    'latency-ms': { type: 'string', default: '50' },
    s3: { type: 'boolean', default: false },
    's3-only': { type: 'boolean', default: false },
    's3-tasks': { type: 'string', default: '32' },
  },
});
const parts = new Set(opts.parts.split(','));
const DATA = path.join(root, '.bench-data/distributed');
const MiB = 1024 * 1024;
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
const ms = (t0: number) => performance.now() - t0;
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function table(header: string[], rows: (string | number)[][]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

/** A child process whose stdout JSON lines are collected; `ready` once it printed `{"event":"ready"}`. */
function child(command: string, args: string[], env: Record<string, string> = {}): { proc: ChildProcess; ready: Promise<void>; exited: Promise<number | null>; out: () => string; err: () => string } {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/"event":\s*"ready"/.test(out)) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(-2000)}`)));
  });
  ready.catch(() => undefined);
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, ready, exited, out: () => out, err: () => err };
}

async function stop(procs: ReturnType<typeof child>[]): Promise<void> {
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) process.kill(p.proc.pid!, 'SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
}

// ---- merge + commit of many forks ----

/** `n` in Crockford base32 (the alphabet of Icechunk ids), `width` characters. */
function crockford(n: number, width: number): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let out = '';
  for (let i = 0; i < width; i++, n = Math.floor(n / 32)) out = alphabet[n % 32] + out;
  return out;
}

async function mergeBench(): Promise<void> {
  const forks = Number(opts.forks);
  const per = Number(opts['fork-chunks']);
  const dir = path.join(DATA, 'merge-repo');
  rmSync(dir, { recursive: true, force: true });
  const repo = await Repository.create(Storage.newLocalFilesystem(dir));
  const setup = await repo.writableSession('main');
  // Chunks of 4 KiB (native refs, as 1 MiB chunks would be: only their references travel).
  await ZarrArray.create(setup.store, '/a', { shape: [forks * per, 1024], chunkShape: [1, 1024], dataType: 'float32', fillValue: 0 });
  await setup.commit('create /a');
  // One real fork of `per` chunks as the template; the others are it with other coordinates and chunk ids.
  const session = await repo.writableSession('main');
  const template = session.fork();
  const array = await ZarrArray.open(template.store, '/a');
  for (let c = 0; c < per; c++) await array.set([slice(c, c + 1), slice(0, 1024)], Float32Array.from({ length: 1024 }, () => Math.random()));
  await template.packer.flush();
  const json = template.toJSON() as ForkJSON;
  const entry = json.changes.chunks[0]!;
  const texts: string[] = [];
  for (let f = 0; f < forks; f++) {
    const changes = entry.changes.map(([, ref], k) => {
      const native = ref as { kind: 'native'; chunkId: string; offset: number; length: number };
      // Another chunk id of the same form (the id's last characters varied).
      const id = native.chunkId.slice(0, 13) + crockford(f * per + k, 6) + native.chunkId.slice(19); // the last character holds padding bits
      return [`${f * per + k},0`, { ...native, chunkId: id }] as [string, unknown];
    });
    texts.push(JSON.stringify({ ...json, changes: { ...json.changes, chunks: [{ nodeId: entry.nodeId, changes }] } }));
  }
  const base = await repo.readonlySession({ snapshotId: json.snapshotId });
  const opener = { readonlySession: async () => base };
  const step = async <T>(run: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const value = await run();
    const c = process.cpuUsage(c0);
    return { value, wall: ms(t0), cpu: (c.user + c.system) / 1000 };
  };
  const revive = await step(async () => {
    const revived = [];
    for (let f = 0; f < forks; f++) revived.push({ owner: `task ${f}`, fork: await Session.fromFork(opener, texts[f]!) }); // text, parsed as the coordinator parses it
    return revived;
  });
  const target = await repo.writableSession('main');
  const merge = await step(() => target.mergeDisjoint(revive.value));
  const commit = await step(() => target.commit(`merge ${forks} forks`, { commitKey: 'bench-merge', allowEmpty: true }));
  const id = commit.value;
  const total = revive.wall + merge.wall + commit.wall;
  console.log(`\n### merge + commit of ${forks} forks of ${per} chunks (${forks * per} chunk refs), local filesystem; load ${load()}\n`);
  table(['step', 'wall ms', 'CPU ms'], [
    ['parse + revive forks (Session.fromFork of the JSON text)', fmt(revive.wall), fmt(revive.cpu)],
    ['Session.mergeDisjoint', fmt(merge.wall), fmt(merge.cpu)],
    ['commit (manifest, snapshot, ref)', fmt(commit.wall), fmt(commit.cpu)],
    ['**total**', `**${fmt(total)}**`, fmt(revive.cpu + merge.cpu + commit.cpu)],
  ]);
  console.log(`\ncommitted ${id}; goal < 5,000 ms: ${total < 5000 ? 'met' : 'MISSED'}`);
  rmSync(dir, { recursive: true, force: true });
}

// ---- ingest with floe worker processes ----

const FLOE = path.join(root, 'bin/floe.mjs');

/** The source store: one uint8 array, one chunk object (--chunk-mib MiB, bytes codec only) per chunk row. */
function sourceStore(chunks: number, chunkBytes: number): string {
  const dir = path.join(DATA, `source-${chunks}x${chunkBytes}.zarr`);
  const done = `${dir}.complete`; // beside the store: a file in it would be one more object to import
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [chunks, chunkBytes], data_type: 'uint8',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, chunkBytes] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } }, fill_value: 0, codecs: [{ name: 'bytes' }], attributes: {},
  }));
  const buf = new Uint8Array(chunkBytes);
  randomFillSync(buf);
  for (let i = 0; i < chunks; i++) {
    mkdirSync(path.join(dir, 'c', String(i)), { recursive: true });
    new DataView(buf.buffer).setUint32(0, i); // every chunk differs
    writeFileSync(path.join(dir, 'c', String(i), '0'), buf);
  }
  writeFileSync(done, '');
  return dir;
}

interface IngestTarget {
  name: string;
  tasks: number;
  /** The repository location for a run of `workers` workers. */
  repo(workers: number): string;
  env: Record<string, string>;
  remove(workers: number): void;
}

async function ingestBench(redis: RedisServer): Promise<void> {
  const per = Number(opts['task-chunks']);
  const chunkBytes = Number(opts['chunk-mib']) * MiB;
  const targets: IngestTarget[] = [];
  const local = (n: number) => path.join(DATA, `ingest-repo-${n}`);
  if (!opts['s3-only']) targets.push({ name: 'local filesystem', tasks: Number(opts.tasks), repo: local, env: {}, remove: (n) => rmSync(local(n), { recursive: true, force: true }) });
  if (opts.s3 || opts['s3-only']) {
    const endpoint = process.env.FLOE_S3_ENDPOINT;
    if (!endpoint) throw new Error('--s3 needs a running gateway: FLOE_S3_ENDPOINT, FLOE_S3_ACCESS_KEY, FLOE_S3_SECRET_KEY (scripts/ceph-s3.sh start)');
    const bucket = `floe-bench-${process.pid}`;
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const credentials = { accessKeyId: process.env.FLOE_S3_ACCESS_KEY ?? 'floetest', secretAccessKey: process.env.FLOE_S3_SECRET_KEY ?? 'floetestsecret' };
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    targets.push({
      name: 'S3 (Ceph RGW, memstore)', tasks: Number(opts['s3-tasks']), repo: (n) => `s3://${bucket}/ingest-${n}`,
      env: { FLOE_S3_ENDPOINT: endpoint, FLOE_S3_UNQUOTED_IF_MATCH: '1', AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey, AWS_REGION: 'us-east-1' },
      remove() {}, // a new prefix per run; the gateway's data goes with it
    });
  }
  const rows: (string | number)[][] = [];
  for (const target of targets) {
    const tasks = target.tasks;
    const bytes = tasks * per * chunkBytes;
    let t = performance.now();
    const source = sourceStore(tasks * per, chunkBytes);
    console.log(`(source store of ${tasks * per} chunks, ${bytes / MiB} MiB: ready in ${fmt(ms(t))} ms)`);
    const walls: Record<number, number> = {};
    for (const n of opts.workers.split(',').map(Number)) {
      target.remove(n);
      const repo = target.repo(n);
      const init = child(process.execPath, [FLOE, 'init', '--repo', repo], target.env);
      if ((await init.exited) !== 0) throw new Error(`floe init: ${init.err()}`);
      const queue = `ingest${n}-${process.pid}`;
      const env = { ...target.env, FLOE_REDIS_URL: redis.url };
      const workers = Array.from({ length: n }, () => child(process.execPath, [FLOE, 'worker', '--repo', repo, '--queue', queue, '--json'], env));
      await Promise.all(workers.map((w) => w.ready));
      const loadBefore = load();
      t = performance.now();
      const run = child(process.execPath, [FLOE, 'import', source, '--repo', repo, '--path', '/ingest', '--distributed', '--queue', queue, '--task-chunks', String(per), '--task-bytes', String(per * chunkBytes), '--json'], env);
      const code = await run.exited;
      const wall = ms(t);
      await stop(workers);
      if (code !== 0) throw new Error(`floe import --distributed: ${run.err()}`);
      const result = JSON.parse(run.out()) as { tasks: number; bytes: number };
      if (result.tasks !== tasks || result.bytes !== bytes) throw new Error(`planned ${result.tasks} tasks, ${result.bytes} bytes`);
      walls[n] = wall;
      const efficiency = walls[1] ? walls[1] / (n * wall) : NaN;
      rows.push([target.name, n, `${tasks} × ${per} × ${opts['chunk-mib']} MiB`, (bytes / MiB).toFixed(0), fmt(wall), (bytes / MiB / (wall / 1000)).toFixed(0), Number.isNaN(efficiency) ? '' : efficiency.toFixed(2), `${loadBefore} → ${load()}`]);
      console.log(`| ${rows.at(-1)!.join(' | ')} |`);
      target.remove(n);
    }
  }
  console.log(`\n### ingest (floe import --distributed, floe worker processes started before the import)\n`);
  table(['storage', 'workers', 'tasks × chunks × size', 'MiB', 'wall ms', 'MiB/s', 'scaling efficiency T1/(n·Tn)', 'load (before → after)'], rows);
}

// ---- simulation: many workers against a slow storage ----

async function simBench(redis: RedisServer): Promise<void> {
  const n = Number(opts['sim-workers']);
  const tasks = Number(opts['sim-tasks']);
  const latency = Number(opts['latency-ms']);
  const chunkBytes = 4096;
  const per = 16;
  const dir = path.join(DATA, 'sim-repo');
  rmSync(dir, { recursive: true, force: true });
  const plain = await Repository.create(Storage.newLocalFilesystem(dir));
  const setup = await plain.writableSession('main');
  await ZarrArray.create(setup.store, '/a', { shape: [tasks * per, chunkBytes], chunkShape: [1, chunkBytes], dataType: 'uint8', fillValue: 0 });
  await setup.commit('create /a');
  const bundle = bundledWorker(path.join(root, 'bench/support/distributed-child.ts'), 'floe-distributed-bench');
  await bundle.build();
  const queue = `sim-${process.pid}`;
  const spawnAt = performance.now();
  const workers = Array.from({ length: n }, () => child(process.execPath, ['--no-warnings', bundle.path, JSON.stringify({ repo: dir, redis: redis.url, queue, latencyMs: latency, chunkBytes })]));
  try {
    await Promise.all(workers.map((w) => w.ready));
    const startupMs = ms(spawnAt);
    const slow = wrapStorage(new FsStorage({ root: dir, durable: false }), async (call, run) => {
      if (slowCall(call)) await sleepAbortably(systemClock, latency, call.signal, call.key);
      return run();
    });
    const repo = await Repository.open(slow);
    const marks: Partial<Record<WriteProgress['phase'], number>> = {};
    const loadBefore = load();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await distributedWrite(repo, {
      branch: 'main', queue: { name: queue, redis: redis.url }, message: 'sim', writeId: `sim-${process.pid}`,
      tasks: Array.from({ length: tasks }, (_, i) => ({ chunks: Array.from({ length: per }, (_, k) => i * per + k) })),
      onProgress: (p) => (marks[p.phase] = performance.now() - t0),
    });
    const returned = ms(t0);
    const wall = marks.committed!;
    const lastResult = marks['task-done']!;
    const cpu = process.cpuUsage(cpu0);
    const taskMs = result.tasks.map((x) => x.ms);
    const sum = taskMs.reduce((a, b) => a + b, 0);
    const ideal = sum / n;
    const sorted = [...taskMs].sort((a, b) => a - b);
    console.log(`\n### simulation: ${n} worker processes, ${tasks} tasks of ${per} chunks of 4 KiB, storage +${latency} ms per request, Redis on loopback\n`);
    table(['figure', 'value'], [
      ['workers ready (spawn → all ready)', `${fmt(startupMs)} ms`],
      ['plan stored (start → planned)', `${fmt(marks.planned ?? NaN)} ms`],
      ['enqueue (planned → enqueued)', `${fmt((marks.enqueued ?? NaN) - (marks.planned ?? NaN))} ms`],
      ['tasks (enqueued → last result)', `${fmt(lastResult - marks.enqueued!)} ms`],
      ['task time in the worker: p50 / max', `${fmt(sorted[Math.floor(sorted.length / 2)]!)} / ${fmt(sorted.at(-1)!)} ms`],
      ['merge: read 256 forks, mergeDisjoint (last result → merged)', `${fmt(marks.merged! - lastResult)} ms`],
      ['**commit latency** (merged → committed)', `**${fmt((marks.committed ?? NaN) - (marks.merged ?? NaN))} ms**`],
      ['wall (start → committed)', `${fmt(wall)} ms`],
      ['clean-up: jobs, plan, forks (committed → returned)', `${fmt(returned - wall)} ms`],
      ['Σ task time / workers (the ideal wall)', `${fmt(ideal)} ms`],
      ['**coordinator overhead per task** ((wall − ideal) / tasks)', `**${fmt((wall - ideal) / tasks)} ms**`],
      ['coordinator CPU per task', `${fmt((cpu.user + cpu.system) / 1000 / tasks)} ms`],
      ['load (before → after)', `${loadBefore} → ${load()}`],
    ]);
    await repo.close();
  } finally {
    await stop(workers);
    bundle.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

mkdirSync(DATA, { recursive: true });
console.log(`bench/distributed.ts on ${os.cpus().length} cores, Node ${process.version}, load ${load()} (uptime: ${readFileSync('/proc/loadavg', 'utf8').trim()})`);
if (parts.has('merge')) await mergeBench();
const redis = parts.has('ingest') || parts.has('sim') ? await startRedis() : undefined;
try {
  if (parts.has('ingest')) await ingestBench(redis!);
  if (parts.has('sim')) await simBench(redis!);
} finally {
  await redis?.stop();
}
