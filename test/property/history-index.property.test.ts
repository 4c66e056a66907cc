// The history index against the linear definition it replaced: a search of the snapshot list
// for every lookup and every ancestry step. Lists are random — duplicate ids, parents missing
// from the list (expired or never written), loops a damaged file could hold — and random
// histories grown commit by commit with branches, then partly expired. Every answer must be the
// same object in the same order; the derived index of an appended list must equal a fresh build;
// the encoded payload must not depend on which path built the index.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { appendSnapshot, historyIndex, HistoryIndex } from '../../src/format/icechunk/history-index.ts';
import { asSnapshotId, idToString, INITIAL_SNAPSHOT_ID, type SnapshotId } from '../../src/format/icechunk/ids.ts';
import { REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { decodeRepoInfo, encodeRepoInfo, encodeRepoInfoPayload, type RepoInfo, type SnapshotInfo } from '../../src/format/icechunk/repo-info.ts';
import { ancestors, snapshotAsOf } from '../../src/txn/history.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { planExpiry, type ExpireResult } from '../../src/txn/maintenance/expire.ts';
import { codeOf } from '../support/error-code.ts';

const RUNS = Number(process.env.FLOE_HISTORY_PROPERTY_RUNS ?? 200);
const REPO_RUNS = Number(process.env.FLOE_HISTORY_REPO_PROPERTY_RUNS ?? 25);

// ---- the linear definitions ----------------------------------------------------------------
const hex = (id: Uint8Array) => Buffer.from(id).toString('hex');
const sameId = (a: Uint8Array, b: Uint8Array) => hex(a) === hex(b);

function findLinear(list: readonly SnapshotInfo[], id: Uint8Array): SnapshotInfo | undefined {
  return list.find((s) => sameId(s.id, id));
}

function ancestryLinear(list: readonly SnapshotInfo[], from: Uint8Array): SnapshotInfo[] {
  const out: SnapshotInfo[] = [];
  const seen = new Set<string>();
  let current = findLinear(list, from);
  while (current && !seen.has(hex(current.id))) {
    seen.add(hex(current.id));
    out.push(current);
    current = current.parentId ? findLinear(list, current.parentId) : undefined;
  }
  return out;
}

// ---- arbitraries -------------------------------------------------------------------------
const idArb = fc.uint8Array({ minLength: 12, maxLength: 12 }).map((b) => asSnapshotId(b));
const poolArb = fc.uniqueArray(idArb, { minLength: 1, maxLength: 24, selector: hex });

const snapshot = (id: SnapshotId, parentId: SnapshotId | null, flushedAt: number): SnapshotInfo => ({ id, parentId, flushedAt, message: `m${flushedAt}`, metadata: [] });

/** Any list over a small id pool: duplicates, parents outside the list, loops. */
const anyListArb = poolArb.chain((pool) =>
  fc.record({
    pool: fc.constant(pool),
    list: fc.array(
      fc.record({ id: fc.nat(pool.length - 1), parent: fc.option(fc.nat(pool.length - 1), { freq: 4 }), at: fc.nat(1000) }),
      { maxLength: 40 },
    ).map((rows) => rows.map((r) => snapshot(pool[r.id]!, r.parent === null ? null : pool[r.parent]!, r.at))),
  }),
);

/**
 * A history as commits make it: each snapshot's parent is an earlier one (a branch forks where
 * it points at an older snapshot), times rise; then some non-roots are dropped (expired), which
 * leaves their children with missing parents, and the list is shuffled.
 */
const dagArb = fc
  .record({
    ids: fc.uniqueArray(idArb, { minLength: 1, maxLength: 40, selector: hex }),
    parents: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 40 }),
    dropped: fc.array(fc.nat(39), { maxLength: 6 }),
    order: fc.array(fc.nat(1000), { minLength: 40, maxLength: 40 }),
  })
  .map(({ ids, parents, dropped, order }) => {
    const full = ids.map((id, i) => {
      // The first snapshot is the root; later ones mostly extend the newest, sometimes fork.
      const back = Math.floor((parents[i] ?? 0) ** 2 * i);
      return snapshot(id, i === 0 ? null : ids[i - 1 - back]!, 1000 + i * 10);
    });
    const gone = new Set(dropped.filter((d) => d > 0 && d < full.length));
    const kept = full.filter((_, i) => !gone.has(i));
    const shuffled = kept.map((s, i) => ({ s, k: order[i] ?? 0 })).sort((a, b) => a.k - b.k).map((x) => x.s);
    return { full, list: shuffled, expired: gone.size > 0 };
  });

