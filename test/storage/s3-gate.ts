// Runs a test body only when test/setup/ceph.ts provided a gateway. In CI (CI=true) or with
// FLOE_REQUIRE_S3=1 a missing gateway fails; elsewhere the suite is skipped with the reason on
// one line (issue 4). Skipped tests are reported as skipped, never as passed.
import { describe, expect, inject, it } from 'vitest';

export interface GatewayTarget {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  startSeconds: number | null;
}

export const s3Required = process.env.CI === 'true' || process.env.FLOE_REQUIRE_S3 === '1';

export function describeWithGateway(name: string, body: (target: GatewayTarget) => void): void {
  const target = inject('s3');
  if ('unavailable' in target && s3Required) {
    describe(name, () => {
      it('needs a running gateway', () => {
        throw new Error(`S3 tests cannot run: ${target.unavailable}`);
      });
    });
  } else if ('unavailable' in target) {
    console.warn(`[s3] skipping ${name}: ${target.unavailable}`);
    describe.skipIf(true)(`${name} (skipped: ${target.unavailable})`, () => {
      it('needs a running gateway', () => expect(target.unavailable).toBe(''));
    });
  } else {
    describe(name, () => body(target));
  }
}
