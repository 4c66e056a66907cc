// What one lost compare-and-swap round costs a commit, in requests. Two writers, each its own
// Repository over one storage (as two processes): ours reaches its swap, and just before it (at
// its repo-info backup) theirs lands a commit on the same array. Our swap then fails, and we
// count every request of ours from that failure to our landing:
//
//   learn the new tip      GET repo                               1  (no HEAD: the swap said it changed)
//   rebase over theirs     GET their log, snapshot and manifest   3  (in parallel, during the wait;
//                                                                     the rebase reuses the repo info)
//   the next attempt       PUT manifest, log, snapshot,
//                          PUT backup, PUT repo                   5  (a first attempt's 6 less the HEAD:
//                                                                     it swaps against the GET above)
//
// so K = 9 requests, 4 of them (1 + 3) for learning what landed. Before this change it was 12: a
// HEAD before the GET after the failed swap, a second repo-info HEAD in the rebase, and a third
// before the retry's swap. Requests are listed by operation and key prefix.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { PREFIXES, REPO_INFO_KEY } from '../../src/format/icechunk/keys.ts';
import { BasicConflictSolver, Repository } from '../../src/txn/index.ts';
import { branchTip } from '../../src/txn/refs.ts';
import * as refs from '../../src/txn/refs.ts';
import { RepoInfoStore } from '../../src/txn/repo-info-store.ts';
import { createArray, createGroup, readArray, writeChunk } from './conflict-fixtures.ts';

/** `get repo`, `put snapshots`, … and a ✗ on a request that failed. */
type Request = string;

function what(operation: string, key: string): string {
  if (key === REPO_INFO_KEY) return `${operation} repo`;
  const prefix = Object.values(PREFIXES).find((p) => key.startsWith(p));
  return `${operation} ${prefix ? prefix.slice(0, -1) : key}`;
}

/** `inner`, recording each request into `requests` and running `beforeBackup` before the first backup put. */
function recording(inner: ObjectStorage, requests: Request[], beforeBackup: { run?: () => Promise<void> }): ObjectStorage {
  return wrapStorage(inner, async (call, run) => {
    if (call.operation === 'put' && call.key.startsWith(PREFIXES.overwritten) && beforeBackup.run) {
      const interleave = beforeBackup.run;
      delete beforeBackup.run;
      await interleave();
    }
    const request = what(call.operation, call.key);
    try {
      const result = await run();
      requests.push(request);
      return result;
    } catch (err) {
      requests.push(`${request} ✗`);
      throw err;
    }
  });
}

const sorted = (requests: Request[]) => [...requests].sort();

async function twoWriters() {
  const shared = new MemoryStorage();
  const setup = await Repository.create(shared);
  const s0 = await setup.writableSession('main');
  await createGroup(s0.store, '/');
  await createArray(s0.store, '/a');
  await s0.commit('array');
  const ours: Request[] = [];
  const interleave: { run?: () => Promise<void> } = {};
  const theirRepo = await Repository.open(shared);
  const ourRepo = await Repository.open(recording(shared, ours, interleave));
  return { setup, theirRepo, ourRepo, ours, interleave };
}

