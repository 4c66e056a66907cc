// floe/distributed on the Ceph RADOS gateway (issue 32): the repository in S3, as workers on other
// machines would have it; worker processes, one SIGKILLed mid-task; committed exactly once with
// every task's data. Skipped with the reason where no gateway runs (required in CI).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { distributedWrite } from '../../src/distributed/index.ts';
import { S3Storage } from '../../src/engine/storage/s3.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { describeWithGateway } from '../storage/s3-gate.ts';
import { childBundle, startWorker, stopAll, type Child } from './harness.ts';
import { chunkTasks, chunkValues, createTarget } from './tasks.ts';

describeWithGateway('distributed writes on S3 (Ceph RADOS gateway)', (target) => {
  const bucket = `floe-dist-${randomBytes(4).toString('hex')}`;
  const credentials = { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey };
  const admin = new S3Storage({ bucket, endpoint: target.endpoint, forcePathStyle: true, credentials });
  let redis: RedisServer;
  beforeAll(async () => {
    [redis] = await Promise.all([startRedis(), childBundle.build(), admin.ensureBucket()]);
  });
  afterAll(async () => {
    await stopAll();
    await redis?.stop();
    childBundle.remove();
    const keys: string[] = [];
    for await (const o of admin.list('')) keys.push(o.key);
    await admin.delete(keys);
    await admin.close();
  });

  it('workers on an S3 repository, one killed mid-task: committed exactly once, every task\'s data', async () => {
    const s3 = { endpoint: target.endpoint, bucket, prefix: 'repo', ...credentials };
    const repo = await Repository.create(await Storage.newS3(bucket, 'repo', { type: 'Static', field0: credentials }, { endpointUrl: target.endpoint, forcePathStyle: true, unquotedIfMatch: true }));
    const base = await createTarget(repo, 12);
    const where = { repo: s3, redis: redis.url, queue: 'q-s3' };
    const workers: Child[] = await Promise.all([startWorker(where, { taskMs: 100 }), startWorker(where, { taskMs: 100 })]);
    const tasks = chunkTasks(6, 2);
    const writing = distributedWrite(repo, { branch: 'main', queue: { name: where.queue, redis: redis.url }, tasks, message: 's3', writeId: 's3', pollIntervalMs: 100 });
    const victim = await Promise.race(workers.map((w) => w.waitFor((l) => l.event === 'task-start').then(() => w)));
    await new Promise((r) => setTimeout(r, 50));
    await victim.kill('SIGKILL');
    workers.push(await startWorker(where, { taskMs: 100 }));
    const result = await writing;
    const history = [];
    for await (const s of repo.ancestry({ branch: 'main' })) history.push(s.id);
    expect(history.slice(0, history.indexOf(base))).toEqual([result.snapshotId]);
    expect(await chunkValues(repo)).toEqual(tasks.flatMap((t) => t.chunks.map(() => t.value)));
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    await repo.close();
  }, 120_000);
});
