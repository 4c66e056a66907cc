// One writer process of the concurrency test. Makes M commits to `main`, each in a fresh
// session, and prints one JSON line per commit: {ack, snapshot} when it landed, {conflicts}
// when the configured solver refused it. Any other failure exits non-zero.
//   argv: backend (fs|sqlite), location, worker index, M, mode (disjoint|shared-ours|shared-detect), deadline ms
import { Repository, Storage, BasicConflictSolver, ConflictDetector, isConflictError, type ConflictSolver } from '../../src/txn/index.ts';
import { LARGE_CHUNK, writeChunk } from './conflict-fixtures.ts';

const [backend, location, workerText, commitsText, mode, deadlineText] = process.argv.slice(2) as [string, string, string, string, string, string];
const worker = Number(workerText);
const commits = Number(commitsText);
const deadline = Date.now() + Number(deadlineText);
const storage = backend === 'sqlite' ? Storage.newSqlite(location) : Storage.newLocalFilesystem(location);
const repo = await Repository.open(storage);
const inner = mode === 'shared-detect' ? new ConflictDetector() : new BasicConflictSolver({ onChunkConflict: 'useOurs' });
// Counts the commits replayed over, to show the writers really raced.
let replays = 0;
const solver: ConflictSolver = { solve: (input) => (replays++, inner.solve(input)) };
const say = (line: object) => process.stdout.write(JSON.stringify({ worker, ...line }) + '\n');

for (let m = 0; m < commits; m++) {
  if (Date.now() > deadline) throw new Error(`worker ${worker} ran past its deadline at commit ${m}`);
  const value = worker * 1000 + m + 1;
  const session = await repo.writableSession('main');
  if (mode === 'disjoint') {
    await writeChunk(session.store, '/d', worker * commits + m, value, LARGE_CHUNK);
  } else {
    await writeChunk(session.store, '/s', 0, value, LARGE_CHUNK);
    await writeChunk(session.store, '/s', 1, value, LARGE_CHUNK);
  }
  replays = 0;
  try {
    const snapshot = await session.commit(`w${worker} m${m}`, { rebaseWith: solver, rebaseTries: 200, metadata: { worker, m, value, mode } });
    say({ m, value, ack: true, snapshot, replays });
  } catch (err) {
    if (!isConflictError(err)) throw err;
    say({ m, value, ack: false, conflicts: err.conflicts, replays });
  }
}
process.exit(0);
