// Issue 16: FloeError is a union discriminated by `code` whose `details` type follows the code.
// The type tests are checked by `tsc --noEmit -p .` (expectTypeOf and @ts-expect-error are no-ops
// at run time); the rest runs real errors through ts-pattern and checks docs/errors.md.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { match, P } from 'ts-pattern';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { floeError } from '../../src/errors.ts';
import {
  ERROR_CODES,
  FloeError,
  MemoryStorage,
  Repository,
  Storage,
  ZarrArray,
  isFloeError,
  openStore,
  type ConflictDetails,
  type ErrorCode,
  type ErrorDetails,
} from '../../src/index.ts';
import { missingDependency } from '../../src/optional-dependency.ts';
import { transientError } from '../../src/engine/storage/transient.ts';
import { abortedError } from '../../src/engine/abort.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every code handled: `exhaustive()` fails to compile when a code is added and not matched here. */
function summarize(err: FloeError): string {
  return match(err)
    .with({ code: 'CONFLICT', details: { kind: 'branch-moved' } }, (e) => `moved:${e.details.branch}:${e.details.currentSnapshotId ?? 'deleted'}`)
    .with({ code: 'CONFLICT' }, (e) => `conflict:${e.details.kind}`)
    .with({ code: 'MISSING_DEPENDENCY' }, (e) => `install:${e.details.package}`)
    .with({ code: 'CHECKSUM_MISMATCH' }, (e) => `checksum:${e.details.codec ?? 'source'}:${e.details.stored ?? '-'}`)
    .with({ code: 'UNAUTHORIZED' }, (e) => `refused:${e.details.reason}`)
    .with({ code: 'INVALID_CONFIG' }, (e) => `config:${e.details.field}`)
    .with({ code: 'LIMIT_EXCEEDED' }, (e) => `limit:${e.details.kind}:${e.details.limit}`)
    .with({ code: 'STORAGE_ERROR' }, (e) => `storage:${e.details.transient === true ? 'transient' : 'permanent'}`)
    .with({ code: 'ABORTED' }, (e) => `aborted:${e.details.timedOut ? 'timeout' : (e.details.reason ?? '')}`)
    .with({ code: 'AMBIGUOUS' }, (e) => `ambiguous:${e.details.candidates.length}`)
    .with({ code: 'NOT_A_REPOSITORY' }, (e) => `not-ours:${e.details.reason}`)
    .with({ code: 'STALE_HANDLE' }, (e) => `stale:${e.details.storedShape.join('x')}`)
    .with({ code: 'COMMIT_OUTCOME_UNKNOWN' }, (e) => `unknown:${e.details.commitKey ?? '-'}:${e.details.snapshotId}`)
    .with({ code: 'TASK_FAILED' }, (e) => `task:${e.details.writeId}:${e.details.task}`)
    .with({ code: P.union('INVALID_ARGUMENT', 'INVALID_SELECTION', 'NOT_FOUND', 'UNSUPPORTED') }, (e) => `${e.code}:${e.details.dim ?? ''}`)
    .with({ code: P.union('INVALID_METADATA', 'CORRUPT_OBJECT') }, (e) => `${e.code}:${e.details.codec ?? ''}`)
    .with(
      { code: P.union('INVALID_KEY', 'INVALID_NAME', 'ALREADY_EXISTS', 'NODE_TYPE_MISMATCH', 'PRECONDITION_FAILED', 'READ_ONLY', 'TIMEOUT') },
      (e) => e.code,
    )
    .exhaustive();
}

