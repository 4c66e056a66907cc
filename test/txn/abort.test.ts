// Cancelling repository work (issue 16, item 3): on every local backend an already-aborted
// signal changes nothing; a commit aborted midway (while it writes manifests, or as late as the
// repo-info backup just before its compare-and-swap) leaves the branch where it was and the
// repository readable, and the same session then commits; long session reads and GC stop
// promptly with ABORTED.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { withFaults } from '../../src/engine/storage/faults.ts';
import { FsStorage } from '../../src/engine/storage/fs.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { SqliteStorage } from '../../src/engine/storage/sqlite.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { isFloeError } from '../../src/errors.ts';
import { FakeClock } from '../../src/testing/fake-clock.ts';
import { BasicConflictSolver, Repository, Storage } from '../../src/txn/index.ts';
import { configuredBackoff } from '../../src/txn/config.ts';
import { abortedSignal, failure, keysOf } from '../support/abort.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-txn-abort-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const backends: [string, () => ObjectStorage][] = [
  ['memory', () => new MemoryStorage()],
  ['fs', () => new FsStorage({ root: mkdtempSync(path.join(scratch, 'fs-')) })],
  ['sqlite', () => new SqliteStorage({ file: path.join(mkdtempSync(path.join(scratch, 'sqlite-')), 'repo.sqlite') })],
];

const int32 = (n: number, chunk: number) => ({ shape: [n], chunkShape: [chunk], dataType: 'int32', fillValue: 0 }) as never;

const read = async (repo: Repository, p: string) =>
  Array.from((await (await ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, p)).get()).data as Int32Array);

