// Pins the public surface: adding or removing an export is a deliberate, reviewed change.
import { describe, expect, it } from 'vitest';
import * as floe from '../../src/index.ts';
import { ERROR_CODES, FloeError, isFloeError } from '../../src/errors.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(floe).sort()).toEqual(
      [
        'BasicConflictSolver', 'CONFLICT_TYPES', 'CallbackConflictSolver', 'ChangeSet', 'ConflictDetector', 'ConflictError',
        'GarbageCollection', 'VersionSelection', 'isConflictError', 'ERROR_CODES', 'FloeError', 'MemoryStorage', 'Repository', 'Session', 'SessionStore',
        'ReadCaches', 'Storage', 'V1Array', 'convertV1ToV3', 'StorageStore', 'ZarrArray', 'ZarrGroup', 'createQueryServer', 'formatPlan', 'query',
        'createArray', 'createGroup', 'get', 'isFloeError', 'openArray', 'openGroup', 'openNode',
        'openStore', 'set', 'slice',
      ].sort(),
    );
  });

  it('keeps the error codes stable', () => {
    expect([...ERROR_CODES]).toEqual([
      'INVALID_ARGUMENT', 'INVALID_METADATA', 'INVALID_SELECTION', 'INVALID_KEY', 'INVALID_NAME',
      'NOT_FOUND', 'ALREADY_EXISTS', 'NODE_TYPE_MISMATCH', 'UNSUPPORTED', 'CORRUPT_OBJECT',
      'CHECKSUM_MISMATCH', 'PRECONDITION_FAILED', 'CONFLICT', 'READ_ONLY', 'UNAUTHORIZED', 'STORAGE_ERROR',
      'TIMEOUT', 'ABORTED',
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