describe('typed error details', () => {
  it('a real branch-moved CONFLICT matches on code and details.kind', async () => {
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()));
    const setup = await repo.writableSession('main');
    await ZarrArray.create(setup.store, '/a', { shape: [4], chunkShape: [4], dataType: 'int32', fillValue: 0 });
    await setup.commit('base');
    const [ours, theirs] = [await repo.writableSession('main'), await repo.writableSession('main')];
    await (await ZarrArray.open(theirs.store, '/a')).set(undefined, 1);
    await (await ZarrArray.open(ours.store, '/a')).set(undefined, 2);
    const tip = await theirs.commit('theirs');
    const err: unknown = await ours.commit('ours').catch((e: unknown) => e);
    if (!isFloeError(err)) throw new Error('expected a FloeError');
    expect(summarize(err)).toBe(`moved:main:${tip}`);
    if (!isFloeError(err, 'CONFLICT') || err.details.kind !== 'branch-moved') throw new Error('expected branch-moved');
    expectTypeOf(err.details.expectedSnapshotId).toEqualTypeOf<string>();
    expect(err.details).toEqual({ kind: 'branch-moved', branch: 'main', expectedSnapshotId: expect.any(String), currentSnapshotId: tip });
  });

  it('matches constructed errors of other codes by their details', () => {
    expect(summarize(missingDependency('fast-check', 'the conformance runner', new Error('x')))).toBe('install:fast-check');
    expect(summarize(transientError('reset', 'k', undefined))).toBe('storage:transient');
    expect(summarize(floeError('STORAGE_ERROR', 'disk full'))).toBe('storage:permanent');
    expect(summarize(floeError('CHECKSUM_MISMATCH', 'bad', { details: { codec: 'crc32c', stored: 1, actual: 2 } }))).toBe('checksum:crc32c:1');
    expect(summarize(floeError('CONFLICT', 'gc', { details: { kind: 'gc-mark-unstable' } }))).toBe('conflict:gc-mark-unstable');
    expect(summarize(floeError('NOT_FOUND', 'no label', { details: { dim: 'time', value: '3' } }))).toBe('NOT_FOUND:time');
    expect(summarize(new FloeError('READ_ONLY', 'no writes'))).toBe('READ_ONLY');
    expect(summarize(floeError('COMMIT_OUTCOME_UNKNOWN', 'lost', { details: { snapshotId: 'S', commitKey: 'k', branch: 'main' } }))).toBe('unknown:k:S');
    expect(summarize(floeError('UNAUTHORIZED', 'no', { details: { reason: 'virtual-chunk-redirect' } }))).toBe('refused:virtual-chunk-redirect');
    expect(summarize(floeError('LIMIT_EXCEEDED', 'deep', { details: { kind: 'json-depth', limit: 512 } }))).toBe('limit:json-depth:512');
    expect(summarize(floeError('LIMIT_EXCEEDED', 'many', { details: { kind: 'chunks', limit: 10, actual: 11 } }))).toBe('limit:chunks:10');
    const controller = new AbortController();
    controller.abort(new Error('user'));
    expect(summarize(abortedError(controller.signal))).toBe('aborted:user');
    expect(summarize(floeError('INVALID_CONFIG', 'too big', { details: { field: 'inlineChunkThresholdBytes', value: '70000', allowed: 'u16' } }))).toBe('config:inlineChunkThresholdBytes');
  });

  it('a chunk read keeps the codec details, inline and through the worker pool', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-errors-'));
    try {
      const root = path.join(dir, 'crc.zarr');
      // 16 MiB of float32: a whole read this size is decoded on workers (see worker-reads.test.ts).
      const a = await ZarrArray.create(openStore(root), '/a', {
        shape: [2048, 2048], chunkShape: [1024, 1024], dataType: 'float32', codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
      });
      await a.set(undefined, 1.5);
      const file = path.join(root, 'a', 'c', '0', '1');
      const bytes = readFileSync(file);
      bytes[100]! ^= 0x01;
      writeFileSync(file, bytes);
      for (const options of [{}, { decodePool: false as const }]) {
        const err: unknown = await a.get(undefined, options).catch((e: unknown) => e);
        if (!isFloeError(err, 'CHECKSUM_MISMATCH')) throw new Error(`expected CHECKSUM_MISMATCH, got ${String(err)}`);
        expect(err.where).toBe('a/c/0/1');
        expect(err.details).toEqual({ codec: 'crc32c', stored: expect.any(Number), actual: expect.any(Number) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps where, cause and an empty details object when a site knows none', () => {
    const cause = new Error('inner');
    const err = floeError('NOT_FOUND', 'no array at /a', { where: 'a/zarr.json', cause });
    expect(err).toBeInstanceOf(FloeError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'FloeError', code: 'NOT_FOUND', where: 'a/zarr.json', details: {}, message: 'no array at /a (at a/zarr.json)' });
    expect(err.cause).toBe(cause);
  });
});

