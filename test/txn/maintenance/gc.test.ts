import { describe, expect, it } from 'vitest';
import { GarbageCollection, GC_MINIMUM_GRACE_MS } from '../../../src/txn/index.ts';
import { commitValues, expiredHistory, keysUnder, memoryRepo, readValues } from './helpers.ts';

const MIN = 60_000;
const ones = (v: number) => Array.from({ length: 8 }, () => v);

const historyThenExpire = () => expiredHistory(4);

describe('garbageCollect', () => {
  it('deletes unreachable old chunks, manifests, snapshots and logs; every ref still reads', async () => {
    const { repo, backend, clock } = await historyThenExpire();
    const chunksBefore = (await keysUnder(backend, 'chunks/')).length;
    const dry = await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true, dryRun: true });
    expect(dry.deleted.chunks.objects).toBe(4); // 4 expired commits x 1 pack of 4 chunks
    expect(dry.wouldDelete!.filter((k) => k.startsWith('chunks/'))).toHaveLength(4);
    expect((await keysUnder(backend, 'chunks/')).length).toBe(chunksBefore); // nothing deleted
    const summary = await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true });
    expect(summary.deleted.chunks).toEqual(dry.deleted.chunks);
    expect(summary.deleted.snapshots.objects).toBe(4);
    expect(summary.deleted.transactionLogs.objects).toBe(4);
    expect(summary.deleted.manifests.objects).toBe(4);
    expect(summary.deleted.chunks.bytes).toBeGreaterThan(0);
    expect((await keysUnder(backend, 'chunks/')).length).toBe(chunksBefore - 4);
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(9));
    const log = [];
    for await (const item of repo.opsLog()) log.push(item.update.kind);
    expect(log.slice(0, 2)).toEqual(['gcRan', 'expirationRan']);
    // A second run finds nothing.
    expect((await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true })).deleted.chunks.objects).toBe(0);
  });

  it('keeps unreachable objects inside the grace period and refuses a cutoff in the future', async () => {
    const { repo, clock, cutoff } = await historyThenExpire();
    const summary = await repo.garbageCollect(new Date(cutoff.getTime() - 2 * MIN), { allowShortGrace: true });
    expect(summary.deleted.chunks.objects).toBe(0);
    expect(summary.deleted.snapshots.objects).toBe(0);
    await expect(repo.garbageCollect(new Date(clock.nowMs() + 1))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('refuses a grace period below the minimum unless allowShortGrace, and says why', async () => {
    const { repo, clock } = await historyThenExpire();
    const HOUR = 60 * MIN;
    expect(GC_MINIMUM_GRACE_MS).toBe(HOUR); // the documented default
    clock.advance(2 * HOUR);
    const err = await repo.garbageCollect(new Date(clock.nowMs() - HOUR + 1)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String((err as Error).message)).toMatch(/grace period .* is 3599.999 s, below the minimum of 1 h: a commit in flight .*allowShortGrace/);
    await expect(repo.garbageCollector(new Date(clock.nowMs() - 300), { dryRun: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Exactly the minimum is allowed; so is a short grace when forced.
    expect((await repo.garbageCollect(new Date(clock.nowMs() - HOUR), { dryRun: true })).deleted.chunks.objects).toBe(4);
    expect((await repo.garbageCollect(new Date(clock.nowMs() - 300), { dryRun: true, allowShortGrace: true })).deleted.chunks.objects).toBe(4);
  });

  it('works in budgeted steps and resumes from a plain-data cursor', async () => {
    const { repo, backend, clock, expiredChunks } = await historyThenExpire();
    const gc = await repo.garbageCollector(new Date(clock.nowMs()), { allowShortGrace: true, maxConcurrentDeletes: 2 });
    const first = await gc.run({ maxObjects: 3 });
    expect(first.done).toBe(false);
    expect(first.summary.scanned).toBe(3);
    // Resume in a "new process": only the JSON cursor survives.
    const cursor = JSON.parse(JSON.stringify(first.cursor));
    const resumed = await repo.garbageCollector(new Date(0), { allowShortGrace: true, cursor });
    let step = await resumed.run({ maxObjects: 5 });
    let steps = 1;
    while (!step.done && steps < 100) {
      step = await resumed.run({ maxObjects: 5 });
      steps++;
    }
    expect(step.done).toBe(true);
    expect(steps).toBeGreaterThan(3);
    expect(step.summary.deleted.chunks.objects).toBe(4);
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(9));
    expect((await keysUnder(backend, 'snapshots/')).length).toBe(2);
    expect(GarbageCollection).toBeTypeOf('function');
  });

  it('a snapshot committed during an incremental run keeps its objects', async () => {
    const { repo, clock } = await historyThenExpire();
    const gc = await repo.garbageCollector(new Date(clock.nowMs()), { allowShortGrace: true });
    await gc.run({ maxObjects: 1 });
    // A writer commits in between steps, then its branch tip is all that refers to these chunks.
    await commitValues(repo, 'main', ones(42));
    clock.advance(MIN);
    await repo.garbageCollector(new Date(clock.nowMs()), { allowShortGrace: true }); // another run marks; nothing to drop
    await gc.runToCompletion();
    expect(await readValues(repo, { branch: 'main' })).toEqual(ones(42));
  });

  it('drops unreachable old snapshots from the repo info, keeps new detached ones, deletes lost-race backups only', async () => {
    const { repo, backend, clock } = await memoryRepo();
    clock.advance(MIN);
    const a = await commitValues(repo, 'main', ones(1));
    await repo.createBranch('gone', a);
    await commitValues(repo, 'gone', ones(2));
    await repo.deleteBranch('gone');
    // A backup no ops-log entry names (a writer that lost its compare-and-swap).
    await backend.put('overwritten/repo.09000000000000.AAAAAAAAAAAAAAAAAAAA', new Uint8Array([1]));
    clock.advance(MIN);
    const summary = await repo.garbageCollect(new Date(clock.nowMs()), { allowShortGrace: true });
    expect(summary.snapshotsDroppedFromRepoInfo).toBe(1);
    expect(summary.deleted.backups.objects).toBe(1);
    expect((await repo.repoInfo()).snapshots).toHaveLength(2);
    const log = [];
    for await (const item of repo.opsLog()) log.push(item.update.kind);
    expect(log).toEqual(['gcRan', 'branchDeleted', 'newCommit', 'branchCreated', 'newCommit', 'repoInitialized']);
    expect(await readValues(repo, { snapshotId: a })).toEqual(ones(1));
  });
});
