// The history checker must reject what it exists to find: planted histories with a duplicate, a
// lost acknowledged commit, a failed commit that landed, an unknown one the lookup gets wrong, a
// phantom snapshot, a wrong value and a chunk that does not read back; and accept a true history.
// The real-repository cases commit to an in-memory Floe repository and then damage the record or
// the storage.
import { describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { checkHistory, type CheckInput, type RecordedCommit } from './history-checker.ts';
import { ARRAY_PATH, branchHistory, cellValues, commitTag, floeLookup, floeReader } from './history-checker-floe.ts';

const CHUNK = 256; // 1 KiB chunks: above the inline threshold, so they are stored in packs
const CELLS = 4;

/** A synthetic run: commits a, b, c write cells 0, 1, 0; the store holds exactly what they wrote. */
function synthetic(): CheckInput & { stored: Map<string, Map<number, number>> } {
  const commits: RecordedCommit[] = [
    { label: 'a', key: 'ka', answer: 'ok', snapshotId: 'S1', writes: new Map([[0, 11]]) },
    { label: 'b', key: 'kb', answer: 'unknown', snapshotId: 'S2', writes: new Map([[1, 12]]), code: 'COMMIT_OUTCOME_UNKNOWN' },
    { label: 'c', key: 'kc', answer: 'ok', snapshotId: 'S3', writes: new Map([[0, 13]]) },
    { label: 'd', key: 'kd', answer: 'conflict', writes: new Map([[2, 14]]), code: 'CONFLICT' },
  ];
  const stored = new Map<string, Map<number, number>>([
    ['S0', new Map([[0, 0], [1, 0], [2, 0], [3, 0]])],
    ['S1', new Map([[0, 11], [1, 0], [2, 0], [3, 0]])],
    ['S2', new Map([[0, 11], [1, 12], [2, 0], [3, 0]])],
    ['S3', new Map([[0, 13], [1, 12], [2, 0], [3, 0]])],
  ]);
  const history = [{ id: 'S0' }, { id: 'S1', key: 'ka' }, { id: 'S2', key: 'kb' }, { id: 'S3', key: 'kc' }];
  return {
    commits, history, stored,
    preexisting: new Set(['S0']),
    initial: new Map([[0, 0], [1, 0], [2, 0], [3, 0]]),
    cells: [0, 1, 2, 3],
    readEverything: true,
    async lookup(key) {
      const s = history.find((h) => h.key === key);
      return s ? { committed: true, snapshotId: s.id } : { committed: false };
    },
    async read(id, cells) {
      const state = stored.get(id);
      if (!state) throw new Error(`no snapshot ${id}`);
      return new Map(cells.map((c) => [c, state.get(c)!]));
    },
  };
}

describe('the history checker', () => {
  it('accepts a true history and counts how unknown outcomes resolved', async () => {
    const report = await checkHistory(synthetic());
    expect(report.violations).toEqual([]);
    expect(report.unknown).toEqual({ committed: 1, notCommitted: 0, unresolved: 0 });
    expect(report.snapshotsRead).toBe(3); // S0 precedes the run
  });

  it('rejects a duplicate: one key twice in the history', async () => {
    const input = synthetic();
    const history = [...input.history, { id: 'S4', key: 'kc' }];
    input.stored.set('S4', input.stored.get('S3')!);
    const report = await checkHistory({ ...input, history });
    expect(report.violations.join('\n')).toMatch(/^duplicate: key kc is in the history 2 times/m);
  });

  it('rejects a lost acknowledged commit', async () => {
    const input = synthetic();
    const history = input.history.filter((s) => s.key !== 'kc');
    const report = await checkHistory({ ...input, history });
    expect(report.violations.join('\n')).toMatch(/^lost: c was acknowledged as S3/m);
  });

  it('rejects an acknowledgement with another snapshot id than the history', async () => {
    const input = synthetic();
    const commits = input.commits.map((c) => (c.key === 'ka' ? { ...c, snapshotId: 'S9' } : c));
    expect((await checkHistory({ ...input, commits })).violations.join('\n')).toMatch(/^wrong id: a was acknowledged as S9/m);
  });

  it('rejects a commit answered as failed that is in the history', async () => {
    const input = synthetic();
    const commits = input.commits.map((c) => (c.key === 'kc' ? { ...c, answer: 'error' as const, code: 'STORAGE_ERROR' } : c));
    expect((await checkHistory({ ...input, commits })).violations.join('\n')).toMatch(/^failed but landed: c was answered error/m);
  });

  it('rejects an unknown outcome the lookup contradicts, or cannot resolve', async () => {
    const input = synthetic();
    const wrong = await checkHistory({ ...input, lookup: async () => ({ committed: false }) });
    expect(wrong.violations.join('\n')).toMatch(/^lookup disagrees: b looked up as not committed/m);
    const failing = await checkHistory({ ...input, lookup: async () => Promise.reject(new Error('offline')) });
    expect(failing.violations.join('\n')).toMatch(/^unresolved: b's lookup failed/m);
    expect(failing.unknown.unresolved).toBe(1);
  });

  it('rejects a snapshot no recorded commit made, and a key reused by two calls', async () => {
    const input = synthetic();
    const history = [...input.history, { id: 'S5', key: 'stranger' }];
    input.stored.set('S5', input.stored.get('S3')!);
    expect((await checkHistory({ ...input, history })).violations.join('\n')).toMatch(/^phantom: snapshot S5/m);
    const commits = [...input.commits, { ...input.commits[3]!, label: 'e' }];
    expect((await checkHistory({ ...input, commits })).violations.join('\n')).toMatch(/^reused key: e used key kd/m);
  });

  it('rejects a wrong value, and a snapshot that does not read back', async () => {
    const input = synthetic();
    input.stored.get('S2')!.set(0, 13); // c's value visible before c
    expect((await checkHistory(input)).violations.join('\n')).toMatch(/^wrong value: snapshot S2 \(b\), cell 0: got 13, want 11/m);
    input.stored.delete('S1');
    expect((await checkHistory(input)).violations.join('\n')).toMatch(/^unreadable: snapshot S1 \(a\)/m);
  });
});

describe('the history checker on a Floe repository', () => {
  async function committed() {
    const backend = new MemoryStorage();
    const repo = await Repository.create(Storage.fromObjectStorage(backend));
    const setup = await repo.writableSession('main');
    await ZarrArray.create(setup.store, ARRAY_PATH, { shape: [CELLS * CHUNK], chunkShape: [CHUNK], dataType: 'int32', fillValue: 0 });
    await setup.commit('create');
    const preexisting = new Set((await branchHistory(repo)).map((s) => s.id));
    const commits: RecordedCommit[] = [];
    for (const [m, cell] of [1, 2, 1].entries()) {
      const session = await repo.writableSession('main');
      const tag = commitTag(0, m);
      await (await ZarrArray.open(session.store, ARRAY_PATH)).set([slice(cell * CHUNK, (cell + 1) * CHUNK)], cellValues(tag, CHUNK));
      const key = `k${m}`;
      const id = await session.commit(`commit ${m}`, { commitKey: key });
      commits.push({ label: `commit ${m}`, key, answer: 'ok', snapshotId: id, writes: new Map([[cell, tag]]) });
    }
    const input: CheckInput = {
      commits, preexisting, history: await branchHistory(repo),
      initial: new Map(Array.from({ length: CELLS }, (_, c) => [c, 0])), cells: Array.from({ length: CELLS }, (_, c) => c),
      lookup: floeLookup(repo), read: floeReader(repo, CHUNK), readEverything: true,
    };
    return { backend, repo, input };
  }

  it('accepts what the repository holds', async () => {
    const { input } = await committed();
    const report = await checkHistory(input);
    expect(report.violations).toEqual([]);
    expect(report.snapshotsRead).toBe(3);
  });

  it('rejects a recorded value the writer did not write there', async () => {
    const { input } = await committed();
    const commits = input.commits.map((c, i) => (i === 1 ? { ...c, writes: new Map([[2, commitTag(0, 9)]]) } : c));
    expect((await checkHistory({ ...input, commits })).violations.join('\n')).toMatch(/^wrong value: snapshot \S+ \(commit 1\), cell 2/m);
  });

  it('rejects a repository that lost a chunk', async () => {
    const { backend, input } = await committed();
    const chunks: string[] = [];
    for await (const o of backend.list('chunks/')) chunks.push(o.key);
    await backend.delete(chunks.slice(0, 1));
    expect((await checkHistory(input)).violations.join('\n')).toMatch(/^unreadable: snapshot|^wrong value: snapshot/m);
  });
});