describe('typed error details: compile-time checks', () => {
  it('narrows by code, and instanceof to the union (not any)', () => {
    const err: unknown = floeError('CONFLICT', 'x', { details: { kind: 'history-rewritten', branch: 'main' } });
    if (isFloeError(err, 'CONFLICT')) {
      expectTypeOf(err.code).toEqualTypeOf<'CONFLICT'>();
      expectTypeOf(err.details).toEqualTypeOf<ConflictDetails>();
    }
    if (isFloeError(err, 'NOT_FOUND', 'MISSING_DEPENDENCY')) expectTypeOf(err.code).toEqualTypeOf<'NOT_FOUND' | 'MISSING_DEPENDENCY'>();
    if (isFloeError(err)) expectTypeOf(err.code).toEqualTypeOf<ErrorCode>();
    if (err instanceof FloeError) {
      expectTypeOf(err.code).toEqualTypeOf<ErrorCode>();
      // @ts-expect-error -- the union's code is an ErrorCode, not any
      const wrong: 'NOT_A_CODE' = err.code;
      void wrong;
    }
    expectTypeOf(floeError('MISSING_DEPENDENCY', 'x', { details: { package: 'p' } })).toEqualTypeOf<FloeError<'MISSING_DEPENDENCY'>>();
    expectTypeOf<ErrorDetails<'MISSING_DEPENDENCY'>>().toEqualTypeOf<{ readonly package: string }>();
  });

  it('rejects details that do not match the code', () => {
    // @ts-expect-error -- misspelled field
    floeError('MISSING_DEPENDENCY', 'x', { details: { pkg: 'p' } });
    // @ts-expect-error -- MISSING_DEPENDENCY cannot be thrown without its details
    floeError('MISSING_DEPENDENCY', 'x');
    // @ts-expect-error -- nor with options but no details
    floeError('MISSING_DEPENDENCY', 'x', { where: 'w' });
    // @ts-expect-error -- CONFLICT details are keyed by kind, not reason
    floeError('CONFLICT', 'x', { details: { reason: 'gc-mark-outdated' } });
    // @ts-expect-error -- branch-moved lacks its snapshot ids
    floeError('CONFLICT', 'x', { details: { kind: 'branch-moved', branch: 'main' } });
    // @ts-expect-error -- a wrong value type
    floeError('CHECKSUM_MISMATCH', 'x', { details: { stored: '0x1' } });
    // @ts-expect-error -- a code without details takes no fields
    floeError('READ_ONLY', 'x', { details: { why: 'frozen' } });
    // @ts-expect-error -- the constructor checks the same way
    new FloeError('UNAUTHORIZED', 'x', { details: { reason: 'nope' } });
    // @ts-expect-error -- not a code
    floeError('NOPE', 'x');
    // @ts-expect-error -- LIMIT_EXCEEDED names its limit
    floeError('LIMIT_EXCEEDED', 'x', { details: { limit: 1 } });
    const err = floeError('CONFLICT', 'x', { details: { kind: 'gc-mark-outdated' } });
    // @ts-expect-error -- readers are checked too: no such field on CONFLICT details
    void err.details.reason;
    expect(ERROR_CODES).toContain('CONFLICT');
  });
});

describe('docs/errors.md', () => {
  const doc = readFileSync(path.join(root, 'docs/errors.md'), 'utf8');

  it('documents every code, in ERROR_CODES order', () => {
    const headings = [...doc.matchAll(/^### `([A-Z_]+)`$/gm)].map((m) => m[1]);
    expect(headings).toEqual([...ERROR_CODES]);
  });

  it('documents every CONFLICT kind', () => {
    const kinds: Record<ConflictDetails['kind'], true> = {
      'branch-moved': true, 'not-an-ancestor': true, conflicts: true, 'history-rewritten': true,
      'dangling-ref': true, 'repo-update-retries-exhausted': true, 'gc-mark-outdated': true, 'gc-mark-unstable': true,
      'overlapping-forks': true,
    };
    for (const kind of Object.keys(kinds)) expect(doc).toContain(`\`'${kind}'\``);
  });

  it('is linked from the README', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain('docs/errors.md');
  });
});