/** A repository whose `main` holds /a = 1..8, committed, and a writable session with /a = 11..18 written. */
async function repositoryWithChanges(backend: ObjectStorage) {
  const repo = await Repository.create(Storage.fromObjectStorage(backend));
  const setup = await repo.writableSession('main');
  await (await ZarrArray.create(setup.store, '/a', int32(8, 2))).set(undefined, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
  const base = await setup.commit('base');
  const session = await repo.writableSession('main');
  await (await ZarrArray.open(session.store, '/a')).set(undefined, Int32Array.from([11, 12, 13, 14, 15, 16, 17, 18]));
  return { repo, base, session };
}

describe.each(backends)('an already-aborted signal on a %s repository', (_name, makeStorage) => {
  it('rejects repository, session and maintenance calls with ABORTED and writes nothing', async () => {
    const backend = makeStorage();
    const { repo, base, session } = await repositoryWithChanges(backend);
    const before = await keysOf(backend);
    const signal = abortedSignal();
    const storage = Storage.fromObjectStorage(backend);
    const calls: [string, () => Promise<unknown>][] = [
      ['open', () => Repository.open(storage, null, {}, { signal })],
      ['exists', () => Repository.exists(storage, { signal })],
      ['readonlySession', () => repo.readonlySession({ branch: 'main', signal })],
      ['writableSession', () => repo.writableSession('main', { signal })],
      ['commit', () => session.commit('never', { signal })],
      ['rebase', () => session.rebase(undefined, { signal })],
      ['session read', () => ZarrArray.open(session.store, '/a', { signal })],
      ['session write', async () => (await ZarrArray.open(session.store, '/a')).set(undefined, 7, { signal })],
      ['createBranch', () => repo.createBranch('b', base, { signal })],
      ['createTag', () => repo.createTag('t', base, { signal })],
      ['resetBranch', () => repo.resetBranch('main', base, undefined, { signal })],
      ['listBranches', () => repo.listBranches({ signal })],
      ['lookupSnapshot', () => repo.lookupSnapshot(base, { signal })],
      ['ancestry', async () => {
        for await (const s of repo.ancestry({ branch: 'main', signal })) void s;
      }],
      ['diff', () => repo.diff({ fromBranch: 'main', toSnapshotId: base, signal })],
      ['setMetadata', () => repo.setMetadata({ a: 1 }, { signal })],
      ['expireSnapshots', () => repo.expireSnapshots(new Date(), { signal })],
      ['garbageCollect', () => repo.garbageCollect(new Date(Date.now() - 1000), { allowShortGrace: true, signal })],
      ['opsLog', async () => {
        for await (const item of repo.opsLog({ signal })) void item;
      }],
    ];
    for (const [what, call] of calls) {
      const { err } = await failure(call());
      expect(isFloeError(err, 'ABORTED') ? err.details : err, what).toEqual({ timedOut: false, reason: 'cancelled' });
    }
    expect(await keysOf(backend)).toEqual(before);
    expect(await repo.lookupBranch('main')).toBe(base);
    expect(await repo.listBranches()).toEqual(['main']);
    expect(await session.commit('now')).not.toBe(base); // the session kept its changes
    expect(await read(repo, '/a')).toEqual([11, 12, 13, 14, 15, 16, 17, 18]);
    await backend.close();
  });
});

describe.each(backends)('a commit aborted midway on %s', (_name, makeStorage) => {
  /**
   * A backend that, once armed, fires `controller` as the first write under `prefix` starts, or
   * once it is done.
   */
  function abortingAt(prefix: string, when: 'before' | 'after', controller: AbortController) {
    const trap = { armed: false };
    const stop = (key: string) => controller.abort(new Error(`stopped at ${key}`));
    const storage = wrapStorage(makeStorage(), async (call, run) => {
      const hit = trap.armed && call.operation === 'put' && call.key.startsWith(prefix) && !controller.signal.aborted;
      if (hit && when === 'before') stop(call.key);
      const result = await run();
      if (hit && when === 'after') stop(call.key);
      return result;
    });
    return { storage, trap };
  }

  // The last case aborts after the repo-info backup is written, just before the compare-and-swap.
  const cases: [string, 'before' | 'after'][] = [['manifests/', 'before'], ['snapshots/', 'after'], ['overwritten/', 'after']];
  for (const [prefix, when] of cases) {
    it(`keeps the branch and its data when stopped ${when} the first ${prefix} write; the session then commits`, async () => {
      const controller = new AbortController();
      const { storage: backend, trap } = abortingAt(prefix, when, controller);
      const { repo, base, session } = await repositoryWithChanges(backend);
      trap.armed = true;
      const { err } = await failure(session.commit('aborted', { signal: controller.signal }));
      trap.armed = false;
      expect(isFloeError(err, 'ABORTED') && err.details.reason).toMatch(/^stopped at /);
      expect(await repo.lookupBranch('main')).toBe(base);
      expect(await read(repo, '/a')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const reopened = await Repository.open(Storage.fromObjectStorage(backend));
      expect(await reopened.lookupBranch('main')).toBe(base);
      expect((await reopened.ancestry({ branch: 'main' }).next()).value?.message).toBe('base');
      const tip = await session.commit('again');
      expect(tip).not.toBe(base);
      expect(await repo.lookupBranch('main')).toBe(tip);
      expect(await read(repo, '/a')).toEqual([11, 12, 13, 14, 15, 16, 17, 18]);
      await backend.close();
    });
  }
});

describe('long repository work stops promptly', () => {
  /** A repository with one array of 1,000 chunks of 1 KiB (not inline), read through a backend whose reads take 10 ms. */
  async function slowRepository() {
    const memory = new MemoryStorage();
    const repo = await Repository.create(Storage.fromObjectStorage(memory), {}, 2, {}, { chunkPacking: false });
    const session = await repo.writableSession('main');
    await (await ZarrArray.create(session.store, '/a', int32(256_000, 256))).set(undefined, Int32Array.from({ length: 256_000 }, (_, i) => i + 1));
    await session.commit('1,000 chunks');
    let gets = 0;
    const counted = wrapStorage(memory, (call, run) => (call.operation === 'get' && gets++, run()));
    const slow = withFaults(counted, (call) => (call.operation === 'get' ? { kind: 'delay', ms: 10 } : undefined));
    return { repo: await Repository.open(Storage.fromObjectStorage(slow)), gets: () => gets };
  }

  it('a session read aborted midway rejects at once and starts no chunk read after', async () => {
    const { repo, gets } = await slowRepository();
    const array = await ZarrArray.open((await repo.readonlySession()).store, '/a');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { err, ms } = await failure(array.get(undefined, { signal: controller.signal }));
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    expect(ms).toBeLessThan(1000); // the whole read takes over 1.2 s
    const atAbort = gets();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gets()).toBe(atAbort);
    expect((await array.get()).data).toHaveLength(256_000); // the session still reads
  });

  it('AbortSignal.timeout on a session read is ABORTED with timedOut', async () => {
    const { repo } = await slowRepository();
    const array = await ZarrArray.open((await repo.readonlySession()).store, '/a');
    const { err, ms } = await failure(array.get(undefined, { signal: AbortSignal.timeout(60) }));
    expect(isFloeError(err, 'ABORTED') && err.details.timedOut).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it('garbage collection aborted while sweeping can run again to the end', async () => {
    const memory = new MemoryStorage({ clock: new FakeClock({ startMs: Date.now() - 3_600_000 }) }); // every object an hour old
    const repo = await Repository.create(Storage.fromObjectStorage(memory), {}, 2, {}, { chunkPacking: false });
    const session = await repo.writableSession('main');
    const array = await ZarrArray.create(session.store, '/a', int32(200 * 256, 256));
    await array.set(undefined, 1);
    await session.commit('one');
    await array.set(undefined, 2); // replaces all 200 chunk objects (1 KiB each): the old ones become garbage
    await session.commit('two');
    await repo.expireSnapshots(new Date());
    const controller = new AbortController();
    const deleting = wrapStorage(memory, (call, run) => {
      if (call.operation === 'delete') controller.abort();
      return run();
    });
    const gcRepo = await Repository.open(Storage.fromObjectStorage(deleting));
    const { err } = await failure(gcRepo.garbageCollect(new Date(), { allowShortGrace: true, signal: controller.signal, deleteBatchSize: 10 }));
    expect(isFloeError(err, 'ABORTED')).toBe(true);
    const summary = await repo.garbageCollect(new Date(), { allowShortGrace: true });
    expect(summary.deleted.chunks.objects).toBeGreaterThan(0);
    expect(summary.deleted.chunks.objects).toBe(200);
    expect(await read(repo, '/a')).toEqual(Array.from({ length: 200 * 256 }, () => 2));
  });
});

describe('waits on the repository clock end at an abort', () => {
  /** `promise`'s rejection, or 'hung' when it has not settled within 2 s. */
  const settledOrHung = (promise: Promise<unknown>) =>
    Promise.race([failure(promise).then(({ err }) => err), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 2000))]);
  const detailsOf = (err: unknown) => (isFloeError(err, 'ABORTED') ? err.details : err);

  it('a commit in its rebase backoff stops when the signal fires, though the clock never moves', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const repo = await Repository.create(Storage.newInMemory(), {}, 2, {}, { clock });
    const setup = await repo.writableSession('main');
    await ZarrArray.create(setup.store, '/a', int32(4, 2));
    await ZarrArray.create(setup.store, '/b', int32(4, 2));
    await setup.commit('arrays');
    const first = await repo.writableSession('main');
    const second = await repo.writableSession('main');
    await (await ZarrArray.open(first.store, '/a')).set(undefined, 1);
    await (await ZarrArray.open(second.store, '/b')).set(undefined, 2);
    const tip = await first.commit('a');
    const controller = new AbortController();
    const committing = second.commit('b', { rebaseWith: new BasicConflictSolver(), signal: controller.signal });
    for (let i = 0; i < 200 && clock.pendingSleeps === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.pendingSleeps).toBe(1); // the branch moved: waiting before the rebase
    controller.abort('stop');
    expect(detailsOf(await settledOrHung(committing))).toEqual({ timedOut: false, reason: 'stop' });
    expect(clock.pendingSleeps).toBe(0);
    expect(await repo.lookupBranch('main')).toBe(tip);
  });

  it('the configured repo-info backoff sleeps on the clock, and an abort ends it', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const backoff = configuredBackoff({ initialMs: 100, maxMs: 100 }, clock);
    const first = backoff(1);
    expect(clock.pendingSleeps).toBe(1);
    clock.advance(100);
    await first;
    const controller = new AbortController();
    const second = backoff(2, controller.signal);
    expect(clock.pendingSleeps).toBe(1);
    controller.abort('stop');
    expect(detailsOf(await settledOrHung(second))).toEqual({ timedOut: false, reason: 'stop' });
    expect(clock.pendingSleeps).toBe(0);
  });
});
