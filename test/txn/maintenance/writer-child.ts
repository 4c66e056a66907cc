// A writer in another process for the GC concurrency test, driven line by line over stdin so the
// parent can interleave it with GC deterministically. On `write <v>` it opens a session on
// `branch` of the Floe repository in `dir`, fills `/a` with v (its large chunks go to storage
// now) and prints {written: v}; on `commit` it commits and prints {snapshot, value}; on `end`
// it exits.
import { createInterface } from 'node:readline';
import { Repository, Storage, type Session } from '../../../src/txn/index.ts';
import { writeFill } from './helpers.ts';

const [dir, branch] = process.argv.slice(2);
const repo = await Repository.open(Storage.newLocalFilesystem(dir!));
const say = (line: object) => process.stdout.write(JSON.stringify(line) + '\n');
let pending: { session: Session; value: number } | undefined;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, arg] = line.trim().split(' ');
  if (command === 'write') {
    const session = await repo.writableSession(branch!);
    const value = Number(arg);
    await writeFill(session, value);
    pending = { session, value };
    say({ written: value });
  } else if (command === 'commit' && pending) {
    const snapshot = await pending.session.commit(`child ${line}`);
    say({ snapshot, value: pending.value });
    pending = undefined;
  } else if (command === 'end') {
    break;
  } else {
    throw new Error(`writer-child: unexpected line ${JSON.stringify(line)}`);
  }
}
process.exit(0);