describe('the cost of a lost commit round', () => {
  it('an uncontested commit costs 6 requests: manifest, log, snapshot, repo HEAD, backup, swap', async () => {
    const { ourRepo, ours } = await twoWriters();
    const session = await ourRepo.writableSession('main');
    await writeChunk(session.store, '/a', 1, 7);
    ours.length = 0;
    await session.commit('ours');
    expect(sorted(ours)).toEqual(sorted(['put manifests', 'put transactions', 'put snapshots', 'head repo', 'put overwritten', 'put repo']));
  });

  it('a retry after one lost swap costs K = 9 requests: 1 to learn the tip, 3 to read their commit, 5 to try again', async () => {
    const { setup, theirRepo, ourRepo, ours, interleave } = await twoWriters();
    const their = await theirRepo.writableSession('main');
    await writeChunk(their.store, '/a', 0, 5);
    const session = await ourRepo.writableSession('main');
    await writeChunk(session.store, '/a', 1, 7);
    let theirs = '';
    interleave.run = async () => {
      theirs = await their.commit('theirs');
    };
    ours.length = 0;
    const id = await session.commit('ours', { rebaseWith: new BasicConflictSolver(), retryBackoff: { random: () => 0 } });

    const lost = ours.indexOf('put repo ✗');
    expect(lost).toBeGreaterThan(0);
    // The first attempt, up to its failed swap: the same 6 requests as an uncontested commit.
    expect(sorted(ours.slice(0, lost + 1))).toEqual(sorted(['put manifests', 'put transactions', 'put snapshots', 'head repo', 'put overwritten', 'put repo ✗']));
    const retry = ours.slice(lost + 1);
    expect(retry[0]).toBe('get repo'); // the new tip, with no HEAD first
    expect(sorted(retry)).toEqual(sorted([
      'get repo',
      'get transactions', 'get snapshots', 'get manifests',
      'put manifests', 'put transactions', 'put snapshots', 'put overwritten', 'put repo',
    ]));
    expect(retry).toHaveLength(9);

    // The commit landed on theirs, keeping both chunks.
    expect((await mainHistory(setup)).slice(0, 2)).toEqual([id, theirs]);
    expect(await readArray(await setup.readonlySession({ branch: 'main' }), '/a')).toEqual([5, 5, 5, 5, 7, 7, 7, 7]);
  });

  it('a retry whose repo info went stale (another commit landed during its rebase) loses its swap, never lands on the stale base', async () => {
    const { setup, theirRepo, ourRepo, ours, interleave } = await twoWriters();
    const session = await ourRepo.writableSession('main');
    await writeChunk(session.store, '/a', 1, 7);
    const theirs: string[] = [];
    const theirCommit = async (chunk: number, value: number) => {
      const their = await theirRepo.writableSession('main');
      await writeChunk(their.store, '/a', chunk, value);
      theirs.push(await their.commit(`theirs ${chunk}`));
    };
    // Theirs land just before our first swap, and again just before our retry's swap.
    interleave.run = async () => {
      await theirCommit(0, 5);
      interleave.run = () => theirCommit(0, 6);
    };
    ours.length = 0;
    const id = await session.commit('ours', { rebaseWith: new BasicConflictSolver(), retryBackoff: { random: () => 0 } });

    expect(ours.filter((r) => r === 'put repo ✗')).toHaveLength(2);
    expect(ours.filter((r) => r === 'put snapshots')).toHaveLength(3);
    expect(ours.filter((r) => r === 'head repo')).toHaveLength(1); // the first attempt's only
    expect((await mainHistory(setup)).slice(0, 3)).toEqual([id, theirs[1], theirs[0]]);
    // Their second write survives: our commit is on top of it, not on the base we first rebased onto.
    expect(await readArray(await setup.readonlySession({ branch: 'main' }), '/a')).toEqual([6, 6, 6, 6, 7, 7, 7, 7]);
  });

  it('reuseKept: an update against a stale kept copy keeps the change it did not see', async () => {
    const storage = new MemoryStorage();
    const setup = await Repository.create(storage);
    const requests: Request[] = [];
    const ours = new RepoInfoStore(recording(storage, requests, {}), { retries: 3, updatesPerFile: 100, backoff: async () => {} });
    await ours.read();
    await setup.createBranch('theirs', (await mainHistory(setup))[0] ?? '');
    requests.length = 0;
    await ours.update((info) => refs.createTag(info, 'v1', branchTip(info, 'main')), { reuseKept: true });
    // No HEAD: the stale copy's swap fails, the file is fetched, the change applied again on it.
    expect(requests).toEqual(['put overwritten', 'put repo ✗', 'get repo', 'put overwritten', 'put repo']);
    const after = (await ours.read()).info;
    expect(after.branches.map((b) => b.name).sort()).toEqual(['main', 'theirs']);
    expect(after.tags.map((t) => t.name)).toEqual(['v1']);
    expect(await setup.listBranches()).toEqual(expect.arrayContaining(['main', 'theirs']));
  });

  it('two sessions rebasing over the same commit read its transaction log and snapshot once (cached by id)', async () => {
    const { theirRepo, ourRepo, ours } = await twoWriters();
    const first = await ourRepo.writableSession('main');
    const second = await ourRepo.writableSession('main');
    await writeChunk(first.store, '/a', 1, 7);
    await writeChunk(second.store, '/a', 2, 8);
    const their = await theirRepo.writableSession('main');
    await writeChunk(their.store, '/a', 0, 5);
    await their.commit('theirs');
    ours.length = 0;
    await first.rebase(new BasicConflictSolver());
    expect(sorted(ours.filter((r) => r.startsWith('get ')))).toEqual(['get repo', 'get snapshots', 'get transactions']);
    ours.length = 0;
    await second.rebase(new BasicConflictSolver());
    expect(ours).toEqual(['head repo']); // the repo info revalidated; their log and snapshot from the caches
    const stats = ourRepo.cacheStats().transactionLogs;
    expect(stats).toMatchObject({ entries: 1, misses: 1, hits: 1 });
  });
});

async function mainHistory(repo: Repository): Promise<string[]> {
  const out: string[] = [];
  for await (const s of repo.ancestry({ branch: 'main' })) out.push(s.id);
  return out;
}

describe('what a commit does at once', () => {
  it('reads and backs up the repo info while it writes its objects; the swap comes after all of them', async () => {
    const shared = new MemoryStorage();
    const setup = await Repository.create(shared);
    const s0 = await setup.writableSession('main');
    await createGroup(s0.store, '/');
    await createArray(s0.store, '/a');
    await s0.commit('array');
    const events: string[] = [];
    // Every request takes 5 ms, so requests that run at once overlap in the event order.
    const timed = wrapStorage(shared, async (call, run) => {
      const request = what(call.operation, call.key);
      events.push(`start ${request}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const result = await run();
      events.push(`end ${request}`);
      return result;
    });
    const session = await (await Repository.open(timed)).writableSession('main');
    await writeChunk(session.store, '/a', 1, 7);
    events.length = 0;
    await session.commit('ours');
    const at = (event: string) => events.indexOf(event);
    expect(at('start put overwritten')).toBeGreaterThanOrEqual(0);
    expect(at('start put overwritten')).toBeLessThan(at('end put manifests')); // beside the object writes
    for (const written of ['end put manifests', 'end put transactions', 'end put snapshots', 'end put overwritten']) {
      expect(at(written)).toBeLessThan(at('start put repo')); // nothing is reachable before the swap
    }
    expect(events.filter((e) => e.startsWith('start'))).toHaveLength(6);
  });
});
