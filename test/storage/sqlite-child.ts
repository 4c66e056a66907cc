// A child process of sqlite-processes.test.ts on one SQLite repository file.
//   commit FILE WORKER COMMITS DEADLINE_MS: COMMITS commits to main (array /d, element WORKER*COMMITS+m
//     set to its value), rebasing over the other writers; prints one JSON line per commit; closes.
//   hold FILE: one commit, prints "ready", then waits to be killed without closing.
//   create FILE: opens or creates the repository (racing the other children on a new file), prints main's tip.
import { ZarrArray } from '../../src/engine/array.ts';
import { BasicConflictSolver, Repository, Storage } from '../../src/txn/index.ts';

const [mode, file, workerText, commitsText, deadlineText] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: commit|hold FILE ...');

if (mode === 'create') {
  await using repo = await Repository.openOrCreate(Storage.newSqlite(file));
  process.stdout.write(`${await repo.lookupBranch('main')}\n`);
} else if (mode === 'hold') {
  const repo = await Repository.open(Storage.newSqlite(file));
  const session = await repo.writableSession('main');
  await (await ZarrArray.open(session.store, '/d')).set([0], -1);
  await session.commit('held, never closed');
  process.stdout.write('ready\n');
  setInterval(() => {}, 1000); // until the parent kills it
} else {
  const worker = Number(workerText);
  const commits = Number(commitsText);
  const deadline = Date.now() + Number(deadlineText);
  {
    await using repo = await Repository.open(Storage.newSqlite(file));
    for (let m = 0; m < commits; m++) {
      if (Date.now() > deadline) throw new Error(`worker ${worker} ran past its deadline at commit ${m}`);
      const session = await repo.writableSession('main');
      const index = worker * commits + m;
      await (await ZarrArray.open(session.store, '/d')).set([index], index + 1);
      const id = await session.commit(`w${worker} m${m}`, { rebaseWith: new BasicConflictSolver(), rebaseTries: 100 });
      process.stdout.write(JSON.stringify({ worker, m, id }) + '\n');
    }
  }
  process.exitCode = 0;
}
