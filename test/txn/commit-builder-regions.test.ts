// The commit builder gathers an array's refs one split region at a time (src/txn/region-refs.ts)
// instead of copying every change into one Map. Its output must not change: every commit here
// also runs the builder as it was at 5f6112d (test/support/commit-builder-5f6112d.ts) on the same
// input, with the same manifest ids (drawn from a counter instead of at random), and the two must
// write the same manifests in the same order and return the same snapshot and transaction log,
// byte for byte. Random sessions over split arrays: writes, deletes, writes outside the grid,
// shrinking and growing the grid, and split sizes changed between commits (so base manifests
// cross the new regions and are reread).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import { isFloeError } from '../../src/errors.ts';
import { manifestKey } from '../../src/format/icechunk/keys.ts';
import type { ChunkRef, Manifest } from '../../src/format/icechunk/manifest.ts';
import { encodeSnapshot } from '../../src/format/icechunk/snapshot.ts';
import { encodeTransactionLog } from '../../src/format/icechunk/transaction-log.ts';
import type { BuildCommitInput, BuiltCommit } from '../../src/txn/commit-builder.ts';
import { Repository, Storage, type RepositoryConfig } from '../../src/txn/index.ts';
import { RegionRefs } from '../../src/txn/region-refs.ts';
import { RepoObjects } from '../../src/txn/objects.ts';
import { arrayMetadata, chunkKey, createArray, splitConfig, writeChunk } from '../support/split-array.ts';

const RUNS = Number(process.env.FLOE_COMMIT_REGIONS_RUNS ?? 60);

interface BuiltBytes {
  manifests: { id: string; bytes: string }[];
  snapshot: string;
  log: string;
}

// Manifest ids from a counter; each commit rewinds it so both builders draw the same ids.
const state = vi.hoisted(() => ({ nextId: 0, runs: [] as { oracle: BuiltBytes; builder: BuiltBytes }[] }));

vi.mock('../../src/format/icechunk/ids.ts', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../src/format/icechunk/ids.ts')>();
  return {
    ...ids,
    newManifestId: () => {
      const bytes = new Uint8Array(12);
      new DataView(bytes.buffer).setUint32(8, ++state.nextId);
      return ids.asManifestId(bytes);
    },
  };
});

vi.mock('../../src/txn/commit-builder.ts', async (importOriginal) => {
  const builder = await importOriginal<typeof import('../../src/txn/commit-builder.ts')>();
  const oracle = await import('../support/commit-builder-5f6112d.ts');
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  /**
   * `objects` for one run: reads pass through; manifest writes go to a scratch store of the run's
   * own (which gives their bytes) and are recorded. Both builders get the same kind, so they wait
   * the same ticks and arrays built concurrently draw ids in the same order. The builder's
   * manifests are written to the repository after the comparison.
   */
  const recording = (objects: RepoObjects, into: BuiltBytes['manifests'], written: Manifest[]) => {
    const scratch = new RepoObjects(new MemoryStorage());
    return {
      loadManifest: (id: Parameters<RepoObjects['loadManifest']>[0], options?: Parameters<RepoObjects['loadManifest']>[1]) => objects.loadManifest(id, options),
      writeManifest: async (manifest: Manifest) => {
        const size = await scratch.writeManifest(manifest);
        const stored = await scratch.storage.get(manifestKey(manifest.id));
        into.push({ id: hex(manifest.id), bytes: hex(stored?.bytes ?? new Uint8Array()) });
        written.push(manifest);
        return size;
      },
    } as unknown as RepoObjects;
  };
  const bytesOf = (built: BuiltCommit, manifests: BuiltBytes['manifests']): BuiltBytes => ({
    manifests, snapshot: hex(encodeSnapshot(built.snapshot)), log: hex(encodeTransactionLog(built.transactionLog)),
  });
  return {
    ...builder,
    buildCommit: async (input: BuildCommitInput): Promise<BuiltCommit> => {
      const firstId = state.nextId;
      // A first run loads the base manifests into the cache: a load from storage takes more
      // ticks than a cached one, and arrays built concurrently would draw ids in another order.
      await oracle.buildCommit({ ...input, objects: recording(input.objects, [], []) });
      state.nextId = firstId;
      const oracleManifests: BuiltBytes['manifests'] = [];
      const old = await oracle.buildCommit({ ...input, objects: recording(input.objects, oracleManifests, []) });
      state.nextId = firstId;
      const builderManifests: BuiltBytes['manifests'] = [];
      const written: Manifest[] = [];
      const built = await builder.buildCommit({ ...input, objects: recording(input.objects, builderManifests, written) });
      for (const manifest of written) await input.objects.writeManifest(manifest, input.request);
      state.runs.push({ oracle: bytesOf(old, oracleManifests), builder: bytesOf(built, builderManifests) });
      return built;
    },
  };
});

const ROWS = 6;
const COLS = 7;

type Op =
  | { kind: 'write'; row: number; col: number; value: number }
  | { kind: 'delete'; row: number; col: number }
  | { kind: 'reshape'; rows: number; cols: number };

// Rows and columns reach past the array (ROWS x COLS at most): writes there are outside the grid.
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), row: fc.nat(ROWS), col: fc.nat(COLS), value: fc.integer({ min: 1, max: 1000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), row: fc.nat(ROWS - 1), col: fc.nat(COLS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reshape' as const), rows: fc.integer({ min: 1, max: ROWS }), cols: fc.integer({ min: 1, max: COLS }) }) },
);

/** Split sizes per commit: 0 is no splitting; [rows, cols] splits both dimensions differently. */
const splitArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 }), fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 })));

