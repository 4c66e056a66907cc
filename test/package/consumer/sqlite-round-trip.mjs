// The installed package on SQLite storage: better-sqlite3 (the native module built for this Node)
// holds a repository in one file; two commits, then a reopen from a new process's view of the file.
// Prints JSON.
import { createRequire } from 'node:module';
import { Repository, Storage, ZarrArray } from 'floe';

const file = process.argv[2];
const values = Int32Array.from({ length: 40 * 30 }, (_, i) => i * 7 - 900);

const repo = await Repository.create(Storage.newSqlite(file));
for (const [message, scale] of [['first', 1], ['second', 2]]) {
  const session = await repo.writableSession('main');
  const array = scale === 1
    ? await ZarrArray.create(session.store, '/counts', { shape: [40, 30], chunkShape: [16, 16], dataType: 'int32', fillValue: 0 })
    : await ZarrArray.open(session.store, '/counts');
  await array.set([null, null], values.map((v) => v * scale));
  await session.commit(message);
}

const reopened = await Repository.open(Storage.newSqlite(file));
const stored = await ZarrArray.open((await reopened.readonlySession({ branch: 'main' })).store, '/counts');
const { data } = await stored.get([null, null]);
const equal = data.length === values.length && data.every((v, i) => v === values[i] * 2);
let snapshots = 0;
for await (const _ of reopened.ancestry({ branch: 'main' })) snapshots++;

const betterSqlite3 = createRequire(import.meta.url)('better-sqlite3/package.json').version;
console.log(JSON.stringify({ equal, snapshots, betterSqlite3Major: Number(betterSqlite3.split('.')[0]) }));
