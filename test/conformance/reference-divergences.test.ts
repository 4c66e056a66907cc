// Where Floe and the reference Icechunk (`@earthmover/icechunk` 2.2.2) rebase differently, each
// case of docs/CONFORMANCE.md run on both through the same adapter calls. The model leaves these
// open by default (`disputed: 'skip'`); if the reference changes, a case here fails and the table
// (and the model's 'reference' rules) need a look.
import { afterAll, describe, expect, it } from 'vitest';
import { floeRepositoryAdapter } from '../../src/testing/adapters/floe-repository.ts';
import { icechunkRepositoryAdapter } from '../../src/testing/adapters/icechunk-repository.ts';
import type { RepositoryAdapter, RepositoryHandle } from '../../src/testing/adapters/types.ts';
import type { TreeListing } from '../../src/testing/model/repository-model.ts';

const reference = icechunkRepositoryAdapter();
afterAll(() => reference.dispose());
const floe = floeRepositoryAdapter();

interface Outcome {
  rebase: string;
  /** main after s1 commits (when its rebase succeeded). */
  main?: TreeListing;
}

/**
 * `setup` commits a base on main through s0, `theirs` then commits through s0 while s1 (opened
 * on the base) makes `ours`; s1 rebases and, if that works, commits.
 */
async function race(adapter: RepositoryAdapter, setup: (r: RepositoryHandle) => Promise<unknown>, theirs: (r: RepositoryHandle) => Promise<unknown>, ours: (r: RepositoryHandle) => Promise<unknown>): Promise<Outcome> {
  const r = await adapter.createRepository();
  try {
    await r.openSession(0, 'main');
    await setup(r);
    await r.commit(0, 'base');
    await r.openSession(1, 'main');
    await theirs(r);
    await ours(r);
    try {
      await r.rebase(1);
    } catch (err) {
      return { rebase: r.classifyError(err) };
    }
    await r.commit(1, 'ours');
    return { rebase: 'ok', main: await r.readTree({ branch: 'main' }) };
  } finally {
    await r.close();
  }
}

const both = async (...args: Parameters<typeof race> extends [unknown, ...infer Rest] ? Rest : never) =>
  ({ floe: await race(floe, ...args), reference: await race(reference, ...args) });

describe('rebase rules where Floe and the reference differ', () => {
  it('over a commit that moved a node: Floe replays (changes follow node ids), the reference refuses', async () => {
    const got = await both(
      async (r) => { await r.createGroup(0, '/a'); await r.createArray(0, '/b'); },
      (r) => r.moveNode('main', '/b', '/a/b', 'move'),
      (r) => r.writeChunk(1, '/b', 0, 5),
    );
    expect(got.floe).toEqual({ rebase: 'ok', main: { '/a': 'group', '/a/b': [5, 5, 0, 0, 0, 0, 0, 0] } });
    expect(got.reference).toEqual({ rebase: 'conflict' });
  }, 60_000);

  it('a new node whose parent group the other side deleted: Floe conflicts, the reference commits an orphan', async () => {
    const got = await both(
      (r) => r.createGroup(0, '/a'),
      async (r) => { await r.deleteNode(0, '/a'); await r.commit(0, 'delete /a'); },
      (r) => r.createGroup(1, '/a/c'),
    );
    expect(got.floe).toEqual({ rebase: 'conflict' });
    expect(got.reference).toEqual({ rebase: 'ok', main: { '/a/c': 'group' } });
  }, 60_000);

  it('deleting a group the other side added a node to: Floe conflicts, the reference commits an orphan', async () => {
    const got = await both(
      (r) => r.createGroup(0, '/a'),
      async (r) => { await r.createGroup(0, '/a/c'); await r.commit(0, 'add /a/c'); },
      (r) => r.deleteNode(1, '/a'),
    );
    expect(got.floe).toEqual({ rebase: 'conflict' });
    expect(got.reference).toEqual({ rebase: 'ok', main: { '/a/c': 'group' } });
  }, 60_000);

  it('a new node whose parent group the other side replaced by a new group: Floe conflicts, the reference moves in', async () => {
    const got = await both(
      (r) => r.createGroup(0, '/a'),
      async (r) => { await r.deleteNode(0, '/a'); await r.createGroup(0, '/a'); await r.commit(0, 'replace /a'); },
      (r) => r.createGroup(1, '/a/c'),
    );
    expect(got.floe).toEqual({ rebase: 'conflict' });
    expect(got.reference).toEqual({ rebase: 'ok', main: { '/a': 'group', '/a/c': 'group' } });
  }, 60_000);

  it('after the branch was reset below the session: Floe refuses, the reference replays the tip\'s ancestry', async () => {
    let first = '';
    const got = await both(
      async (r) => { await r.createArray(0, '/a'); first = await r.commit(0, 'first'); await r.writeChunk(0, '/a', 0, 1); },
      (r) => r.resetBranch('main', first),
      (r) => r.writeChunk(1, '/a', 1, 6),
    );
    expect(got.floe).toEqual({ rebase: 'conflict' });
    expect(got.reference).toEqual({ rebase: 'ok', main: { '/a': [0, 0, 6, 6, 0, 0, 0, 0] } });
  }, 60_000);
});
