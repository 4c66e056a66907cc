// Pins the public surface: adding or removing an export is a deliberate, reviewed change.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as floe from '../../src/index.ts';
import type { S3ClientLike, S3StorageOptions } from '../../src/index.ts';
import { ERROR_CODES, FloeError, isFloeError } from '../../src/errors.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(floe).sort()).toEqual(
      [
        'BasicConflictSolver', 'CONFLICT_TYPES', 'CallbackConflictSolver', 'ChangeSet', 'ConflictDetector', 'ConflictError',
        'GarbageCollection', 'GC_MINIMUM_GRACE_MS', 'VersionSelection', 'isConflictError', 'ERROR_CODES', 'FloeError', 'MemoryStorage', 'Repository', 'Session', 'SessionStore',
        'ReadCaches', 'Storage', 'V1Array', 'convertV1ToV3', 'V2Array', 'convertV2ToV3', 'consolidate', 'StorageStore', 'ZarrArray', 'ZarrGroup', 'createQueryServer', 'formatPlan', 'query',
        'createArray', 'createGroup', 'get', 'isFloeError', 'openArray', 'openGroup', 'openNode',
        'openStore', 'set', 'slice', 'systemClock', 'virtualize',
        // storage backends and wrappers
        'FsStorage', 'SqliteStorage', 'S3Storage', 'HttpStorage', 'KNOWN_SCHEMES', 'parseLocation', 'wrapStorage', 'withRetries', 'withTimeouts', 'withConcurrencyLimit',
        'createLimiter', 'withFaults', 'randomFaults', 'isTransientError',
        // resource limits
        'configureLimits', 'resourceLimits', 'DEFAULT_LIMITS', 'MAX_RANK', 'MAX_ELEMENTS', 'MAX_CHUNK_BYTES', 'MAX_INNER_CHUNKS',
        'MAX_NODE_NAME_BYTES', 'MAX_PATH_DEPTH', 'MAX_JSON_DEPTH',
      ].sort(),
    );
  });

  it('loads the AWS SDK only when an S3 storage sends its first request', () => {
    // In a fresh process: importing Floe and building S3 storages must not load the SDK (~0.25 s).
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const script = `
      import { createRequire } from 'node:module';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@aws-sdk/client-s3'));
      const floe = await import('./src/index.ts');
      const seen = { onImport: loaded() };
      const creds = { type: 'Static', field0: { accessKeyId: 'a', secretAccessKey: 'b' } };
      const storage = await floe.Storage.newS3('b', null, creds, { endpointUrl: 'http://127.0.0.1:9', retries: false });
      new floe.S3Storage({ bucket: 'b' });
      seen.onConstruct = loaded();
      await storage.backend.head('k').catch(() => {});
      seen.onRequest = loaded();
      console.log(JSON.stringify(seen));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--no-warnings', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 100_000 });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ onImport: false, onConstruct: false, onRequest: true });
  }, 120_000);

  it('takes an S3Client of @aws-sdk/client-s3 as its structural S3ClientLike', () => {
    // Floe's declarations name no type of the SDK (an optional package); a real client still fits.
    expectTypeOf<S3Client>().toExtend<S3ClientLike>();
    const options: S3StorageOptions = { bucket: 'b', client: new S3Client({ region: 'us-east-1' }) };
    expect(options.client).toBeInstanceOf(S3Client);
  });

  it('keeps the error codes stable', () => {
    expect([...ERROR_CODES]).toEqual([
      'INVALID_ARGUMENT', 'INVALID_METADATA', 'INVALID_CONFIG', 'INVALID_SELECTION', 'INVALID_KEY', 'INVALID_NAME',
      'NOT_FOUND', 'ALREADY_EXISTS', 'NODE_TYPE_MISMATCH', 'UNSUPPORTED', 'CORRUPT_OBJECT',
      'CHECKSUM_MISMATCH', 'PRECONDITION_FAILED', 'CONFLICT', 'READ_ONLY', 'UNAUTHORIZED', 'STORAGE_ERROR',
      'TIMEOUT', 'ABORTED', 'MISSING_DEPENDENCY', 'LIMIT_EXCEEDED', 'AMBIGUOUS', 'NOT_A_REPOSITORY', 'STALE_HANDLE', 'COMMIT_OUTCOME_UNKNOWN', 'TASK_FAILED',
    ]);
  });

  it('narrows errors by code and says where they happened', () => {
    const err = new FloeError('NOT_FOUND', 'no array at /a', { where: 'a/zarr.json' });
    expect(isFloeError(err)).toBe(true);
    expect(isFloeError(err, 'NOT_FOUND', 'CONFLICT')).toBe(true);
    expect(isFloeError(err, 'CONFLICT')).toBe(false);
    expect(isFloeError(new Error('x'))).toBe(false);
    expect(err.message).toBe('no array at /a (at a/zarr.json)');
  });
});
