// A repository on the Ceph gateway through the public API only: `Storage.newS3` with the options
// Ceph needs, two commits, then two writers whose commits reach the branch's compare-and-swap at
// the same moment: one wins, the other loses the CAS, rebases and lands.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  BasicConflictSolver, Repository, S3Storage, Storage, ZarrArray, ZarrGroup, isFloeError, slice, wrapStorage,
  type ObjectStorage, type S3Credentials,
} from '../../src/index.ts';
import { collect } from './contract.ts';
import { describeWithGateway } from './s3-gate.ts';

const ARRAY = { shape: [16], chunkShape: [4], dataType: 'int32', fillValue: 0 } as const;

/**
 * Holds conditional writes of the repo info object until `parties` of them are waiting (or
 * `maxWaitMs` passed), then lets them all go at once; counts how they ended.
 */
function casBarrier(parties: number, maxWaitMs: number) {
  const waiting: Array<() => void> = [];
  const outcome = { held: 0, won: 0, lost: 0 };
  const release = () => waiting.splice(0).forEach((go) => go());
  const wrap = (inner: ObjectStorage): ObjectStorage =>
    wrapStorage(inner, async (call, run) => {
      if (call.operation !== 'put' || call.key !== 'repo' || outcome.held >= parties) return run();
      outcome.held += 1;
      const arrived = new Promise<void>((resolve) => waiting.push(resolve));
      if (waiting.length >= parties) release();
      const timer = setTimeout(release, maxWaitMs);
      await arrived;
      clearTimeout(timer);
      try {
        const result = await run();
        outcome.won += 1;
        return result;
      } catch (err) {
        if (isFloeError(err, 'PRECONDITION_FAILED')) outcome.lost += 1;
        throw err;
      }
    });
  return { wrap, outcome };
}

describeWithGateway('a repository on Ceph opened with Storage.newS3', (target) => {
  const bucket = `floe-repo-${randomBytes(4).toString('hex')}`;
  const prefix = `repo-${randomBytes(3).toString('hex')}`;
  const credentials: S3Credentials = { type: 'Static', field0: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey } };
  // Ceph compares If-Match unquoted; everything else (retries, timeouts, copy mode) is the default.
  const open = () => Storage.newS3(bucket, prefix, credentials, { endpointUrl: target.endpoint, forcePathStyle: true, unquotedIfMatch: true });

  it('commits twice, and two concurrent commits race on the CAS: one wins, the other rebases and lands', async () => {
    const admin = new S3Storage({ bucket, prefix, endpoint: target.endpoint, forcePathStyle: true, credentials: credentials.field0 });
    await admin.ensureBucket();
    try {
      const repo = await Repository.create(await open());
      const first = await repo.writableSession('main');
      await ZarrGroup.create(first.store, '/');
      await ZarrArray.create(first.store, '/a', ARRAY as never);
      const c1 = await first.commit('create /a');
      const second = await repo.writableSession('main');
      await (await ZarrArray.open(second.store, '/a')).set([slice(0, 4)], Int32Array.from([1, 2, 3, 4]));
      const c2 = await second.commit('first chunk');
      expect(c2).not.toBe(c1);

      // Two repositories opened separately (two clients), committing disjoint chunks at once.
      const barrier = casBarrier(2, 20_000);
      const writers = await Promise.all(
        [0, 1].map(async (i) => {
          const storage = Storage.fromObjectStorage(barrier.wrap((await open()).backend));
          const session = await (await Repository.open(storage)).writableSession('main');
          await (await ZarrArray.open(session.store, '/a')).set([slice(4 + 4 * i, 8 + 4 * i)], Int32Array.from([10, 11, 12, 13]).map((v) => v * (i + 1)));
          return session;
        }),
      );
      const ids = await Promise.all(writers.map((s, i) => s.commit(`writer ${i}`, { rebaseWith: new BasicConflictSolver() })));
      expect(barrier.outcome).toEqual({ held: 2, won: 1, lost: 1 });

      // A fresh client sees a linear history holding every commit, and all the data.
      const reopened = await Repository.open(await open());
      const history = [];
      for await (const s of reopened.ancestry({ branch: 'main' })) history.push(s.id);
      expect(history).toHaveLength(5); // initial, c1, c2 and both writers
      expect(history.slice(2, 4)).toEqual([c2, c1]);
      expect(new Set(history.slice(0, 2))).toEqual(new Set(ids));
      const tip = await reopened.readonlySession({ branch: 'main' });
      const data = (await (await ZarrArray.open(tip.store, '/a')).get()).data as Int32Array;
      expect(Array.from(data)).toEqual([1, 2, 3, 4, 10, 11, 12, 13, 20, 22, 24, 26, 0, 0, 0, 0]);

      // A session on a stale base without a solver is refused, not merged.
      const late = await (await Repository.open(await open())).writableSession('main');
      await (await ZarrArray.open(late.store, '/a')).set([slice(12, 16)], 7);
      const winner = await (await Repository.open(await open())).writableSession('main');
      await (await ZarrArray.open(winner.store, '/a')).set([slice(0, 4)], 9);
      await winner.commit('moves the branch');
      await expect(late.commit('stale')).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await admin.delete((await collect(admin.list(''))).map((o) => o.key));
      await admin.close();
    }
  }, 120_000);
});