const absent = asSnapshotId(new Uint8Array(12).fill(0xee));
const probeIds = (list: readonly SnapshotInfo[], pool: readonly SnapshotId[] = []) => [...pool, ...list.map((s) => s.id), absent];

function expectLinear(list: readonly SnapshotInfo[], index: HistoryIndex<SnapshotInfo>, ids: readonly SnapshotId[]): void {
  for (const id of ids) {
    expect(index.find(id)).toBe(findLinear(list, id));
    const got = [...index.ancestry(id)];
    const want = ancestryLinear(list, id);
    expect(got.length).toBe(want.length);
    got.forEach((s, i) => expect(s).toBe(want[i]));
  }
}

function expectSameIndex(a: HistoryIndex<SnapshotInfo>, b: HistoryIndex<SnapshotInfo>): void {
  expect(a.size).toBe(b.size);
  a.sorted.forEach((s, i) => expect(s).toBe(b.sorted[i]));
  for (let i = 0; i < a.size; i++) expect(a.parentPosition(i)).toBe(b.parentPosition(i));
  expect(a.cyclic).toBe(b.cyclic);
  expect(a.missingParents).toBe(b.missingParents);
}

function repoInfoOf(list: readonly SnapshotInfo[], tips: readonly SnapshotId[]): RepoInfo {
  return {
    specVersion: 2,
    repoSpecVersion: 2,
    tags: tips.slice(1).map((id, i) => ({ name: `t${i}`, snapshotId: id })),
    branches: tips.slice(0, 1).map((id) => ({ name: 'main', snapshotId: id })),
    deletedTags: [],
    snapshots: list,
    status: { availability: 'online', setAt: 1, limitedAvailabilityReason: null },
    metadata: [],
    latestUpdates: [],
    repoBeforeUpdates: null,
    config: null,
    enabledFeatureFlags: null,
    disabledFeatureFlags: null,
  };
}

