// A zarr.json written with the bytes the node already has is no change, as in the reference
// (`@earthmover/icechunk` 2.2.2: such a write leaves `hasUncommittedChanges` false). Found by
// floe/testing's harness: two writers re-saving unchanged metadata must not conflict.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import { ConflictDetector } from '../../src/txn/index.ts';
import { attribute, baseRepository, race, setAttribute } from './conflict-fixtures.ts';

const zarrJson = async (store: { get(key: string): Promise<Uint8Array | undefined> }, key: string) => (await store.get(key))!;

describe('rewriting zarr.json unchanged', () => {
  it('records nothing: the session stays empty and its commit is refused as such', async () => {
    const repo = await baseRepository();
    const s = await repo.writableSession('main');
    await s.store.set('a/zarr.json', await zarrJson(s.store, 'a/zarr.json'));
    await s.store.set('g/zarr.json', await zarrJson(s.store, 'g/zarr.json'));
    expect(s.hasUncommittedChanges).toBe(false);
    const err = await s.commit('nothing').catch((e: unknown) => e);
    expect(isFloeError(err, 'INVALID_ARGUMENT') && err.details.reason).toBe('no-changes');
  });

  it('is still a change when the bytes differ, even if only back to what the base has', async () => {
    const repo = await baseRepository();
    const s = await repo.writableSession('main');
    const original = await zarrJson(s.store, 'g/zarr.json');
    await setAttribute(s.store, '/g', 'x');
    await s.store.set('g/zarr.json', original);
    expect(s.hasUncommittedChanges).toBe(true);
  });

  it('does not conflict with the other side changing the same node', async () => {
    const repo = await baseRepository();
    const { our } = await race(
      repo,
      (s) => setAttribute(s.store, '/g', 'them'),
      async (s) => {
        await s.store.set('g/zarr.json', await zarrJson(s.store, 'g/zarr.json'));
        await setAttribute(s.store, '/a', 'us');
      },
    );
    await our.rebase(new ConflictDetector());
    await our.commit('ours');
    const after = await repo.readonlySession({ branch: 'main' });
    expect([await attribute(after, '/g'), await attribute(after, '/a')]).toEqual(['them', 'us']);
  });
});