function configFor(split: number | [number, number]): RepositoryConfig {
  if (split === 0) return {};
  if (typeof split === 'number') return splitConfig(split);
  const [rows, cols] = split;
  return { manifest: { splitting: { split_sizes: [['any_array', [{ condition: { Axis: 0 }, num_chunks: rows }, { condition: { Axis: 1 }, num_chunks: cols }]]] } } };
}

describe('commit builder by split region: same output as the single-Map builder (5f6112d)', () => {
  it('writes the same manifests, snapshot and transaction log, byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(splitArb, fc.array(opArb, { minLength: 1, maxLength: 16 })), { minLength: 1, maxLength: 5 }), async (commits) => {
        state.runs = [];
        const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), configFor(commits[0]?.[0] ?? 0));
        const first = await repo.writableSession('main');
        await createArray(first.store, [ROWS, COLS]);
        await first.store.set('b/zarr.json', arrayMetadata([9])); // a second array, written alongside
        await first.commit('empty arrays');
        for (const [i, [split, ops]] of commits.entries()) {
          if (i > 0) await repo.replaceConfig(configFor(split));
          const session = await repo.writableSession('main');
          for (const op of ops) {
            if (op.kind === 'write') {
              await writeChunk(session.store, [op.row, op.col], op.value);
              await session.store.set(`b/c/${op.col}`, new Uint8Array(Int32Array.of(op.value).buffer));
            } else if (op.kind === 'delete') {
              await session.store.delete(chunkKey([op.row, op.col]));
            } else {
              await session.store.set('a/zarr.json', arrayMetadata([op.rows, op.cols]));
            }
          }
          // allowEmpty: a commit whose only op rewrote the metadata unchanged has no changes.
          await session.commit(`commit ${i}`, { allowEmpty: true });
        }
        expect(state.runs).toHaveLength(commits.length + 1);
        for (const run of state.runs) expect(run.builder).toEqual(run.oracle);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('sees a difference: a manifest with one ref fewer does not match', async () => {
    // The comparison above would pass vacuously if both sides recorded nothing: check it can fail.
    state.runs = [];
    const repo = await Repository.create(Storage.fromObjectStorage(new MemoryStorage()), splitConfig(2));
    const session = await repo.writableSession('main');
    await createArray(session.store, [4, 4]);
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) await writeChunk(session.store, [r, c], r * 4 + c + 1);
    await session.commit('16 chunks in 4 regions');
    const run = state.runs[0];
    expect(run?.builder.manifests).toHaveLength(4);
    expect(run?.builder).toEqual(run?.oracle);
    const changed = structuredClone(run?.builder);
    changed?.manifests.pop();
    expect(changed).not.toEqual(run?.oracle);
  });
});

describe('RegionRefs', () => {
  const ref = (index: number[]): ChunkRef => ({ kind: 'inline', index, data: Uint8Array.of(index[0] ?? 0) });

  it('merges by region: changes over base refs, deletions dropped, regions by their least index', () => {
    const regions = new RegionRefs([2, 2], [{ numChunks: 4 }, { numChunks: 4 }]);
    // Region (0,1) holds [1,2] and region (1,0) holds [2,0]; (0,1)'s least index comes first.
    regions.addChanges([['3,0', ref([3, 0])], ['1,3', null], ['0,9', ref([0, 9])], ['1,2', ref([1, 2])]]);
    expect([...regions.changedRegionKeys()].sort()).toEqual(['0,1', '0,4', '1,0']);
    const base = [ref([0, 2]), ref([1, 3]), ref([2, 0])];
    regions.addBase(base);
    const groups = [...regions.groups()];
    expect(groups.map((g) => g.refs.map((r) => r.index))).toEqual([[[0, 2], [1, 2]], [[2, 0], [3, 0]]]);
    expect(groups.map((g) => g.extents)).toEqual([
      [{ from: 0, to: 2 }, { from: 2, to: 3 }],
      [{ from: 2, to: 4 }, { from: 0, to: 1 }],
    ]);
  });

  it('refuses more regions than it can hold with LIMIT_EXCEEDED, saying to raise the split sizes', () => {
    const regions = new RegionRefs([1], [{ numChunks: 10 }], 2);
    const changes: [string, ChunkRef][] = [0, 1, 2].map((i) => [String(i), ref([i])]);
    let caught: unknown;
    try {
      regions.addChanges(changes);
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught, 'LIMIT_EXCEEDED')).toBe(true);
    expect(isFloeError(caught, 'LIMIT_EXCEEDED') && caught.details).toMatchObject({ kind: 'manifest-splits', limit: 2 });
    expect(String(caught)).toMatch(/raise the split sizes/);
  });

  it('keys regions by their key string when their count is past 2^53', () => {
    const huge = 2 ** 40;
    const regions = new RegionRefs([1, 1], [{ numChunks: huge }, { numChunks: huge }]);
    regions.addChanges([[`${huge - 1},5`, ref([huge - 1, 5])]]);
    expect([...regions.changedRegionKeys()]).toEqual([`${huge - 1},5`]);
    expect([...regions.groups()].map((g) => g.extents)).toEqual([[{ from: huge - 1, to: huge }, { from: 5, to: 6 }]]);
  });
});
