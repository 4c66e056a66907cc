// A worker process for the fork/merge test: revives a fork, writes chunks into it, and prints
// the fork's JSON for the parent to merge. argv: repository directory, fork JSON, then one or
// more writes `path,firstChunk,chunkCount,elementsPerChunk,value`.
import { Repository, Session, Storage } from '../../src/txn/index.ts';
import { writeChunk } from './conflict-fixtures.ts';

const [dir, forkJson, ...writes] = process.argv.slice(2) as [string, string, ...string[]];
const repo = await Repository.open(Storage.newLocalFilesystem(dir));
const fork = await Session.fromFork(repo, forkJson);
for (const write of writes) {
  const [path, first, count, elements, value] = write.split(',') as [string, string, string, string, string];
  for (let i = Number(first); i < Number(first) + Number(count); i++) await writeChunk(fork.store, path, i, Number(value), Number(elements));
}
process.stdout.write(JSON.stringify(fork) + '\n');
