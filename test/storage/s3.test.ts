// The S3 backend against a real Ceph RADOS gateway started by test/setup/ceph.ts.
import { randomBytes } from 'node:crypto';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage, type S3StorageOptions } from '../../src/engine/storage/s3.ts';
import { isTransientError } from '../../src/engine/storage/transient.ts';
import { collect, defineStorageContract, expectCode } from './contract.ts';
import { defineModelTest } from './model.ts';
import { RACE_TEST_TIMEOUT_MS, runCasRace } from './race.ts';
import { describeWithGateway } from './s3-gate.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describeWithGateway('S3 backend on a Ceph RADOS gateway', (target) => {
  const fileStarted = performance.now();
  const bucket = `floe-test-${randomBytes(4).toString('hex')}`;
  const base: S3StorageOptions = {
    bucket,
    endpoint: target.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    unquotedIfMatch: true, // Ceph compares If-Match without quotes
    copyConditions: 'client', // Ceph 16 ignores x-amz-copy-source-if-match
    listPageSize: 250,
  };
  let counter = 0;

  /** A plain SDK client for the gateway, for tests that wrap or bypass the backend. */
  const rawClient = () =>
    new S3Client({
      endpoint: target.endpoint, region: 'us-east-1', forcePathStyle: true,
      credentials: base.credentials!, requestChecksumCalculation: 'WHEN_REQUIRED', maxAttempts: 1,
    });

  /** A storage rooted at a fresh prefix of the test bucket; cleanup deletes what it holds. */
  function makeS3(extra: Partial<S3StorageOptions> = {}) {
    counter += 1;
    const storage = new S3Storage({ ...base, prefix: `t${counter}-${randomBytes(3).toString('hex')}`, ...extra });
    const cleanup = async () => {
      const sweeper = new S3Storage({ ...base, prefix: storage.root.slice(0, -1) });
      const keys = (await collect(sweeper.list(''))).map((o) => o.key);
      await sweeper.delete(keys);
      await sweeper.close();
    };
    return { storage, cleanup };
  }

  beforeAll(async () => {
    const admin = new S3Storage(base);
    await admin.ensureBucket();
    await admin.close();
  });

  afterAll(() => {
    console.log(`[ceph] S3 test file ran in ${((performance.now() - fileStarted) / 1000).toFixed(1)}s (gateway start: ${target.startSeconds === null ? 'external gateway' : `${target.startSeconds}s`})`);
  });

  defineStorageContract('s3 on Ceph RGW', async () => makeS3());

  describe('behaviour on Ceph', () => {
    defineModelTest('s3', async () => makeS3(), { numRuns: 8, maxCommands: 25, timeoutMs: 180_000 });

    it('with quoted If-Match (Ceph refuses it), conditional updates fail and are never reported as success', async () => {
      const { storage, cleanup } = makeS3({ unquotedIfMatch: false });
      try {
        const v1 = (await storage.put('repo', enc('v1'))).version;
        await expectCode(storage.put('repo', enc('v2'), { ifMatch: v1 }), 'PRECONDITION_FAILED');
        const got = await storage.get('repo');
        expect(dec(got!.bytes)).toBe('v1');
        expect(got!.version).toBe(v1);
        // Create-only does not involve an ETag and still works.
        await storage.put('fresh', enc('x'), { ifNoneMatch: '*' });
        await expectCode(storage.put('fresh', enc('y'), { ifNoneMatch: '*' }), 'PRECONDITION_FAILED');
      } finally {
        await storage.close();
        await cleanup();
      }
    });

    it('a conditional copy whose source changed writes nothing, in both copy modes (Ceph ignores the server-side condition)', async () => {
      // undefined: the default mode ('client').
      for (const copyConditions of [undefined, 'client', 'server'] as const) {
        const { storage, cleanup } = makeS3({ copyConditions });
        try {
          const v1 = (await storage.put('src', enc('one'))).version;
          expect((await storage.copy('src', 'copy1', { ifMatch: v1 })).version).toBe(v1);
          expect(dec((await storage.get('copy1'))!.bytes)).toBe('one');
          await storage.put('src', enc('two'));
          await expectCode(storage.copy('src', 'copy2', { ifMatch: v1 }), 'PRECONDITION_FAILED');
          expect(await storage.head('copy2'), `mode ${copyConditions ?? 'default'}`).toBeNull();
          expect(await storage.get('copy2')).toBeNull();
          await expectCode(storage.copy('missing', 'copy3', { ifMatch: v1 }), 'PRECONDITION_FAILED');
          expect(await storage.head('copy3')).toBeNull();
        } finally {
          await storage.close();
          await cleanup();
        }
      }
    });

    it('the default copy mode never sends CopyObject for a conditional copy (so Ceph cannot write first)', async () => {
      const real = rawClient();
      const sent: string[] = [];
      const label = (c: unknown) => (c instanceof CopyObjectCommand ? 'copy' : c instanceof GetObjectCommand ? 'get' : c instanceof PutObjectCommand ? 'put' : 'other');
      const spy = {
        send(command: unknown, options: unknown) {
          sent.push(label(command));
          return real.send(command as never, options as never);
        },
        destroy() {},
      } as unknown as S3Client;
      const { storage, cleanup } = makeS3({ copyConditions: undefined, client: spy });
      try {
        const v1 = (await storage.put('src', enc('one'))).version;
        sent.length = 0;
        await storage.copy('src', 'copy', { ifMatch: v1 });
        expect(sent).toEqual(['get', 'put']);
        sent.length = 0;
        await storage.copy('src', 'plain'); // without a condition a server-side copy is fine
        expect(sent).toEqual(['copy']);
      } finally {
        await cleanup();
        real.destroy();
      }
    });

    it('reads large objects with parallel ranged GETs pinned to one version', async () => {
      // Counts GetObject requests in flight, from sending to the end of the body.
      const real = rawClient();
      let inFlight = 0;
      let maxInFlight = 0;
      let gets = 0;
      const counting = {
        async send(command: unknown, options: unknown) {
          if (!(command instanceof GetObjectCommand)) return real.send(command as never, options as never);
          gets += 1;
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          let settled = false;
          const done = () => {
            if (!settled) inFlight -= 1;
            settled = true;
          };
          try {
            const r = await real.send(command, options as never);
            const body = r.Body!;
            const read = body.transformToByteArray.bind(body);
            body.transformToByteArray = () => read().finally(done);
            return r;
          } catch (err) {
            done();
            throw err;
          }
        },
        destroy() {},
      } as unknown as S3Client;
      const { storage, cleanup } = makeS3({ partSize: 64 * 1024, readConcurrency: 4, client: counting });
      try {
        const big = new Uint8Array(1024 * 1024 + 123);
        for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 10)) & 0xff;
        const { version } = await storage.put('big', big);
        const whole = await storage.get('big');
        expect(whole!.version).toBe(version);
        expect(Buffer.compare(Buffer.from(whole!.bytes), Buffer.from(big))).toBe(0);
        expect(gets).toBe(Math.ceil(big.length / (64 * 1024))); // 17 parts, one GET each
        expect(maxInFlight).toBeGreaterThan(1); // parts really overlap…
        expect(maxInFlight).toBeLessThanOrEqual(4); // …within readConcurrency
        expect(inFlight).toBe(0);
        const part = await storage.get('big', { offset: 60_000, length: 300_000 });
        expect(Buffer.compare(Buffer.from(part!.bytes), Buffer.from(big.subarray(60_000, 360_000)))).toBe(0);
        const tail = await storage.get('big', { offset: 1_000_000 });
        expect(tail!.bytes.length).toBe(big.length - 1_000_000);
      } finally {
        await storage.close();
        await cleanup();
        real.destroy();
      }
    });

    it('settles a conditional write answered with 500, 409 or nothing by re-reading: done only if our bytes are there', async () => {
      const real = rawClient();
      type Mode = 'pass' | 'after-write' | 'after-write-overwritten' | 'before-write' | 'others-instead' | 'deleted-instead';
      const answers = {
        500: () => Object.assign(new Error('injected 500'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } }),
        409: () => Object.assign(new Error('injected 409'), { name: 'ConditionalRequestConflict', $metadata: { httpStatusCode: 409 } }),
        'no answer': () => Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET', $metadata: {} }),
      };
      let mode: Mode = 'pass';
      let answer: () => Error = answers[500];
      let heads = 0;
      // A client whose conditional PutObject fails after writing, after writing and being
      // overwritten by someone else, or instead of writing.
      const flaky = {
        async send(command: unknown, options: unknown) {
          if (command instanceof HeadObjectCommand) heads += 1;
          const isConditionalPut = command instanceof PutObjectCommand && (command.input.IfMatch ?? command.input.IfNoneMatch) !== undefined;
          if (!isConditionalPut || mode === 'pass') return real.send(command as never, options as never);
          if (mode === 'before-write') throw answer();
          if (mode === 'others-instead') {
            // Someone else wrote the key, and our request never reached the server.
            await real.send(new PutObjectCommand({ ...command.input, Body: enc('someone else, later'), IfMatch: undefined, IfNoneMatch: undefined, ContentLength: undefined }));
            throw answer();
          }
          if (mode === 'deleted-instead') {
            await real.send(new DeleteObjectCommand({ Bucket: command.input.Bucket, Key: command.input.Key }));
            throw answer();
          }
          await real.send(command, options as never);
          if (mode === 'after-write-overwritten') {
            await real.send(new PutObjectCommand({ ...command.input, Body: enc('someone else'), IfMatch: undefined, IfNoneMatch: undefined, ContentLength: undefined }));
          }
          throw answer();
        },
        destroy() {},
      } as unknown as S3Client;
      const notCommitted = async (write: Promise<unknown>) => {
        const err = await write.then(
          (value) => expect.unreachable(`reported as written: ${JSON.stringify(value)}`),
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'PRECONDITION_FAILED' });
        expect((err as Error).message).toMatch(/re-read the object and decide/);
      };
      const notWrittenRetryable = async (write: Promise<unknown>) => {
        const err = await write.then(
          (value) => expect.unreachable(`reported as written: ${JSON.stringify(value)}`),
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'STORAGE_ERROR', details: { transient: true } });
        expect(isTransientError(err)).toBe(true);
        expect((err as Error).message).toMatch(/not applied: .* the object is as before; retry/);
      };
      const { storage, cleanup } = makeS3({ client: flaky });
      try {
        for (const [name, make] of Object.entries(answers)) {
          answer = make;
          const ref = `ref-${name.replace(' ', '-')}`;
          const created = `new-${name.replace(' ', '-')}`;
          const v1 = (await storage.put(ref, enc('one'))).version;

          // The write landed but the answer was lost: the re-read finds our bytes.
          mode = 'after-write';
          let before = heads;
          const v2 = (await storage.put(ref, enc('two'), { ifMatch: v1 })).version;
          expect(heads, name).toBeGreaterThan(before);
          expect((await storage.head(ref))!.version).toBe(v2);
          expect((await storage.put(`${created}-a`, enc('a'), { ifNoneMatch: '*' })).version).toBe((await storage.head(`${created}-a`))!.version);

          // It landed, then someone else overwrote it before the re-read: not reported as done.
          mode = 'after-write-overwritten';
          await notCommitted(storage.put(ref, enc('three'), { ifMatch: v2 }));
          await notCommitted(storage.put(`${created}-b`, enc('b'), { ifNoneMatch: '*' }));

          // Nothing was written and the object is as before (absent for a create, the version the
          // update was conditioned on): never reported as done, never as a failed precondition
          // (a create that failed it would be taken for "already stored"), but a transient error
          // a retry may repeat.
          mode = 'before-write';
          const current = (await storage.head(ref))!.version;
          before = heads;
          await notWrittenRetryable(storage.put(ref, enc('four'), { ifMatch: current }));
          expect(heads, name).toBeGreaterThan(before);
          await notWrittenRetryable(storage.put(`${created}-c`, enc('c'), { ifNoneMatch: '*' }));
          mode = 'pass';
          expect(dec((await storage.get(ref))!.bytes)).toBe('someone else');
          expect(await storage.get(`${created}-c`)).toBeNull();

          // Someone else's bytes stand where ours would be: the condition no longer holds.
          mode = 'others-instead';
          await notCommitted(storage.put(ref, enc('five'), { ifMatch: current }));
          await notCommitted(storage.put(`${created}-d`, enc('d'), { ifNoneMatch: '*' }));
          // An update whose object is gone can never apply.
          mode = 'deleted-instead';
          const last = (await storage.head(ref))!.version;
          await notCommitted(storage.put(ref, enc('six'), { ifMatch: last }));
          mode = 'pass';
          expect(await storage.head(ref)).toBeNull();
          expect(dec((await storage.get(`${created}-d`))!.bytes)).toBe('someone else, later');
        }
      } finally {
        mode = 'pass';
        await cleanup();
        real.destroy();
      }
    });

    it('has exactly one winner per round when several OS processes race If-Match updates', async () => {
      const { storage, cleanup } = makeS3();
      try {
        const options = { ...base, prefix: storage.root.slice(0, -1) };
        const result = await runCasRace(storage, { kind: 's3', options }, 6, 40);
        expect(result.rounds).toBe(40);
      } finally {
        await storage.close();
        await cleanup();
      }
    }, RACE_TEST_TIMEOUT_MS);
  });
});
