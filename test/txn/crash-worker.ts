// The process the crash test kills. It commits to `main` in a loop, printing one line per
// acknowledged commit, until it is killed: either by the parent after a random delay, or by
// itself (SIGKILL) at the K-th storage write when FLOE_CRASH_AT_PUT=K, which lands the kill at an
// exact step of the commit sequence (chunk, manifest, transaction log, snapshot, repo-info
// backup, repo info). argv: repository directory.
import { FsStorage } from '../../src/engine/storage/fs.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { writeChunk } from './conflict-fixtures.ts';

const dir = process.argv[2]!;
const crashAt = Number(process.env.FLOE_CRASH_AT_PUT ?? 0);
// Killing a process keeps the page cache, so fsync would only slow the trials down.
const fs = new FsStorage({ root: dir, durable: false });
let puts = 0;
const storage: ObjectStorage = Object.assign(Object.create(fs) as ObjectStorage, {
  put: (...args: Parameters<ObjectStorage['put']>) => {
    if (crashAt > 0 && ++puts === crashAt) process.kill(process.pid, 'SIGKILL');
    return fs.put(...args);
  },
});
const repo = await Repository.open(Storage.fromObjectStorage(storage));
process.stdout.write('ready\n');
// Bounded: a worker nobody kills stops by itself (and the parent then fails the trial).
const deadline = Date.now() + 15_000;
while (Date.now() < deadline) {
  const session = await repo.writableSession('main');
  const base = (await repo.lookupSnapshot(session.snapshotId)).metadata.n;
  const value = (typeof base === 'number' ? base : 0) + 1;
  await writeChunk(session.store, '/small', value % 2, value); // inline in the manifest
  await session.store.set(`big/c/${value % 4}`, new Uint8Array(new Int32Array(256).fill(value).buffer)); // a chunk object
  const snapshot = await session.commit(`commit ${value}`, { metadata: { n: value } });
  process.stdout.write(JSON.stringify({ snapshot, value }) + '\n');
}
process.exit(2);
