// The S3 backend against a real Ceph RADOS gateway started by test/setup/ceph.ts.
import { randomBytes } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3Storage, type S3StorageOptions } from '../../src/engine/storage/s3.ts';
import { collect, defineStorageContract, expectCode } from './contract.ts';
import { defineModelTest } from './model.ts';
import { runCasRace } from './race.ts';

const target = inject('s3');
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

// CI (CI=true) must run the S3 suite, so there a missing gateway fails. On a developer machine
// without Ceph only this suite is skipped, with the reason on one line (issue 4); skipped tests
// are reported as skipped, never as passed.
const mustRun = process.env.CI === 'true' || process.env.FLOE_REQUIRE_S3 === '1';

if ('unavailable' in target && mustRun) {
  describe('S3 backend on a Ceph RADOS gateway', () => {
    it('needs a running gateway', () => {
      throw new Error(`S3 tests cannot run: ${target.unavailable}`);
    });
  });
} else if ('unavailable' in target) {
  console.warn(`[s3] skipping the S3 suite: ${target.unavailable}`);
  describe.skipIf(true)(`S3 backend on a Ceph RADOS gateway (skipped: ${target.unavailable})`, () => {
    it('needs a running gateway', () => expect(target.unavailable).toBe(''));
  });
} else {
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

  describe('S3 backend on a Ceph RADOS gateway', () => {
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

    it('server-side copy conditions: a stale source version is reported even though Ceph ignores the header', async () => {
      const { storage, cleanup } = makeS3({ copyConditions: 'server' });
      try {
        const v1 = (await storage.put('src', enc('one'))).version;
        await storage.copy('src', 'copy1', { ifMatch: v1 });
        expect(dec((await storage.get('copy1'))!.bytes)).toBe('one');
        await storage.put('src', enc('two'));
        await expectCode(storage.copy('src', 'copy2', { ifMatch: v1 }), 'PRECONDITION_FAILED');
      } finally {
        await storage.close();
        await cleanup();
      }
    });

    it('reads large objects with parallel ranged GETs pinned to one version', async () => {
      const { storage, cleanup } = makeS3({ partSize: 64 * 1024, readConcurrency: 4 });
      try {
        const big = new Uint8Array(1024 * 1024 + 123);
        for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 10)) & 0xff;
        const { version } = await storage.put('big', big);
        const whole = await storage.get('big');
        expect(whole!.version).toBe(version);
        expect(Buffer.compare(Buffer.from(whole!.bytes), Buffer.from(big))).toBe(0);
        const part = await storage.get('big', { offset: 60_000, length: 300_000 });
        expect(Buffer.compare(Buffer.from(part!.bytes), Buffer.from(big.subarray(60_000, 360_000)))).toBe(0);
        const tail = await storage.get('big', { offset: 1_000_000 });
        expect(tail!.bytes.length).toBe(big.length - 1_000_000);
      } finally {
        await storage.close();
        await cleanup();
      }
    });

    it('settles a conditional write answered with 500 by re-reading: committed only if our bytes are there', async () => {
      const real = new S3Client({
        endpoint: target.endpoint, region: 'us-east-1', forcePathStyle: true,
        credentials: base.credentials!, requestChecksumCalculation: 'WHEN_REQUIRED', maxAttempts: 1,
      });
      let mode: 'after-write' | 'before-write' | 'pass' = 'pass';
      const serverError = () => Object.assign(new Error('injected 500'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
      // A client whose conditional PutObject answers 500, after or instead of writing.
      const flaky = {
        async send(command: unknown, options: unknown) {
          const isConditionalPut = command instanceof PutObjectCommand && (command.input.IfMatch ?? command.input.IfNoneMatch) !== undefined;
          if (isConditionalPut && mode === 'before-write') throw serverError();
          const result = await real.send(command as never, options as never);
          if (isConditionalPut && mode === 'after-write') throw serverError();
          return result;
        },
        destroy() {},
      } as unknown as S3Client;
      const { storage, cleanup } = makeS3({ client: flaky });
      try {
        const v1 = (await storage.put('ref', enc('one'))).version;
        mode = 'after-write';
        const v2 = (await storage.put('ref', enc('two'), { ifMatch: v1 })).version;
        expect(dec((await storage.get('ref'))!.bytes)).toBe('two');
        expect((await storage.head('ref'))!.version).toBe(v2);
        mode = 'before-write';
        await expectCode(storage.put('ref', enc('three'), { ifMatch: v2 }), 'PRECONDITION_FAILED');
        await expectCode(storage.put('new', enc('x'), { ifNoneMatch: '*' }), 'PRECONDITION_FAILED');
        expect(await storage.get('new')).toBeNull();
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
    }, 120_000);
  });
}
