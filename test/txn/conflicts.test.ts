// Every conflict kind the reference defines is detected with its path, node and chunk
// coordinates, and every solver choice (ours, theirs, fail; by kind or by callback) is applied.
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../src/errors.ts';
import {
  BasicConflictSolver, CallbackConflictSolver, ConflictDetector, ConflictError, CONFLICT_TYPES, describeConflict,
  type Conflict, type ConflictType, type Session,
} from '../../src/txn/index.ts';
import {
  attribute, baseRepository, createArray, createGroup, deleteNode, race, readArray, setAttribute, writeChunk,
} from './conflict-fixtures.ts';

type Step = (s: Session) => Promise<unknown>;
interface Scenario {
  type: ConflictType;
  theirs: Step;
  ours: Step;
  expected: Partial<Conflict>;
}

const scenarios: Scenario[] = [
  { type: 'NewNodeConflictsWithExistingNode', theirs: (s) => createGroup(s.store, '/x'), ours: (s) => createArray(s.store, '/x'), expected: { path: '/x' } },
  { type: 'NewNodeInInvalidGroup', theirs: (s) => deleteNode(s.store, '/g'), ours: (s) => createArray(s.store, '/g/new'), expected: { path: '/g' } },
  { type: 'ZarrMetadataDoubleUpdate', theirs: (s) => setAttribute(s.store, '/a', 'them'), ours: (s) => setAttribute(s.store, '/a', 'us'), expected: { path: '/a' } },
  { type: 'ZarrMetadataUpdateOfDeletedArray', theirs: (s) => deleteNode(s.store, '/a'), ours: (s) => setAttribute(s.store, '/a', 'us'), expected: { path: '/a' } },
  { type: 'ZarrMetadataUpdateOfDeletedGroup', theirs: (s) => deleteNode(s.store, '/g'), ours: (s) => setAttribute(s.store, '/g', 'us'), expected: { path: '/g' } },
  { type: 'ChunkDoubleUpdate', theirs: (s) => writeChunk(s.store, '/a', 1, 5), ours: (s) => writeChunk(s.store, '/a', 1, 7), expected: { path: '/a', chunkCoordinates: [[1]] } as Partial<Conflict> },
  { type: 'ChunksUpdatedInDeletedArray', theirs: (s) => deleteNode(s.store, '/a'), ours: (s) => writeChunk(s.store, '/a', 0, 7), expected: { path: '/a' } },
  { type: 'ChunksUpdatedInUpdatedArray', theirs: (s) => setAttribute(s.store, '/a', 'them'), ours: (s) => writeChunk(s.store, '/a', 0, 7), expected: { path: '/a' } },
  { type: 'DeleteOfUpdatedArray', theirs: (s) => writeChunk(s.store, '/a', 0, 5), ours: (s) => deleteNode(s.store, '/a'), expected: { path: '/a' } },
  { type: 'DeleteOfUpdatedGroup', theirs: (s) => setAttribute(s.store, '/g', 'them'), ours: (s) => deleteNode(s.store, '/g'), expected: { path: '/g' } },
  { type: 'MoveOperationCannotBeRebased', theirs: (s) => s.moveNode('/a', '/a2'), ours: (s) => s.moveNode('/a', '/a3'), expected: { from: '/a', to: '/a3' } as Partial<Conflict> },
];

async function conflictsOf(session: Session, solver = new ConflictDetector()): Promise<readonly Conflict[]> {
  const err = await session.rebase(solver).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ConflictError);
  expect(isFloeError(err, 'CONFLICT')).toBe(true);
  return (err as ConflictError).conflicts;
}