// ---- properties ----------------------------------------------------------------------------
describe('history index = linear search of the snapshot list', () => {
  it('lookups and ancestry walks on any list (duplicates, missing parents, loops)', () => {
    fc.assert(
      fc.property(anyListArb, ({ pool, list }) => {
        expectLinear(list, HistoryIndex.build(list), probeIds(list, pool));
      }),
      { numRuns: RUNS },
    );
  });

  it('finds loops exactly when a walk meets a snapshot twice', () => {
    fc.assert(
      fc.property(anyListArb, ({ pool, list }) => {
        const loops = pool.some((id) => {
          const chain = ancestryLinear(list, id);
          const last = chain.at(-1);
          return last?.parentId != null && chain.some((s) => sameId(s.id, last.parentId!));
        });
        expect(HistoryIndex.build(list).cyclic).toBe(loops);
      }),
      { numRuns: RUNS },
    );
  });

  it('as-of: the newest ancestor written at or before the time', () => {
    fc.assert(
      fc.property(anyListArb, fc.nat(1100), ({ pool, list }, limitMicros) => {
        const info = repoInfoOf(list, []);
        for (const id of probeIds(list, pool)) {
          // snapshotAsOf takes a Date (ms); the list's times are µs.
          const asOf = new Date(limitMicros / 1000);
          const want = ancestryLinear(list, id).find((s) => s.flushedAt <= asOf.getTime() * 1000);
          expect(snapshotAsOf(info, id, asOf)).toBe(want);
          expect([...ancestors(info, id)]).toEqual(ancestryLinear(list, id));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('an appended list: the derived index equals a fresh build and answers like the linear search', () => {
    fc.assert(
      fc.property(anyListArb, idArb, fc.option(fc.nat(30)), ({ pool, list }, newId, parentPick) => {
        const parentId = parentPick === null ? null : (pool[parentPick % pool.length] ?? null);
        const added = snapshot(newId, parentId, 2000);
        const base = HistoryIndex.build(list);
        const next = [...list, added];
        const derived = base.appended(added);
        const fresh = HistoryIndex.build(next);
        // Derivation is refused only where the new id could change an old answer.
        const mayRefuse = base.missingParents > 0 || findLinear(list, newId) !== undefined;
        if (!mayRefuse) expect(derived).toBeDefined();
        if (derived) expectSameIndex(derived, fresh);
        const viaCache = appendSnapshot(list, added);
        expect(viaCache).toEqual(next);
        expectLinear(next, historyIndex(viaCache), probeIds(next, [...pool, newId]));
      }),
      { numRuns: RUNS },
    );
  });

  it('commit by commit: a chain of derived indexes stays equal to fresh builds', () => {
    fc.assert(
      fc.property(dagArb, ({ full }) => {
        let list: readonly SnapshotInfo[] = [];
        for (const s of full) {
          list = appendSnapshot(list, s);
          expectSameIndex(historyIndex(list), HistoryIndex.build(list));
        }
        expectLinear(list, historyIndex(list), probeIds(list));
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

describe('the encoded repo info does not depend on how the index was built', () => {
  it('fresh, shuffled, appended and decoded lists encode to the same payload; the decoded index answers like the linear search', () => {
    fc.assert(
      fc.property(dagArb, fc.array(fc.nat(39), { minLength: 1, maxLength: 3 }), ({ full, list }, tipPicks) => {
        const tips = tipPicks.map((i) => full[i % full.length]!.id).filter((t) => findLinear(list, t));
        const info = repoInfoOf(list, tips);
        // Only lists whose parents are all present can be written: the encoder refuses the rest.
        if (!list.every((s) => s.parentId === null || findLinear(list, s.parentId))) {
          expect(codeOf(() => encodeRepoInfoPayload(info))).toBe('INVALID_ARGUMENT');
          return;
        }
        const payload = Buffer.from(encodeRepoInfoPayload(info));
        const reversed = Buffer.from(encodeRepoInfoPayload({ ...info, snapshots: [...list].reverse() }));
        let grown: readonly SnapshotInfo[] = [];
        for (const s of list) grown = appendSnapshot(grown, s);
        const appended = Buffer.from(encodeRepoInfoPayload({ ...info, snapshots: grown }));
        const decoded = decodeRepoInfo(encodeRepoInfo(info));
        expect(reversed.equals(payload)).toBe(true);
        expect(appended.equals(payload)).toBe(true);
        expect(Buffer.from(encodeRepoInfoPayload(decoded)).equals(payload)).toBe(true);
        expectLinear(decoded.snapshots, historyIndex(decoded.snapshots), probeIds(decoded.snapshots));
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- expiry against the linear plan ---------------------------------------------------------
/** The expiry plan computed with linear searches and id strings, as before the index. */
function planExpiryLinear(info: RepoInfo, cutoff: number, deleteRefs: boolean): { ids: string[]; parents: (string | null)[]; result: ExpireResult } {
  const key = (id: Uint8Array) => hex(id);
  const expired = new Set(info.snapshots.filter((s) => s.parentId !== null && s.flushedAt < cutoff).map((s) => key(s.id)));
  const protectedTips = new Set<string>();
  if (!deleteRefs) for (const r of [...info.tags, ...info.branches]) protectedTips.add(key(r.snapshotId));
  const main = info.branches.find((b) => b.name === 'main');
  if (main) protectedTips.add(key(main.snapshotId));
  const released = new Set([...expired].filter((id) => !protectedTips.has(id)));
  const rootOf = new Map<string, SnapshotId>();
  for (const ref of [...info.tags, ...info.branches]) {
    const chain = ancestryLinear(info.snapshots, ref.snapshotId);
    const last = chain.at(-1);
    const root = last && last.parentId === null ? last.id : INITIAL_SNAPSHOT_ID;
    for (const s of chain) if (!rootOf.has(key(s.id))) rootOf.set(key(s.id), root);
  }
  const kept = info.snapshots.filter((s) => !released.has(key(s.id)));
  const edited = kept.filter((s) => s.parentId && released.has(key(s.parentId)));
  const parents = kept.map((s) => (s.parentId && released.has(key(s.parentId)) ? idToString(rootOf.get(key(s.id)) ?? INITIAL_SNAPSHOT_ID) : s.parentId && idToString(s.parentId)));
  const deletedTags = deleteRefs ? info.tags.filter((t) => expired.has(key(t.snapshotId))).map((t) => t.name) : [];
  const deletedBranches = deleteRefs ? info.branches.filter((b) => b.name !== 'main' && expired.has(key(b.snapshotId))).map((b) => b.name) : [];
  const releasedIds = info.snapshots.filter((s) => released.has(key(s.id))).map((s) => idToString(s.id));
  return {
    ids: kept.map((s) => idToString(s.id)),
    parents,
    result: {
      releasedSnapshots: [...new Set(releasedIds)].sort(),
      editedSnapshots: edited.map((s) => idToString(s.id)).sort(),
      deletedBranches: deletedBranches.sort(),
      deletedTags: deletedTags.sort(),
    },
  };
}

describe('expiry planning on the index = the linear plan', () => {
  it('releases, re-parents and deletes the same snapshots and refs', () => {
    fc.assert(
      fc.property(dagArb, fc.array(fc.nat(39), { minLength: 1, maxLength: 4 }), fc.nat(1500), fc.boolean(), ({ full, list }, tipPicks, cutoff, deleteRefs) => {
        const tips = tipPicks.map((i) => full[i % full.length]!.id).filter((t) => findLinear(list, t));
        const info = { ...repoInfoOf(list, tips), branches: tips.map((id, i) => ({ name: i === 0 ? 'main' : `b${i}`, snapshotId: id })) };
        const want = planExpiryLinear(info, cutoff, deleteRefs);
        let plan: ReturnType<typeof planExpiry>;
        try {
          plan = planExpiry(info, cutoff, { deleteExpiredBranches: deleteRefs, deleteExpiredTags: deleteRefs });
        } catch (err) {
          // The one refusal: a ref the plan would leave dangling (the linear plan would too).
          expect((err as { code?: string }).code).toBe('CONFLICT');
          return;
        }
        expect(plan.result).toEqual(want.result);
        expect(plan.info.snapshots.map((s) => idToString(s.id))).toEqual(want.ids);
        expect(plan.info.snapshots.map((s) => s.parentId && idToString(s.parentId))).toEqual(want.parents);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- a repository's log --------------------------------------------------------------------
describe('Repository.ancestry on a written history = the linear ancestry of the file', () => {
  it('lists every snapshot and its ancestors newest first, as the linear walk does', async () => {
    await fc.assert(
      fc.asyncProperty(dagArb, async ({ full }) => {
        const backend = new MemoryStorage();
        await Repository.create(Storage.fromObjectStorage(backend));
        const current = decodeRepoInfo((await backend.get(REPO_INFO_KEY))!.bytes);
        // The generated history hangs below the repository's initial snapshot.
        const initial = current.snapshots[0]!;
        const list = [initial, ...full.map((s) => (s.parentId === null ? { ...s, parentId: initial.id } : s))];
        const tip = list.at(-1)!;
        const next = { ...current, snapshots: list, branches: [{ name: 'main', snapshotId: tip.id }] };
        await backend.put(REPO_INFO_KEY, encodeRepoInfo(next));
        const reopened = await Repository.open(Storage.fromObjectStorage(backend));
        const decoded = decodeRepoInfo((await backend.get(REPO_INFO_KEY))!.bytes).snapshots;
        for (const s of [list[1] ?? tip, tip]) {
          const log: string[] = [];
          for await (const d of reopened.ancestry({ snapshotId: idToString(s.id) })) log.push(d.id);
          expect(log).toEqual(ancestryLinear(decoded, s.id).map((a) => idToString(a.id)));
        }
      }),
      { numRuns: REPO_RUNS },
    );
  });
});
