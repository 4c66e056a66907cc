// `floe init --storage s3` and the commands after it, as spawned processes, on the real Ceph RADOS
// gateway test/setup/ceph.ts starts (or FLOE_S3_ENDPOINT names). Like test/storage/s3.test.ts: CI
// must run it; elsewhere, without a gateway, it is skipped with the reason on one line.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3Storage } from '../../src/engine/storage/s3.ts';
import { fixturePath } from '../support/fixtures.ts';
import { removeTempDirs, spawnFloe, tempDir, type CliResult } from './helpers.ts';

const target = inject('s3');
afterAll(removeTempDirs);
const mustRun = process.env.CI === 'true' || process.env.FLOE_REQUIRE_S3 === '1';

if ('unavailable' in target && mustRun) {
  describe('floe on S3 (Ceph RADOS gateway)', () => {
    it('needs a running gateway', () => {
      throw new Error(`S3 CLI tests cannot run: ${target.unavailable}`);
    });
  });
} else if ('unavailable' in target) {
  console.warn(`[s3] skipping the S3 CLI tests: ${target.unavailable}`);
  describe.skipIf(true)(`floe on S3 (skipped: ${target.unavailable})`, () => {
    it('needs a running gateway', () => expect(target.unavailable).toBe(''));
  });
} else {
  const bucket = `floe-cli-${randomBytes(4).toString('hex')}`;
  const admin = new S3Storage({
    bucket, endpoint: target.endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
  });
  // What a user of a Ceph gateway sets: the endpoint, the AWS credentials, and bare If-Match ETags.
  const env = {
    FLOE_S3_ENDPOINT: target.endpoint,
    AWS_ACCESS_KEY_ID: target.accessKeyId,
    AWS_SECRET_ACCESS_KEY: target.secretAccessKey,
    FLOE_S3_UNQUOTED_IF_MATCH: '1',
  };
  const v1Dir = fixturePath('zarr', 'v1');
  const ragged = (JSON.parse(readFileSync(path.join(v1Dir, 'expected-v1.json'), 'utf8')) as Record<string, { values_c_order_flat: number[] }>).bz2_f8_ragged!;

  describe('floe on S3 (Ceph RADOS gateway) as spawned processes', () => {
    let dir: string;
    const floe = (...argv: string[]) => spawnFloe(argv, dir, 150_000, env);
    const ok = (r: CliResult) => {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(''); // no SDK notices: stderr is for progress and errors
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };

    beforeAll(async () => {
      dir = tempDir();
      await admin.ensureBucket();
    });
    afterAll(async () => {
      const keys: string[] = [];
      for await (const o of admin.list('')) keys.push(o.key);
      await admin.delete(keys);
      await admin.close();
    });

    it('init --storage s3, an import (a commit), then cat, status and branch read and write it', async () => {
      const repo = `s3://${bucket}/climate`;
      expect(ok(await floe('init', '--storage', 's3', '--repo', repo, '--json'))).toMatchObject({ repository: repo, storage: 's3', branch: 'main' });
      const imported = ok(await floe('import', path.join(v1Dir, 'bz2_f8_ragged'), '--into', 'legacy/ragged', '--repo', repo, '--json'));
      expect(imported).toMatchObject({ path: '/legacy/ragged', branch: 'main' });
      const [cat, status] = await Promise.all([
        floe('cat', 'main:/legacy/ragged', '--repo', repo, '--json'),
        floe('status', '--repo', repo, '--json'),
      ]);
      // After status: run beside it, the new branch could show in its listing.
      const branch = await floe('branch', 'create', 'dev', '--repo', repo, '--json');
      expect(ok(cat)).toMatchObject({ dtype: 'float64', shape: [10], data: ragged.values_c_order_flat });
      expect(ok(status)).toMatchObject({ storage: 's3', availability: 'online', snapshots: 2, branches: [{ name: 'main', snapshotId: imported.snapshotId }] });
      expect(ok(branch)).toEqual({ action: 'created', branch: 'dev', snapshotId: imported.snapshotId });

      const keys: string[] = [];
      for await (const o of admin.list('climate/')) keys.push(o.key);
      expect(keys).toContain('climate/repo');
      expect(keys).toContain(`climate/snapshots/${String(imported.snapshotId)}`);
    }, 240_000);

    it('a missing bucket is one line that says to create it', async () => {
      const r = await floe('init', '--storage', 's3', '--repo', `s3://${bucket}-missing/x`);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`floe init: NOT_FOUND: the S3 bucket "${bucket}-missing" does not exist; create it first (e.g. \`aws s3 mb s3://${bucket}-missing\`), then \`floe init --storage s3 --repo s3://${bucket}-missing/x\`\n`);
    }, 240_000);
  });
}