describe('conflict detection', () => {
  it('covers every kind the reference defines', () => {
    expect(new Set(scenarios.map((s) => s.type))).toEqual(new Set(CONFLICT_TYPES));
  });

  for (const scenario of scenarios) {
    it(`detects ${scenario.type}`, async () => {
      const repo = await baseRepository();
      const { our, theirSnapshot } = await race(repo, scenario.theirs, scenario.ours);
      const before = await our.status();
      await expect(our.commit('ours')).rejects.toMatchObject({ code: 'CONFLICT', details: { kind: 'branch-moved' } });
      const conflicts = await conflictsOf(our);
      expect(conflicts).toEqual([expect.objectContaining({ type: scenario.type, ...scenario.expected })]);
      expect(conflicts[0]!.nodeId).toMatch(/^[0-9A-Z]{13}$/);
      expect(describeConflict(conflicts[0]!)).toContain(scenario.type);
      // A failed rebase leaves the session as it was.
      expect(await our.status()).toEqual(before);
      expect(our.snapshotId).not.toBe(theirSnapshot);
      // The commit with the detector as its solver fails the same way, listing the conflict.
      const err = await our.commit('ours', { rebaseWith: new ConflictDetector() }).catch((e: unknown) => e);
      expect((err as ConflictError).conflicts.map((c) => c.type)).toEqual([scenario.type]);
      expect((err as Error).message).toContain(scenario.type);
    });
  }

  it('lists several conflicts at once, with every chunk coordinate', async () => {
    const repo = await baseRepository();
    const both = async (s: Session, v: number) => {
      await writeChunk(s.store, '/a', 0, v);
      await writeChunk(s.store, '/a', 1, v);
      await writeChunk(s.store, '/g/b', 1, v);
      await setAttribute(s.store, '/g', String(v));
    };
    const { our } = await race(repo, (s) => both(s, 5), (s) => both(s, 7));
    const conflicts = await conflictsOf(our);
    expect(conflicts).toHaveLength(3);
    expect(conflicts).toContainEqual(expect.objectContaining({ type: 'ChunkDoubleUpdate', path: '/a', chunkCoordinates: [[0], [1]] }));
    expect(conflicts).toContainEqual(expect.objectContaining({ type: 'ChunkDoubleUpdate', path: '/g/b', chunkCoordinates: [[1]] }));
    expect(conflicts).toContainEqual(expect.objectContaining({ type: 'ZarrMetadataDoubleUpdate', path: '/g' }));
  });

  it('finds no conflict for disjoint changes, nor for a path both sides freed', async () => {
    const repo = await baseRepository();
    const { our } = await race(
      repo,
      async (s) => { await writeChunk(s.store, '/a', 0, 5); await createGroup(s.store, '/t'); },
      async (s) => { await writeChunk(s.store, '/a', 1, 7); await createGroup(s.store, '/u'); await deleteNode(s.store, '/g/b'); await createArray(s.store, '/g/b'); },
    );
    await our.rebase();
    await our.commit('ours');
    expect(await readArray(our, '/a')).toEqual([5, 5, 5, 5, 7, 7, 7, 7]);
    expect(await readArray(our, '/g/b')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('solver choices', () => {
  const solved = async (scenario: ConflictType, choice: 'useOurs' | 'useTheirs') => {
    const s = scenarios.find((x) => x.type === scenario)!;
    const repo = await baseRepository();
    const { our } = await race(repo, s.theirs, s.ours);
    await our.commit('ours', { rebaseWith: new BasicConflictSolver({ on: { [scenario]: choice } }) });
    return { repo, our };
  };

  it('chunks: ours, theirs or fail (onChunkConflict)', async () => {
    for (const [choice, expected] of [['useOurs', 7], ['useTheirs', 5]] as const) {
      const repo = await baseRepository();
      const { our } = await race(repo, (s) => writeChunk(s.store, '/a', 1, 5), async (s) => { await writeChunk(s.store, '/a', 1, 7); await writeChunk(s.store, '/a', 0, 9); });
      await our.commit('ours', { rebaseWith: new BasicConflictSolver({ onChunkConflict: choice }) });
      expect(await readArray(our, '/a')).toEqual([9, 9, 9, 9, expected, expected, expected, expected]);
    }
    const repo = await baseRepository();
    const { our } = await race(repo, (s) => writeChunk(s.store, '/a', 1, 5), (s) => writeChunk(s.store, '/a', 1, 7));
    await expect(our.commit('ours', { rebaseWith: new BasicConflictSolver({ onChunkConflict: 'fail' }) })).rejects.toBeInstanceOf(ConflictError);
    // The default BasicConflictSolver keeps ours for chunks, as the reference's.
    await our.commit('ours', { rebaseWith: new BasicConflictSolver() });
    expect(await readArray(our, '/a')).toEqual([1, 1, 1, 1, 7, 7, 7, 7]);
  });

  it('zarr.json: ours or theirs (onUserAttributesConflict), failing by default', async () => {
    for (const [choice, expected] of [['useOurs', 'us'], ['useTheirs', 'them']] as const) {
      const repo = await baseRepository();
      const { our } = await race(repo, (s) => setAttribute(s.store, '/a', 'them'), (s) => setAttribute(s.store, '/a', 'us'));
      await expect(our.rebase(new BasicConflictSolver())).rejects.toBeInstanceOf(ConflictError);
      await our.commit('ours', { rebaseWith: new BasicConflictSolver({ onUserAttributesConflict: choice }), allowEmpty: true });
      expect(await attribute(our, '/a')).toBe(expected);
    }
  });

  it('deleting what the other side changed: our delete wins unless failOnDeleteOf… or useTheirs', async () => {
    let { our } = await solved('DeleteOfUpdatedArray', 'useOurs');
    expect(await our.store.get('a/zarr.json')).toBeUndefined();
    ({ our } = await solved('DeleteOfUpdatedArray', 'useTheirs'));
    expect(await readArray(our, '/a')).toEqual([5, 5, 5, 5, 1, 1, 1, 1]);
    ({ our } = await solved('DeleteOfUpdatedGroup', 'useOurs'));
    expect(await our.store.get('g/zarr.json')).toBeUndefined();
    ({ our } = await solved('DeleteOfUpdatedGroup', 'useTheirs'));
    expect(await attribute(our, '/g')).toBe('them');
    const repo = await baseRepository();
    const r = await race(repo, (s) => writeChunk(s.store, '/a', 0, 5), (s) => deleteNode(s.store, '/a'));
    await expect(r.our.rebase(new BasicConflictSolver({ failOnDeleteOfUpdatedArray: true }))).rejects.toBeInstanceOf(ConflictError);
    await r.our.rebase(new BasicConflictSolver());
    await r.our.commit('delete wins');
    expect(await r.our.store.get('a/zarr.json')).toBeUndefined();
  });

  it('deleting a group the other side added to deletes their additions too (ours)', async () => {
    const repo = await baseRepository();
    const { our } = await race(repo, (s) => createArray(s.store, '/g/new'), (s) => deleteNode(s.store, '/g'));
    expect((await conflictsOf(our)).map((c) => c.type)).toEqual(['DeleteOfUpdatedGroup']);
    await our.commit('ours', { rebaseWith: new BasicConflictSolver() });
    const keys: string[] = [];
    for await (const k of our.store.list()) keys.push(k);
    expect(keys.filter((k) => k.startsWith('g/'))).toEqual([]);
  });

  it('new node at a taken path: ours replaces theirs, theirs drops ours', async () => {
    let { our } = await solved('NewNodeConflictsWithExistingNode', 'useOurs');
    expect(await readArray(our, '/x')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    ({ our } = await solved('NewNodeConflictsWithExistingNode', 'useTheirs'));
    expect(JSON.parse(new TextDecoder().decode(await our.store.get('x/zarr.json')))).toMatchObject({ node_type: 'group' });
  });

  it('kinds where only theirs makes sense: theirs works, ours fails', async () => {
    const onlyTheirs: ConflictType[] = ['NewNodeInInvalidGroup', 'ZarrMetadataUpdateOfDeletedArray', 'ZarrMetadataUpdateOfDeletedGroup', 'ChunksUpdatedInDeletedArray', 'MoveOperationCannotBeRebased'];
    for (const type of onlyTheirs) {
      const s = scenarios.find((x) => x.type === type)!;
      const repo = await baseRepository();
      const { our } = await race(repo, s.theirs, s.ours);
      await expect(our.rebase(new BasicConflictSolver({ on: { [type]: 'useOurs' } }))).rejects.toBeInstanceOf(ConflictError);
      await our.rebase(new BasicConflictSolver({ on: { [type]: 'useTheirs' } }));
      await our.commit('theirs kept', { allowEmpty: true });
    }
    const { our } = await solved('MoveOperationCannotBeRebased', 'useTheirs');
    expect(await readArray(our, '/a2')).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(await our.store.get('a3/zarr.json')).toBeUndefined();
  });

  it('ChunksUpdatedInUpdatedArray: ours keeps our chunks, theirs drops them', async () => {
    let { our } = await solved('ChunksUpdatedInUpdatedArray', 'useOurs');
    expect(await readArray(our, '/a')).toEqual([7, 7, 7, 7, 1, 1, 1, 1]);
    expect(await attribute(our, '/a')).toBe('them');
    ({ our } = await solved('ChunksUpdatedInUpdatedArray', 'useTheirs'));
    expect(await readArray(our, '/a')).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('a callback decides each conflict', async () => {
    const repo = await baseRepository();
    const { our } = await race(
      repo,
      async (s) => { await writeChunk(s.store, '/a', 0, 5); await writeChunk(s.store, '/a', 1, 5); await writeChunk(s.store, '/g/b', 0, 5); },
      async (s) => { await writeChunk(s.store, '/a', 0, 7); await writeChunk(s.store, '/a', 1, 7); await writeChunk(s.store, '/g/b', 0, 7); },
    );
    const seen: Conflict[] = [];
    await our.commit('ours', {
      rebaseWith: new CallbackConflictSolver(async (c) => {
        seen.push(c);
        return c.path === '/a' ? 'useTheirs' : 'useOurs';
      }),
    });
    expect(seen.map((c) => c.path).sort()).toEqual(['/a', '/g/b']);
    expect(await readArray(our, '/a')).toEqual([5, 5, 5, 5, 5, 5, 5, 5]);
    expect(await readArray(our, '/g/b')).toEqual([7, 7, 7, 7, 1, 1, 1, 1]);
    const r = await race(repo, (s) => writeChunk(s.store, '/a', 0, 1), (s) => writeChunk(s.store, '/a', 0, 2));
    await expect(r.our.rebase(new CallbackConflictSolver(() => 'fail'))).rejects.toMatchObject({ code: 'CONFLICT', conflicts: [{ type: 'ChunkDoubleUpdate', path: '/a', chunkCoordinates: [[0]] }] });
  });

  it('rejects unknown choices', () => {
    expect(() => new BasicConflictSolver({ onChunkConflict: 'mine' as never })).toThrow(/must be one of/);
  });
});
