// Commit and session-read benchmark (issue 5, "Performance"): Floe vs the reference Icechunk
// (npm @earthmover/icechunk, WASM build, custom storage over Floe's FsStorage) in the same run.
//
//   npx tsx bench/commit.ts [--chunks 100000] [--read-mb 1024] [--skip-commit] [--skip-read]
//        [--set-concurrency 16] [--backend fs|memory] [--durable] [--profile] [--dir D] [--pairs N]
//
// --pairs N (N > 1): the commit part only, as N pairs of one Floe run (sets one by one) and one
// reference run, alternating which goes first, each pair with the load average; then the
// commit-time ratio of every pair. With --profile, Floe's first commit in the process (pair 1)
// runs under the CPU profiler (100 µs sampling) and its top self-time functions are printed.
// --floe-child: each Floe run in a fresh child process too, so both sides commit cold every pair.
//
// 1. Commit: one int32 array of --chunks chunks of 1 KiB (256 values) in a new repository on the
//    local filesystem. Timed: all `store.set` calls (awaited one at a time, as a simple writer
//    does; Floe also with --set-concurrency sets in flight) and then `commit`. The reference
//    runs the same steps in a child process (its WASM runtime keeps a process alive).
// 2. Read: a float32 array of --read-mb MiB (1024x1024 chunks, bytes + zstd level 1) written by
//    Floe into a repository and, identically, into a plain Zarr directory store; then read whole
//    through a session, through the plain store (both with Floe's ZarrArray), and by zarrita
//    through the reference's session store (child process). Best of 2.
// Storage is not durable (no fsync) on every side unless --durable: same FsStorage everywhere.
// --profile writes a CPU profile of the session reads and prints the top functions.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openStore } from '../src/engine/api.ts';
import { ZarrArray } from '../src/engine/array.ts';
import { FsStorage } from '../src/engine/storage/fs.ts';
import { MemoryStorage } from '../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../src/engine/storage/types.ts';
import { Repository, Storage } from '../src/txn/index.ts';
import { topFunctions } from './support/cpuprofile-top.ts';

const { values: opts } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    'read-mb': { type: 'string', default: '1024' },
    'skip-commit': { type: 'boolean', default: false },
    'skip-read': { type: 'boolean', default: false },
    'set-concurrency': { type: 'string', default: '16' },
    durable: { type: 'boolean', default: false },
    backend: { type: 'string', default: 'fs' },
    profile: { type: 'boolean', default: false },
    pairs: { type: 'string', default: '1' },
    'floe-child': { type: 'boolean', default: false },
    dir: { type: 'string' },
    child: { type: 'string' },
    path: { type: 'string' },
  },
});

const CHUNKS = Number(opts.chunks);
const READ_MB = Number(opts['read-mb']);
const DURABLE = opts.durable;
// `memory`: the commit part on MemoryStorage on both sides (the reference's adapter over a Floe
// MemoryStorage in its own process), to compare the implementations without file-system costs.
const BACKEND = opts.backend === 'memory' ? 'memory' : 'fs';
const storageAt = (dir: string): ObjectStorage => (BACKEND === 'memory' ? new MemoryStorage() : new FsStorage({ root: dir, durable: DURABLE }));
const SELF = fileURLToPath(import.meta.url);
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();
const enc = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

const groupJson = enc({ zarr_format: 3, node_type: 'group', attributes: {} });
const arrayJson = (chunks: number) =>
  enc({
    zarr_format: 3, node_type: 'array', shape: [chunks * 256], data_type: 'int32',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [256] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], attributes: {},
  });
const chunkBytes = (i: number) => {
  const c = new Int32Array(256).fill(i);
  return new Uint8Array(c.buffer);
};

