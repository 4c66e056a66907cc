// A plain Node ESM consumer of the installed package: creates a local repository with an array of
// zstd-compressed chunks, commits, reopens it from disk, reads it back and compares. Prints JSON.
import { Repository, Storage, ZarrArray, slice } from 'floe';

const dir = process.argv[2];
const repo = await Repository.create(Storage.newLocalFilesystem(dir));
const session = await repo.writableSession('main');
const array = await ZarrArray.create(session.store, '/temperature', {
  shape: [64, 48],
  chunkShape: [16, 16],
  dataType: 'float32',
  fillValue: 'NaN',
  codecs: [
    { name: 'bytes', configuration: { endian: 'little' } },
    { name: 'zstd', configuration: { level: 3, checksum: true } },
  ],
});
const values = Float32Array.from({ length: 64 * 48 }, (_, i) => Math.sin(i / 40) * 30 + 273.15);
await array.set([null, null], values);
await session.commit('zstd chunks');

const reopened = await Repository.open(Storage.newLocalFilesystem(dir));
const readonly = await reopened.readonlySession({ branch: 'main' });
const stored = await ZarrArray.open(readonly.store, '/temperature');
const whole = await stored.get([null, null]);
const part = await stored.get([slice(10, 20), 5]);
const equal =
  whole.data.length === values.length &&
  whole.data.every((v, i) => v === values[i]) &&
  part.data.every((v, i) => v === values[(10 + i) * 48 + 5]);
let snapshots = 0;
for await (const _ of reopened.ancestry({ branch: 'main' })) snapshots++;

let testingArbitrary = false;
try {
  const testing = await import('floe/testing');
  const { default: fc } = await import('fast-check');
  testingArbitrary = fc.sample(testing.arrayCaseArb(), 3).length === 3;
} catch (err) {
  if (err.code !== 'MISSING_DEPENDENCY') throw err;
}

// floe/browser is the browser build's bundle (dist/browser/floe.js), an ES module Node loads too:
// it reads the repository's bytes, copied into its memory storage, as floe does from disk.
const browser = await import('floe/browser');
const copy = new browser.MemoryStorage();
const { readdirSync, readFileSync } = await import('node:fs');
for (const key of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => `${e.parentPath ?? e.path}/${e.name}`.slice(dir.length + 1))) {
  await copy.put(key, new Uint8Array(readFileSync(`${dir}/${key}`)));
}
const inBrowserBuild = await (await browser.ZarrArray.open((await (await browser.Repository.open(browser.Storage.fromObjectStorage(copy))).readonlySession({ branch: 'main' })).store, '/temperature')).get([slice(10, 20), 5]);
const browserEqual = inBrowserBuild.data.every((v, i) => v === part.data[i]) && inBrowserBuild.data.length === 10;

const codec = stored.metadata.codecs.map((c) => c.name).find((n) => n !== 'bytes');
console.log(JSON.stringify({ equal, snapshots, codec, testingArbitrary, browserEqual }));
