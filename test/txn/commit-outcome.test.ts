// Issue 29: a commit whose final repo-info swap failed in transport. A read settles it where it
// can (landed: success; the file moved without it: a lost race), else COMMIT_OUTCOME_UNKNOWN with
// the snapshot id and commit key; `lookupCommit` answers it, and committing again with the same key
// never makes a second snapshot. The example of docs/transactions.md is the block between the
// `docs:` markers below, checked to be the same text there.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { withFaults, type Fault } from '../../src/engine/storage/faults.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { transientError } from '../../src/engine/storage/transient.ts';
import { wrapStorage } from '../../src/engine/storage/wrap.ts';
import { isFloeError } from '../../src/errors.ts';
import { BasicConflictSolver, Repository, Storage, type Session } from '../../src/txn/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Faults for the repo-info swap (the put of `repo`) and the reads of `repo` after it, in order. */
interface Plan {
  swap: Fault['kind'][];
  reads: Fault['kind'][];
}

async function setup(plan: Plan) {
  const backend = new MemoryStorage();
  let armed = false;
  const flaky = withFaults(backend, (call) => {
    if (!armed || call.key !== 'repo') return undefined;
    const next = call.operation === 'put' ? plan.swap.shift() : call.operation === 'get' ? plan.reads.shift() : undefined;
    return next === 'fail-before' || next === 'fail-after' ? { kind: next } : undefined;
  });
  const repo = await Repository.create(Storage.fromObjectStorage(flaky));
  const session = await repo.writableSession('main');
  await ZarrArray.create(session.store, '/a', { shape: [4], chunkShape: [4], dataType: 'int32', fillValue: 0 });
  await session.commit('create /a');
  armed = true;
  return { repo, backend };
}

async function writeValue(session: Session, value: number): Promise<void> {
  await (await ZarrArray.open(session.store, '/a')).set(undefined, value);
}

async function history(repo: Repository): Promise<{ id: string; message: string; metadata: Record<string, unknown> }[]> {
  const out = [];
  for await (const s of repo.ancestry({ branch: 'main' })) out.push(s);
  return out;
}

// docs:begin unknown-outcome
/** Commits the session's changes exactly once, whatever the network lost on the way. */
async function commitExactlyOnce(repo: Repository, session: Session, message: string, commitKey: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await session.commit(message, { commitKey });
    } catch (err) {
      if (!isFloeError(err, 'COMMIT_OUTCOME_UNKNOWN') || attempt === 5) throw err;
      const found = await repo.lookupCommit(commitKey, { branch: 'main' });
      if (found.committed) return found.snapshotId;
      // Not on the branch yet: commit again with the same key. If the lost swap lands first,
      // this commit finds the key on the branch and returns that snapshot instead.
    }
  }
}
// docs:end