// ---- child: the reference ------------------------------------------------------------------
async function referenceChild(kind: string, dir: string): Promise<unknown> {
  const { Repository: RefRepository, Storage: RefStorage } = await import('@earthmover/icechunk');
  const { customBackend } = await import('../test/support/reference-icechunk.ts');
  const storage = RefStorage.newCustom(customBackend(kind === 'commit' ? storageAt(dir) : new FsStorage({ root: dir, durable: DURABLE })) as never);
  if (kind === 'commit') {
    const repo = await RefRepository.create(storage);
    const session = await repo.writableSession('main');
    await session.store.set('zarr.json', Buffer.from(groupJson));
    await session.store.set('a/zarr.json', Buffer.from(arrayJson(CHUNKS)));
    let t0 = now();
    for (let i = 0; i < CHUNKS; i++) await session.store.set(`a/c/${i}`, Buffer.from(chunkBytes(i)));
    const setMs = ms(t0);
    t0 = now();
    const cpu0 = process.cpuUsage();
    await session.commit('bench');
    const commitMs = ms(t0);
    const cpu = process.cpuUsage(cpu0);
    return { setMs, commitMs, commitCpuMs: (cpu.user + cpu.system) / 1000 };
  }
  const zarr = await import('zarrita');
  const repo = await RefRepository.open(storage);
  const session = await repo.readonlySession({ branch: 'main' });
  const store = {
    get: async (key: string) => (await session.store.get(key.replace(/^\//, ''))) ?? undefined,
    getRange: async (key: string, range: { offset: number; length: number } | { suffixLength: number }) => (await session.store.getRange(key.replace(/^\//, ''), range)) ?? undefined,
  };
  const arr = await zarr.open(zarr.root(store).resolve(opts.path!), { kind: 'array' });
  const times: number[] = [];
  let checksum = 0;
  for (let r = 0; r < 2; r++) {
    const t0 = now();
    const got = await zarr.get(arr);
    times.push(ms(t0));
    checksum = (got.data as Float32Array)[(got.data as Float32Array).length - 1]!;
  }
  return { readMs: Math.min(...times), checksum };
}

function runChild(kind: string, dir: string, extra: string[] = []): Record<string, number> {
  const args = ['--import', 'tsx', '--no-warnings', SELF, '--child', kind, '--dir', dir, '--chunks', String(CHUNKS), '--backend', BACKEND, ...(DURABLE ? ['--durable'] : []), ...extra];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 1 << 24 });
  const line = result.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (result.status !== 0 || !line) throw new Error(`reference child failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(line) as Record<string, number>;
}

// ---- 1. commit ---------------------------------------------------------------------------
async function floeCommit(dir: string, concurrency: number, profileCommit = false) {
  const storage = storageAt(dir);
  const repo = await Repository.create(Storage.fromObjectStorage(storage));
  const session = await repo.writableSession('main');
  await session.store.set('zarr.json', groupJson);
  await session.store.set('a/zarr.json', arrayJson(CHUNKS));
  let t0 = now();
  if (concurrency <= 1) {
    for (let i = 0; i < CHUNKS; i++) await session.store.set(`a/c/${i}`, chunkBytes(i));
  } else {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < CHUNKS) {
        const i = next++;
        await session.store.set(`a/c/${i}`, chunkBytes(i));
      }
    }));
  }
  const setMs = ms(t0);
  t0 = now();
  const cpu0 = process.cpuUsage();
  const stopProfile = profileCommit ? await startProfile(dir) : undefined;
  const snapshot = await session.commit('bench');
  const commitMs = ms(t0);
  const cpu = process.cpuUsage(cpu0);
  const commitCpuMs = (cpu.user + cpu.system) / 1000;
  if (stopProfile) console.log(`\nFloe's commit under the profiler (${commitMs.toFixed(0)} ms, ${commitCpuMs.toFixed(0)} ms CPU), top self time:\n${await stopProfile()}\n`);
  // Check outside the timed part: the last chunk reads back from a fresh session.
  const check = await (await Repository.open(Storage.fromObjectStorage(storage))).readonlySession({ snapshotId: snapshot });
  const last = await check.store.get(`a/c/${CHUNKS - 1}`);
  if (!last || new Int32Array(last.buffer, last.byteOffset, 1)[0] !== CHUNKS - 1) throw new Error('Floe commit bench: last chunk did not read back');
  return { setMs, commitMs, commitCpuMs };
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** N alternating pairs of the commit part: Floe (sets one by one) and the reference. */
async function commitPairs(root: string, pairs: number): Promise<void> {
  console.log(`\n## Commit of ${CHUNKS.toLocaleString('en')} new 1 KiB chunks, one array, ${pairs} pairs (${BACKEND === 'fs' ? 'local filesystem' : 'in memory'}; Floe ${opts['floe-child'] ? 'in a fresh child process each pair' : 'in this process'})\n`);
  console.log('| pair | first | load average before | reference sets | Floe sets | reference commit (CPU) | Floe commit (CPU) | Floe / reference |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|');
  const ratios: number[] = [];
  for (let p = 1; p <= pairs; p++) {
    const load = loadAverage();
    const floeFirst = p % 2 === 1;
    let floe: { setMs: number; commitMs: number; commitCpuMs: number } | undefined;
    let ref: Record<string, number> | undefined;
    for (const side of floeFirst ? ['floe', 'reference'] : ['reference', 'floe']) {
      if (side === 'floe' && opts['floe-child']) floe = floeSide(runChild('floe-commit', path.join(root, `floe-${p}`)));
      else if (side === 'floe') floe = await floeCommit(path.join(root, `floe-${p}`), 1, opts.profile && p === 1);
      else ref = runChild('commit', path.join(root, `reference-${p}`));
    }
    if (!floe || !ref) throw new Error('commit pair: a side did not run');
    const ratio = floe.commitMs / ref.commitMs!;
    ratios.push(ratio);
    console.log(`| ${p} | ${floeFirst ? 'Floe' : 'reference'} | ${load} | ${(ref.setMs! / 1000).toFixed(2)} s | ${(floe.setMs / 1000).toFixed(2)} s | ${ref.commitMs!.toFixed(0)} ms (${ref.commitCpuMs!.toFixed(0)}) | ${floe.commitMs.toFixed(0)} ms (${floe.commitCpuMs.toFixed(0)}) | ${ratio.toFixed(2)} |`);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(`\nFloe / reference commit time: median ${median.toFixed(2)}, worst ${(sorted[sorted.length - 1] ?? NaN).toFixed(2)}; Floe at or under the reference in ${ratios.filter((r) => r <= 1).length} of ${pairs} pairs (load average after: ${loadAverage()})`);
}

function floeSide(got: Record<string, number>): { setMs: number; commitMs: number; commitCpuMs: number } {
  const { setMs, commitMs, commitCpuMs } = got;
  if (setMs === undefined || commitMs === undefined || commitCpuMs === undefined) throw new Error('Floe child: missing figures');
  return { setMs, commitMs, commitCpuMs };
}

/** Starts the CPU profiler; the function returned stops it and gives the top self-time functions. */
async function startProfile(dir: string): Promise<() => Promise<string>> {
  const { Session } = await import('node:inspector/promises');
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  await inspector.post('Profiler.start');
  return async () => {
    const { profile } = await inspector.post('Profiler.stop');
    inspector.disconnect();
    const file = path.join(dir, 'commit.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const { totalMs, top } = topFunctions([file], 15);
    rmSync(file, { force: true });
    return [`  ${totalMs.toFixed(0)} ms of samples`, ...top.map((f) => `  ${f.selfMs.toFixed(1).padStart(7)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name} ${f.where}`)].join('\n');
  };
}

// ---- 2. read -----------------------------------------------------------------------------
async function readBench(root: string) {
  const side = Math.round(Math.sqrt((READ_MB * 2 ** 20) / 4 / (1024 * 1024))) * 1024 || 1024;
  const rows = Math.max(1024, Math.round((READ_MB * 2 ** 20) / 4 / side / 1024) * 1024);
  const meta = {
    shape: [rows, side], chunkShape: [1024, 1024], dataType: 'float32', fillValue: 0,
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }],
  } as never;
  const data = new Float32Array(rows * side);
  for (let i = 0; i < data.length; i++) data[i] = 100 * Math.sin(i / 3000) + ((i * 2654435761) % 1000) / 20000;
  const repoDir = path.join(root, 'read-repo');
  const repo = await Repository.create(Storage.fromObjectStorage(new FsStorage({ root: repoDir, durable: false })));
  const writer = await repo.writableSession('main');
  await (await ZarrArray.create(writer.store, '/v', meta)).set(undefined, data);
  await writer.commit('data');
  const plain = openStore(path.join(root, 'plain'), { durable: false });
  await (await ZarrArray.create(plain, '/v', meta)).set(undefined, data);
  const best = async (read: () => Promise<Float32Array>) => {
    const times: number[] = [];
    for (let r = 0; r < 2; r++) {
      const t0 = now();
      const got = await read();
      times.push(ms(t0));
      if (got[got.length - 1] !== data[data.length - 1] || got[12345] !== data[12345]) throw new Error('read bench: wrong values');
    }
    return Math.min(...times);
  };
  const session = await (await Repository.open(Storage.newLocalFilesystem(repoDir))).readonlySession({ branch: 'main' });
  const sessionArray = await ZarrArray.open(session.store, '/v');
  const plainArray = await ZarrArray.open(openStore(path.join(root, 'plain'), { readOnly: true }), '/v');
  const plainMs = await best(async () => (await plainArray.get()).data as Float32Array);
  const sessionMs = await best(async () => (await sessionArray.get()).data as Float32Array);
  const plainMs2 = await best(async () => (await plainArray.get()).data as Float32Array);
  let profile: string | undefined;
  if (opts.profile) profile = await profileSessionRead(sessionArray);
  const ref = runChild('read', repoDir, ['--path', '/v']);
  if (ref.checksum !== data[data.length - 1]) throw new Error('reference read: wrong values');
  return { bytes: data.byteLength, rows, side, sessionMs, plainMs: Math.min(plainMs, plainMs2), referenceMs: ref.readMs!, profile };
}

async function profileSessionRead(array: ZarrArray): Promise<string> {
  const { Session } = await import('node:inspector/promises');
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  await array.get();
  const { profile } = (await inspector.post('Profiler.stop')) as { profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[]; samples: number[]; timeDeltas: number[] } };
  inspector.disconnect();
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `  ${v.toFixed(0).padStart(6)} ms  ${k}`).join('\n');
}

// ---- main --------------------------------------------------------------------------------
async function main() {
  if (opts.child === 'floe-commit') {
    process.stdout.write(JSON.stringify(await floeCommit(opts.dir!, 1, opts.profile)) + '\n');
    process.exit(0);
  }
  if (opts.child) {
    process.stdout.write(JSON.stringify(await referenceChild(opts.child, opts.dir!)) + '\n');
    process.exit(0);
  }
  const root = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'floe-bench-commit-'));
  mkdirSync(root, { recursive: true });
  try {
    console.log(`# bench/commit.ts — ${os.cpus().length} cores, Node ${process.version}, commit backend ${BACKEND}, durable=${DURABLE}`);
    if (Number(opts.pairs) > 1) {
      await commitPairs(root, Number(opts.pairs));
      return;
    }
    if (!opts['skip-commit']) {
      const seq = await floeCommit(path.join(root, 'floe-seq'), 1);
      const conc = Number(opts['set-concurrency']);
      const par = conc > 1 ? await floeCommit(path.join(root, 'floe-par'), conc) : undefined;
      const ref = runChild('commit', path.join(root, 'reference'));
      const rate = (n: number) => Math.round(CHUNKS / (n / 1000)).toLocaleString('en');
      console.log(`\n## Commit of ${CHUNKS.toLocaleString('en')} new 1 KiB chunks, one array (${BACKEND === 'fs' ? 'local filesystem' : 'in memory'})\n`);
      console.log('| | store.set total | sets/s | commit |');
      console.log('|---|---|---|---|');
      console.log(`| reference (WASM, custom storage) | ${(ref.setMs! / 1000).toFixed(2)} s | ${rate(ref.setMs!)} | ${ref.commitMs!.toFixed(0)} ms |`);
      console.log(`| Floe, sets awaited one by one | ${(seq.setMs / 1000).toFixed(2)} s | ${rate(seq.setMs)} | ${seq.commitMs.toFixed(0)} ms |`);
      if (par) console.log(`| Floe, ${conc} sets in flight | ${(par.setMs / 1000).toFixed(2)} s | ${rate(par.setMs)} | ${par.commitMs.toFixed(0)} ms |`);
      console.log(`\nset path: Floe ${(ref.setMs! / seq.setMs).toFixed(1)}x the reference (one by one)${par ? `, ${(ref.setMs! / par.setMs).toFixed(1)}x (${conc} in flight)` : ''}; commit: Floe/reference time ${(seq.commitMs / ref.commitMs!).toFixed(2)}`);
    }
    if (!opts['skip-read']) {
      const r = await readBench(root);
      const mbps = (t: number) => (r.bytes / 1e6 / (t / 1000)).toFixed(0);
      console.log(`\n## Whole-array read, ${(r.bytes / 2 ** 20).toFixed(0)} MiB float32 (${r.rows}x${r.side}, 1024x1024 chunks, zstd 1), best of 2\n`);
      console.log('| reader | time | MB/s |');
      console.log('|---|---|---|');
      console.log(`| Floe ZarrArray over a plain directory store | ${r.plainMs.toFixed(0)} ms | ${mbps(r.plainMs)} |`);
      console.log(`| Floe ZarrArray over a session store | ${r.sessionMs.toFixed(0)} ms | ${mbps(r.sessionMs)} |`);
      console.log(`| zarrita over the reference's session store (WASM) | ${r.referenceMs.toFixed(0)} ms | ${mbps(r.referenceMs)} |`);
      console.log(`\nsession / plain speed: ${(r.plainMs / r.sessionMs).toFixed(2)}x; session / reference+zarrita: ${(r.referenceMs / r.sessionMs).toFixed(1)}x`);
      if (r.profile) console.log(`\nSession read, top self time:\n${r.profile}`);
    }
  } finally {
    if (!opts.dir) rmSync(root, { recursive: true, force: true });
  }
}

await main();
