// One timed task on Floe loaded from ENTRY (dist/index.js under plain node, or src/index.ts under
// tsx): `read DIR` reads the whole array DIR/field (written by `write`), `commit DIR N` writes N
// small chunks into a new repository at DIR and times the commit. Prints {"ms": ...}.
const [entry, task, dir, count] = process.argv.slice(2);
const floe = await import(entry);

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
  const t0 = performance.now();
  const got = await array.get([null, null]);
  const ms = performance.now() - t0;
  if (got.data.length !== 8192 * 8192) throw new Error('short read');
  return ms;
}

async function commit() {
  const repo = await floe.Repository.create(floe.Storage.newLocalFilesystem(dir));
  const session = await repo.writableSession('main');
  const n = Number(count);
  const array = await floe.ZarrArray.create(session.store, '/a', { shape: [n * 16], chunkShape: [16], dataType: 'int32', fillValue: 0 });
  await array.set([null], Int32Array.from({ length: n * 16 }, (_, i) => i));
  const t0 = performance.now();
  await session.commit('bench');
  return performance.now() - t0;
}

const ms = await { write, read, commit }[task]();
console.log(JSON.stringify({ ms }));
process.exit(0);
