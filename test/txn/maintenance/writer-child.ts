// A writer in another process for the GC concurrency test: commits `count` times to `branch`
// of the Floe repository in `dir`, printing one JSON line per commit: {snapshot, values}.
import { ZarrArray } from '../../../src/engine/array.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';

const [dir, branch, countText] = process.argv.slice(2);
const repo = await Repository.open(Storage.newLocalFilesystem(dir!));
for (let i = 0; i < Number(countText); i++) {
  const session = await repo.writableSession(branch!);
  const values = Array.from({ length: 8 }, (_, j) => 1000 + i * 8 + j);
  await (await ZarrArray.open(session.store, '/a')).set(undefined, Int32Array.from(values));
  const snapshot = await session.commit(`child ${i}`);
  process.stdout.write(JSON.stringify({ snapshot, values }) + '\n');
}
