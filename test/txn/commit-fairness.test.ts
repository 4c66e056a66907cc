// The attempt bound of docs/transactions.md on the real commit path: N writers, each its own
// Repository over one in-memory storage (as separate processes would be), every request taking
// 50 ± 10 ms of a virtual clock, committing C times with rebase. A commit loses a round only to
// another writer's commit landed while it ran, so (N − 1)·C + 1 attempts always suffice: with that
// as rebaseTries no commit may fail. The proof does not depend on timing, so the test holds however
// the event loop interleaves the writers.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/engine/storage/clock.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { PREFIXES } from '../../src/format/icechunk/keys.ts';
import { BasicConflictSolver, Repository } from '../../src/txn/index.ts';
import { seeded } from '../support/commit-race-model.ts';
import { createArray, createGroup, writeChunk } from './conflict-fixtures.ts';

/** A clock whose time moves only when every writer is waiting on it: then to the earliest wake-up. */
class VirtualClock implements Clock {
  private now = Date.UTC(2030, 0, 1);
  private sleepers: { dueMs: number; order: number; wake: () => void }[] = [];
  private order = 0;

  nowMs(): number {
    return this.now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve) => {
      this.sleepers.push({ dueMs: this.now + Math.max(0, Number.isFinite(ms) ? ms : 0), order: this.order++, wake: resolve });
    });
  }

  /**
   * Runs until `finished` settles, moving time to the earliest wake-up whenever the event loop has
   * run dry; bounded in clock steps and in real waits (a writer may be loading a module, which
   * takes real time and no virtual time).
   */
  async runUntil(finished: Promise<unknown>, maxSteps: number, maxIdleWaits = 5000): Promise<void> {
    let done = false;
    void finished.finally(() => (done = true)).catch(() => {});
    let idle = 0;
    for (let step = 0; step < maxSteps; ) {
      for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
      if (done) return;
      this.sleepers.sort((a, b) => a.dueMs - b.dueMs || a.order - b.order);
      const next = this.sleepers.shift();
      if (!next) {
        if (++idle > maxIdleWaits) throw new Error('every writer is stuck without a sleep to wake');
        await new Promise<void>((r) => setTimeout(r, 2));
        continue;
      }
      step++;
      this.now = Math.max(this.now, next.dueMs);
      next.wake();
    }
    throw new Error(`writers still running after ${maxSteps} clock steps`);
  }
}

const WRITERS = 6;
const COMMITS = 2;
const BOUND = (WRITERS - 1) * COMMITS + 1;

describe('commit retries between writers (real commit path, virtual time)', () => {
  it(`${WRITERS} writers × ${COMMITS} commits: every commit lands within (N − 1)·C + 1 = ${BOUND} attempts`, async () => {
    const clock = new VirtualClock();
    const shared = new MemoryStorage();
    const setup = await Repository.create(shared);
    const s0 = await setup.writableSession('main');
    await createGroup(s0.store, '/');
    await createArray(s0.store, '/a');
    const base = await s0.commit('array');

    const landed: { writer: number; id: string; attempts: number; openedMs: number; landedMs: number }[] = [];
    const writer = async (w: number): Promise<void> => {
      const latency = seeded(1000 + w);
      let snapshotPuts = 0;
      const storage = wrapStorage(shared, async (call, run) => {
        await clock.sleep(50 + (2 * latency() - 1) * 10);
        if (call.operation === 'put' && call.key.startsWith(PREFIXES.snapshots)) snapshotPuts++;
        return run();
      });
      const repo = await Repository.open(storage, null, {}, { clock });
      const backoff = seeded(2000 + w);
      for (let k = 0; k < COMMITS; k++) {
        const openedMs = clock.nowMs();
        const session = await repo.writableSession('main');
        await writeChunk(session.store, '/a', w % 2, w * 10 + k);
        const before = snapshotPuts;
        const id = await session.commit(`writer ${w} commit ${k}`, {
          rebaseWith: new BasicConflictSolver(), rebaseTries: BOUND, retryBackoff: { random: backoff },
        });
        landed.push({ writer: w, id, attempts: snapshotPuts - before, openedMs, landedMs: clock.nowMs() });
      }
    };
    await clock.runUntil(Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))), 200_000);

    expect(landed).toHaveLength(WRITERS * COMMITS);
    for (const c of landed) {
      expect(c.attempts).toBeGreaterThanOrEqual(1);
      expect(c.attempts).toBeLessThanOrEqual(BOUND);
      // Each lost round is another writer's commit that landed after this one read its base.
      const others = landed.filter((o) => o.writer !== c.writer && o.landedMs >= c.openedMs && o.landedMs <= c.landedMs).length;
      expect(c.attempts - 1).toBeLessThanOrEqual(others);
    }
    // Contention happened (the test exercises retries) and every commit is on main once, in a line.
    expect(landed.some((c) => c.attempts > 1)).toBe(true);
    const onMain: string[] = [];
    for await (const s of setup.ancestry({ branch: 'main' })) onMain.push(s.id);
    expect(new Set(onMain).size).toBe(onMain.length);
    expect(onMain.slice(0, WRITERS * COMMITS).sort()).toEqual(landed.map((c) => c.id).sort());
    expect(onMain[WRITERS * COMMITS]).toBe(base);
  });
});
