// A writer process of s3-lossy-commits.test.ts: commits to one repository on S3 through the fault
// proxy (test/support/lossy-writer.ts says what each commit writes). Argument: one JSON object
// { endpoint, bucket, prefix, accessKeyId, secretAccessKey, maxAttempts, ...WriterJob }; one
// CommitLine of JSON per commit on stdout.
import { Repository, Storage } from '../../src/txn/index.ts';
import { runCommits, type WriterJob } from '../support/lossy-writer.ts';

interface Job extends WriterJob {
  endpoint: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  maxAttempts: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const storage = Storage.newS3(job.bucket, job.prefix, { type: 'Static', field0: { accessKeyId: job.accessKeyId, secretAccessKey: job.secretAccessKey } }, {
  endpointUrl: job.endpoint, forcePathStyle: true, unquotedIfMatch: true, requestTimeoutMs: 20_000,
  retries: { maxAttempts: job.maxAttempts, baseDelayMs: 20, maxDelayMs: 500 },
});
const repo = await Repository.open(await storage);
await runCommits(repo, job, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));
await repo.close();
