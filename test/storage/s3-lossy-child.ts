// A writer process of s3-lossy-commits.test.ts: commits to one repository on S3 through the fault
// proxy. Argument: one JSON object { endpoint, bucket, prefix, accessKeyId, secretAccessKey,
// writer, commits, chunk, deadlineMs }. Commit m of writer w sets chunk w*commits+m of /d to
// chunkValues(that index) and rebases over the other writers; one JSON line per commit on stdout:
// { writer, m, message, outcome: 'ok', id } or { ..., outcome: 'error', code, error }.
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { isFloeError } from '../../src/errors.ts';
import { BasicConflictSolver, Repository, Storage } from '../../src/txn/index.ts';
import { chunkValues, commitMessage } from './s3-lossy-values.ts';

interface Job {
  endpoint: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  writer: number;
  commits: number;
  chunk: number;
  deadlineMs: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const deadline = Date.now() + job.deadlineMs;
const storage = Storage.newS3(job.bucket, job.prefix, { type: 'Static', field0: { accessKeyId: job.accessKeyId, secretAccessKey: job.secretAccessKey } }, {
  endpointUrl: job.endpoint, forcePathStyle: true, unquotedIfMatch: true, requestTimeoutMs: 20_000,
  // A request faulted 10 times in a row is out of reach (0.25^10): every commit is expected to land.
  retries: { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 500 },
});
const repo = await Repository.open(await storage);
for (let m = 0; m < job.commits; m++) {
  if (Date.now() > deadline) throw new Error(`writer ${job.writer} ran past its deadline at commit ${m}`);
  const index = job.writer * job.commits + m;
  const message = commitMessage(job.writer, m);
  const line = { writer: job.writer, m, message };
  try {
    const session = await repo.writableSession('main');
    const array = await ZarrArray.open(session.store, '/d');
    await array.set([slice(index * job.chunk, (index + 1) * job.chunk)], chunkValues(index, job.chunk));
    const id = await session.commit(message, { rebaseWith: new BasicConflictSolver(), rebaseTries: 200 });
    process.stdout.write(`${JSON.stringify({ ...line, outcome: 'ok', id })}\n`);
  } catch (err) {
    const code = isFloeError(err) ? err.code : 'RAW';
    process.stdout.write(`${JSON.stringify({ ...line, outcome: 'error', code, error: String((err as Error).message ?? err).slice(0, 300) })}\n`);
  }
}
await repo.close();