describe('a commit whose swap answer is lost (issue 29)', () => {
  it('a swap that took effect before failing is a success, found by one read', async () => {
    const { repo } = await setup({ swap: ['fail-after'], reads: [] });
    const session = await repo.writableSession('main');
    await writeValue(session, 7);
    const id = await session.commit('lost answer', { commitKey: 'k-1' });
    const main = await history(repo);
    expect(main.map((s) => s.message)).toEqual(['lost answer', 'create /a', 'Repository initialized']);
    expect(main[0]).toMatchObject({ id, metadata: { floe_commit_key: 'k-1' } });
  });

  it('a swap that did not happen, with the file unchanged: COMMIT_OUTCOME_UNKNOWN, lookupCommit says not committed, a retry commits once', async () => {
    const { repo } = await setup({ swap: ['fail-before'], reads: [] });
    const session = await repo.writableSession('main');
    await writeValue(session, 8);
    const err: unknown = await session.commit('maybe', { commitKey: 'k-2' }).catch((e: unknown) => e);
    if (!isFloeError(err, 'COMMIT_OUTCOME_UNKNOWN')) throw new Error(`expected COMMIT_OUTCOME_UNKNOWN, got ${String(err)}`);
    expect(err.details).toEqual({ snapshotId: expect.any(String), commitKey: 'k-2', branch: 'main' });
    expect(await repo.lookupCommit('k-2', { branch: 'main' })).toEqual({ committed: false, searched: 2, wholeHistory: true });
    const id = await session.commit('maybe', { commitKey: 'k-2' });
    expect(await repo.lookupCommit('k-2')).toEqual({ committed: true, snapshotId: id });
    expect((await history(repo)).filter((s) => s.metadata.floe_commit_key === 'k-2')).toHaveLength(1);
  });

  it('a swap that took effect, its answer and the settling read both lost: unknown, then the lookup and a same-key retry find it, no second snapshot', async () => {
    const { repo } = await setup({ swap: ['fail-after'], reads: ['fail-before'] });
    const session = await repo.writableSession('main');
    await writeValue(session, 9);
    const err: unknown = await session.commit('landed unseen', { commitKey: 'k-3' }).catch((e: unknown) => e);
    if (!isFloeError(err, 'COMMIT_OUTCOME_UNKNOWN')) throw new Error(`expected COMMIT_OUTCOME_UNKNOWN, got ${String(err)}`);
    expect(await repo.lookupCommit('k-3')).toEqual({ committed: true, snapshotId: err.details.snapshotId });
    // The session still holds its changes (it was not told): a retry with the key returns the landed snapshot.
    const again = await session.commit('landed unseen', { commitKey: 'k-3' });
    expect(again).toBe(err.details.snapshotId);
    const main = await history(repo);
    expect(main.filter((s) => s.metadata.floe_commit_key === 'k-3')).toHaveLength(1);
    expect(main).toHaveLength(3);
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await (await ZarrArray.open(reader.store, '/a')).get()).data as Int32Array)).toEqual([9, 9, 9, 9]);
  });

  it('the documented recipe commits exactly once through unknown outcomes of both kinds', async () => {
    for (const swap of [['fail-before'], ['fail-after']] as Fault['kind'][][]) {
      const { repo } = await setup({ swap: [...swap], reads: ['fail-before'] });
      const session = await repo.writableSession('main');
      await writeValue(session, 3);
      const id = await commitExactlyOnce(repo, session, 'once', 'job-42');
      const main = await history(repo);
      expect(main.filter((s) => s.metadata.floe_commit_key === 'job-42').map((s) => s.id), swap[0]).toEqual([id]);
      expect(main, swap[0]).toHaveLength(3);
    }
  });

  it('a swap that failed while another writer moved the branch: a lost race (CONFLICT, or a rebase), not unknown', async () => {
    for (const rebase of [false, true]) {
      const backend = new MemoryStorage();
      let other: (() => Promise<void>) | undefined;
      // The first swap under test: another writer commits, then our put fails without acting.
      const racing = wrapStorage(backend, async (call, run) => {
        if (!other || call.operation !== 'put' || call.key !== 'repo') return run();
        const commitOther = other;
        other = undefined;
        await commitOther();
        throw transientError('injected reset', call.key, undefined);
      });
      const repo = await Repository.create(Storage.fromObjectStorage(racing));
      const setup = await repo.writableSession('main');
      await ZarrArray.create(setup.store, '/a', { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 });
      await setup.commit('create /a');
      const theirs = await (await Repository.open(Storage.fromObjectStorage(backend))).writableSession('main');
      await (await ZarrArray.open(theirs.store, '/a')).set([slice(4, 8)], 2);
      other = async () => void (await theirs.commit('theirs', { commitKey: 'theirs' }));
      const ours = await repo.writableSession('main');
      await (await ZarrArray.open(ours.store, '/a')).set([slice(0, 4)], 1);
      if (!rebase) {
        await expect(ours.commit('ours', { commitKey: 'ours' })).rejects.toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved' } });
        expect(await repo.lookupCommit('ours')).toEqual({ committed: false, searched: 3, wholeHistory: true });
        continue;
      }
      const id = await ours.commit('ours', { commitKey: 'ours', rebaseWith: new BasicConflictSolver() });
      expect((await history(repo)).map((s) => s.message)).toEqual(['ours', 'theirs', 'create /a', 'Repository initialized']);
      expect(await repo.lookupCommit('ours')).toEqual({ committed: true, snapshotId: id });
    }
  });

  it('a key already on the branch: a new session committing with it writes nothing and gets that snapshot', async () => {
    const { repo } = await setup({ swap: [], reads: [] });
    const first = await repo.writableSession('main');
    await writeValue(first, 1);
    const id = await first.commit('first', { commitKey: 'same' });
    const second = await repo.writableSession('main');
    await writeValue(second, 2);
    expect(await second.commit('second', { commitKey: 'same' })).toBe(id);
    expect((await history(repo)).map((s) => s.message)).toEqual(['first', 'create /a', 'Repository initialized']);
  });

  it('records a generated key when none is given, and refuses bad keys', async () => {
    const { repo } = await setup({ swap: [], reads: [] });
    const session = await repo.writableSession('main');
    await writeValue(session, 1);
    await expect(session.commit('bad', { commitKey: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(session.commit('bad', { commitKey: 'a', metadata: { floe_commit_key: 'b' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await session.commit('generated');
    const [tip] = await history(repo);
    expect(tip!.metadata.floe_commit_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await repo.lookupCommit(tip!.metadata.floe_commit_key as string)).toEqual({ committed: true, snapshotId: tip!.id });
    await expect(repo.lookupCommit('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(repo.lookupCommit('x', { horizon: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await repo.lookupCommit('x', { horizon: 1 })).toEqual({ committed: false, searched: 1, wholeHistory: false });
    expect(await repo.lookupCommit('x')).toEqual({ committed: false, searched: 3, wholeHistory: true });
  });

  it('docs/transactions.md shows the recipe exactly as this test runs it', () => {
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const block = /\/\/ docs:begin unknown-outcome\n([\s\S]*?)\/\/ docs:end/.exec(source)![1]!;
    expect(readFileSync(path.join(root, 'docs/transactions.md'), 'utf8')).toContain(block);
  });
});
