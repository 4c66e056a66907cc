// One timed task on Floe loaded from ENTRY (dist/index.js under plain node, or src/index.ts under
// tsx): `read DIR` reads the whole array DIR/field (written by `write`), `commit DIR N` writes N
// small chunks into a new repository at DIR and times the commit; `repo DIR` writes a repository
// with a 2-D field and 1-D coordinates that `session-read DIR` reads whole through a readonly
// session and `query DIR` queries by label (20 queries, total); `storage DIR` puts and gets 1,000
// small objects through FsStorage. Prints {"ms": ...}: wall time, or with FLOE_BENCH_CLOCK=cpu the
// process's user+system CPU time (all threads, workers included), which a loaded machine disturbs far less.
const [entry, task, dir, count] = process.argv.slice(2);
const floe = await import(entry);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const now = process.env.FLOE_BENCH_CLOCK === 'cpu' ? cpuMs : () => performance.now();
// With FLOE_BENCH_GC=1 (and node --expose-gc) a full GC runs just before each timer starts: a fresh
// process's first major GC otherwise lands in or out of a short timed window depending on how much
// was allocated before it (import, open), which moved ratios by 5-17% between builds whose timed code
// was the same.
let started = false;
const startTimer = () => {
  if (!started && process.env.FLOE_BENCH_GC === '1' && typeof globalThis.gc === 'function') globalThis.gc();
  started = true;
  return now();
};

async function write() {
  const store = floe.openStore(dir);
  const array = await floe.createArray(store, '/field', {
    shape: [8192, 8192], chunkShape: [1024, 1024], dataType: 'float32', fillValue: 0,
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }],
  });
  const row = Float32Array.from({ length: 8192 * 512 }, (_, i) => 100 * Math.sin(i / 300) + ((i * 7919) % 97) / 1000);
  for (let r = 0; r < 8192; r += 512) await array.set([floe.slice(r, r + 512), null], row);
  return 0;
}

async function read() {
  const array = await floe.openArray(floe.openStore(dir), '/field');
  const t0 = startTimer();
  const got = await array.get([null, null]);
  const ms = now() - t0;
  if (got.data.length !== 8192 * 8192) throw new Error('short read');
  return ms;
}

async function commit() {
  const repo = await floe.Repository.create(floe.Storage.newLocalFilesystem(dir));
  const session = await repo.writableSession('main');
  const n = Number(count);
  const array = await floe.ZarrArray.create(session.store, '/a', { shape: [n * 16], chunkShape: [16], dataType: 'int32', fillValue: 0 });
  await array.set([null], Int32Array.from({ length: n * 16 }, (_, i) => i));
  const t0 = startTimer();
  await session.commit('bench');
  return now() - t0;
}

const ROWS = 2048;
const COLS = 4096;

async function repo() {
  const repository = await floe.Repository.create(floe.Storage.newLocalFilesystem(dir));
  const session = await repository.writableSession('main');
  const zstd = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }];
  const field = await floe.ZarrArray.create(session.store, '/field', { shape: [ROWS, COLS], chunkShape: [256, 512], dataType: 'float32', fillValue: 0, codecs: zstd, dimensionNames: ['y', 'x'] });
  await field.set([null, null], Float32Array.from({ length: ROWS * COLS }, (_, i) => 20 * Math.sin(i / 700) + ((i * 7919) % 89) / 100));
  const y = await floe.ZarrArray.create(session.store, '/y', { shape: [ROWS], chunkShape: [ROWS], dataType: 'float64', fillValue: 0, dimensionNames: ['y'] });
  await y.set([null], Float64Array.from({ length: ROWS }, (_, i) => i * 0.5));
  const x = await floe.ZarrArray.create(session.store, '/x', { shape: [COLS], chunkShape: [COLS], dataType: 'float64', fillValue: 0, dimensionNames: ['x'] });
  await x.set([null], Float64Array.from({ length: COLS }, (_, i) => i * 0.25));
  await session.commit('bench data');
  return 0;
}

async function sessionRead() {
  const repository = await floe.Repository.open(floe.Storage.newLocalFilesystem(dir));
  const session = await repository.readonlySession({ branch: 'main' });
  const t0 = startTimer();
  const got = await (await floe.ZarrArray.open(session.store, '/field')).get([null, null]);
  const ms = now() - t0;
  if (got.data.length !== ROWS * COLS) throw new Error('short read');
  return ms;
}

async function queries() {
  const repository = await floe.Repository.open(floe.Storage.newLocalFilesystem(dir));
  const session = await repository.readonlySession({ branch: 'main' });
  const t0 = startTimer();
  let values = 0;
  for (let q = 0; q < 20; q++) {
    const result = await floe.query(session).from('/field').where('y', 'between', [q * 40, q * 40 + 60]).where('x', '>', q * 40).execute();
    values += result.data.length;
  }
  const ms = now() - t0;
  if (values === 0) throw new Error('empty queries');
  return ms;
}

async function storage() {
  // Small objects through the local filesystem backend (non-durable): puts, then gets, timed together.
  const fs = new floe.FsStorage({ root: dir, durable: false });
  const bytes = new Uint8Array(256).fill(7);
  const keys = Array.from({ length: 1000 }, (_, i) => `chunks/${i % 50}/${i}`);
  const t0 = startTimer();
  for (const key of keys) await fs.put(key, bytes);
  for (const key of keys) if ((await fs.get(key))?.bytes.length !== 256) throw new Error('lost object');
  return now() - t0;
}

const ms = await { write, read, commit, repo, 'session-read': sessionRead, query: queries, storage }[task]();
console.log(JSON.stringify({ ms }));
process.exit(0);
