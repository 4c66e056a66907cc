// Issue 18: manifests split as the reference Icechunk (2.2.2, WASM) splits them. Floe and the
// reference each create a repository with the same config and commit the same arrays and chunks;
// both snapshots are read with Floe's readers and compared manifest by manifest: the same count,
// the same chunks in each, and the same extents (the box the chunks span). The configs cover several rules matching
// one array, the first match per dimension, dimension conditions by name, index and Any, and rules
// that match nothing; a table of Rust regexes (as dimension-name conditions) checks the regex
// dialect. A reuse item commits again, changing one chunk, deleting chunks and writing one in an
// empty region: each follow-up commit writes as many new manifests on either side (issue 18 part
// 3), and the final layouts are equal. One reference child for everything: its WASM start-up is
// the slow part.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { idsEqual, idToString } from '../../src/format/icechunk/ids.ts';
import type { ChunkIndexRange } from '../../src/format/icechunk/snapshot.ts';
import { Repository, Storage, type ManifestSplitRule, type RepositoryConfig } from '../../src/txn/index.ts';
import { runReference } from '../support/reference-icechunk.ts';
import { RUST_REGEX_CASES } from '../support/rust-regex-cases.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-split-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface ArraySpec {
  path: string;
  metadata: Record<string, unknown>;
  chunks: number[][];
}
interface ChunkAt {
  path: string;
  index: number[];
}
interface FollowUp {
  writes?: ChunkAt[];
  deletes?: ChunkAt[];
}
interface Item {
  name: string;
  config: RepositoryConfig;
  groups: string[];
  arrays: ArraySpec[];
  followUps?: FollowUp[];
}

/** Zarr v3 metadata of an int32 array with one element per chunk (so the shape is the chunk grid). */
function arrayMetadata(shape: number[], dimensionNames?: (string | null)[]): Record<string, unknown> {
  return {
    zarr_format: 3, node_type: 'array', shape, data_type: 'int32', fill_value: 0, attributes: {},
    chunk_grid: { name: 'regular', configuration: { chunk_shape: shape.map(() => 1) } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
    ...(dimensionNames ? { dimension_names: dimensionNames } : {}),
  };
}

/** Every index of `shape` that `keep` selects: arrays only partly written, so that extents are not whole splits. */
function indices(shape: number[], keep: (index: number[]) => boolean): number[][] {
  let all: number[][] = [[]];
  for (const n of shape) all = all.flatMap((prefix) => Array.from({ length: n }, (_, i) => [...prefix, i]));
  return all.filter(keep);
}

const ARRAYS: ArraySpec[] = [
  { path: '/temperature', metadata: arrayMetadata([10, 6, 4], ['time', 'lat', 'lon']), chunks: indices([10, 6, 4], ([t = 0, y = 0, x = 0]) => (t * 7 + y * 3 + x) % 4 === 0) },
  { path: '/group/air_temp', metadata: arrayMetadata([9, 5], ['t', null]), chunks: indices([9, 5], ([t = 0, y = 0]) => (t + 2 * y) % 3 !== 1) },
  { path: '/group/unnamed', metadata: arrayMetadata([7, 3]), chunks: indices([7, 3], ([t = 0, y = 0]) => t !== 3 && (t + y) % 2 === 0) },
  { path: '/flat', metadata: arrayMetadata([11], ['x']), chunks: indices([11], ([i = 0]) => i % 2 === 1 || i === 10) },
];

const rules = (...r: ManifestSplitRule[]): RepositoryConfig => ({ manifest: { splitting: { split_sizes: r } } });

/** Configs to split ARRAYS by; each comment says what the reference must do. */
const LAYOUTS: Record<string, RepositoryConfig> = {
  // temperature: time 3 (the first rule), lat 2 (the second: its Axis 0 comes too late), lon 4
  // (the third); air_temp: 3 then 4 ('temp' is found in its path too); the others: 4 throughout.
  severalRulesMatch: rules(
    [{ path_matches: { regex: 'temp' } }, [{ condition: { Axis: 0 }, num_chunks: 3 }]],
    [{ name_matches: { regex: '^temperature$' } }, [{ condition: { Axis: 0 }, num_chunks: 5 }, { condition: { DimensionName: 'lat' }, num_chunks: 2 }]],
    ['any_array', [{ condition: 'Any', num_chunks: 4 }]],
  ),
  // Within a rule the first matching dimension condition wins; a name is a regex found anywhere
  // ('t' is in 'time' and 'lat'); an unnamed dimension matches no name, not even '.*'.
  firstMatchPerDimension: rules(
    [{ or: [{ name_matches: { regex: 'air' } }, { path_matches: { regex: '^/flat$' } }] },
      [{ condition: { DimensionName: 't' }, num_chunks: 2 }, { condition: { Axis: 1 }, num_chunks: 1 }, { condition: 'Any', num_chunks: 3 }]],
    [{ and: [{ path_matches: { regex: '^/group/' } }, { name_matches: { regex: 'unnamed' } }] },
      [{ condition: { DimensionName: '.*' }, num_chunks: 2 }, { condition: { Axis: 1 }, num_chunks: 2 }]],
    [{ name_matches: { regex: 'temperature' } }, [{ condition: { DimensionName: 't' }, num_chunks: 4 }, { condition: 'Any', num_chunks: 100 }]],
  ),
  // Nothing splits: regexes Rust refuses, a path regex without the leading '/', a parent's name
  // (name_matches sees the array's own), an empty `or`, dimension conditions matching nothing.
  nothingMatches: rules(
    [{ path_matches: { regex: '(' } }, [{ condition: 'Any', num_chunks: 1 }]],
    [{ name_matches: { regex: '(?=t)' } }, [{ condition: 'Any', num_chunks: 1 }]],
    [{ path_matches: { regex: '^temperature' } }, [{ condition: 'Any', num_chunks: 1 }]],
    [{ name_matches: { regex: '^group$' } }, [{ condition: 'Any', num_chunks: 1 }]],
    [{ or: [] }, [{ condition: 'Any', num_chunks: 1 }]],
    ['any_array', [{ condition: { DimensionName: 'nomatch' }, num_chunks: 1 }, { condition: { Axis: 7 }, num_chunks: 1 }]],
  ),
  // An empty `and` holds for every array; a size over the dimension's chunk count is one split.
  emptyAndAndHugeSize: rules(
    [{ and: [] }, [{ condition: { Axis: 0 }, num_chunks: 4 }]],
    ['any_array', [{ condition: 'Any', num_chunks: 2 ** 32 - 1 }]],
  ),
  noConfig: {},
};

/** One array per regex case, its dimension named by the case's text; a rule per array splits it in two when the regex matches. */
function regexItem(): Item {
  const groups = RUST_REGEX_CASES.map((_, k) => `/r${k}`);
  const arrays = RUST_REGEX_CASES.map((c, k) => ({ path: `/r${k}/a`, metadata: arrayMetadata([2], [c.text]), chunks: [[0], [1]] }));
  const config = rules(...RUST_REGEX_CASES.map((c, k): ManifestSplitRule =>
    [{ path_matches: { regex: `^/r${k}/` } }, [{ condition: { DimensionName: c.pattern }, num_chunks: 1 }]]));
  return { name: 'regexes', config, groups, arrays };
}

/**
 * Commits after the first, under severalRulesMatch (temperature split [3, 2, 4], the others 4
 * throughout): one chunk rewritten; chunks deleted in two arrays; one chunk written in each of
 * three arrays.
 */
const REUSE_FOLLOW_UPS: FollowUp[] = [
  { writes: [{ path: '/temperature', index: [0, 0, 0] }] },
  { deletes: [{ path: '/flat', index: [10] }, { path: '/group/air_temp', index: [0, 0] }] },
  { writes: [{ path: '/temperature', index: [9, 5, 3] }, { path: '/group/unnamed', index: [0, 0] }, { path: '/flat', index: [0] }] },
];

const ITEMS: Item[] = [
  ...Object.entries(LAYOUTS).map(([name, config]) => ({ name, config, groups: ['/group'], arrays: ARRAYS })),
  regexItem(),
  { name: 'reuse', config: LAYOUTS.severalRulesMatch ?? {}, groups: ['/group'], arrays: ARRAYS, followUps: REUSE_FOLLOW_UPS },
];
const dirOf = (side: string, item: Item) => path.join(scratch, `${side}-${item.name}`);
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** Commits the item's arrays, then each follow-up; the snapshot ids in order. */
async function commitWithFloe(item: Item): Promise<string[]> {
  const repo = await Repository.create(Storage.newLocalFilesystem(dirOf('floe', item)), item.config);
  const session = await repo.writableSession('main');
  const group = json({ zarr_format: 3, node_type: 'group', attributes: {} });
  await session.store.set('zarr.json', group);
  for (const g of item.groups) await session.store.set(`${g.slice(1)}/zarr.json`, group);
  for (const array of item.arrays) {
    await session.store.set(`${array.path.slice(1)}/zarr.json`, json(array.metadata));
    for (const [k, index] of array.chunks.entries()) {
      await session.store.set(`${array.path.slice(1)}/c/${index.join('/')}`, new Uint8Array(Int32Array.of(k).buffer));
    }
  }
  const snapshots = [await session.commit('split by Floe')];
  for (const followUp of item.followUps ?? []) {
    const next = await repo.writableSession('main');
    for (const w of followUp.writes ?? []) await next.store.set(`${w.path.slice(1)}/c/${w.index.join('/')}`, new Uint8Array(Int32Array.of(-1).buffer));
    for (const d of followUp.deletes ?? []) await next.store.delete(`${d.path.slice(1)}/c/${d.index.join('/')}`);
    snapshots.push(await next.commit('follow-up by Floe'));
  }
  return snapshots;
}

/** How many manifests each follow-up snapshot references that the one before did not. */
async function newManifestsPerCommit(dir: string, snapshots: readonly string[]): Promise<number[]> {
  const repo = await Repository.open(Storage.newLocalFilesystem(dir));
  const ids: Set<string>[] = [];
  for (const snapshotId of snapshots) {
    const session = await repo.readonlySession({ snapshotId });
    ids.push(new Set([...session.baseSnapshot.byPath.values()].flatMap((n) => (n.nodeData.kind === 'array' ? n.nodeData.manifests.map((m) => idToString(m.objectId)) : []))));
  }
  return ids.slice(1).map((now, k) => [...now].filter((id) => !ids[k]?.has(id)).length);
}

interface ManifestLayout {
  chunks: string[];
  extents: ChunkIndexRange[];
}

/** Each array's manifests (read with Floe's readers): the chunks each holds and its extents, in a stable order. */
async function layoutsOf(dir: string, arrays: readonly ArraySpec[]): Promise<Map<string, ManifestLayout[]>> {
  const session = await (await Repository.open(Storage.newLocalFilesystem(dir))).readonlySession({ branch: 'main' });
  const out = new Map<string, ManifestLayout[]>();
  for (const array of arrays) {
    const node = session.baseSnapshot.byPath.get(array.path);
    if (node?.nodeData.kind !== 'array') throw new Error(`${dir}: no array at ${array.path}`);
    const layouts: ManifestLayout[] = [];
    for (const ref of node.nodeData.manifests) {
      const manifest = await session.objects.loadManifest(ref.objectId);
      const refs = manifest.arrays.find((a) => idsEqual(a.nodeId, node.id))?.refs ?? [];
      layouts.push({ chunks: refs.map((r) => r.index.join(',')).sort(), extents: ref.extents });
    }
    out.set(array.path, layouts.sort((a, b) => (a.chunks[0] ?? '').localeCompare(b.chunks[0] ?? '')));
  }
  return out;
}

/** The least box holding `chunks` (to exclusive): what the reference stores as a manifest's extents. */
function boundingBox(chunks: readonly string[]): ChunkIndexRange[] {
  const points = chunks.map((c) => c.split(',').map(Number));
  return (points[0] ?? []).map((_, d) => {
    const along = points.map((p) => p[d] ?? 0);
    return { from: Math.min(...along), to: Math.max(...along) + 1 };
  });
}

/** How many splits of the given sizes (undefined: unsplit) hold at least one of `chunks`. */
function splitsHolding(chunks: readonly number[][], sizes: readonly (number | undefined)[]): number {
  return new Set(chunks.map((index) => index.map((c, d) => Math.floor(c / (sizes[d] ?? Infinity))).join(','))).size;
}

describe('manifest splitting across Floe and the reference (issue 18)', () => {
  it('the same configs split the same arrays into the same manifests', async () => {
    const referenceRuns = runReference<{ snapshots: string[] }[]>({
      op: 'commit-arrays',
      items: ITEMS.map((item) => ({ dir: dirOf('ref', item), config: item.config, groups: item.groups, arrays: item.arrays, followUps: item.followUps })),
    });
    const floeRuns: string[][] = [];
    for (const item of ITEMS) floeRuns.push(await commitWithFloe(item));

    // Reuse: each follow-up commit writes as many manifests on either side, fewer than all.
    const reuseAt = ITEMS.findIndex((i) => i.name === 'reuse');
    const referenceNew = await newManifestsPerCommit(dirOf('ref', ITEMS[reuseAt] as Item), referenceRuns[reuseAt]?.snapshots ?? []);
    const floeNew = await newManifestsPerCommit(dirOf('floe', ITEMS[reuseAt] as Item), floeRuns[reuseAt] ?? []);
    expect(referenceNew).toHaveLength(REUSE_FOLLOW_UPS.length);
    expect(floeNew).toEqual(referenceNew);
    // By hand: temperature's region of [0,0,0]; flat's [8,12) region (9 left) and air_temp's
    // region of [0,0] rewritten; one region each of temperature, unnamed and flat rewritten.
    expect(referenceNew).toEqual([1, 2, 3]);

    for (const item of ITEMS.filter((i) => i.name !== 'regexes')) {
      const ours = await layoutsOf(dirOf('floe', item), item.arrays);
      const theirs = await layoutsOf(dirOf('ref', item), item.arrays);
      for (const array of item.arrays) {
        const where = `${item.name} ${array.path}`;
        const floe = ours.get(array.path) ?? [];
        const reference = theirs.get(array.path) ?? [];
        expect(floe.map((m) => m.chunks), where).toEqual(reference.map((m) => m.chunks));
        // (The follow-ups of the reuse item add and delete chunks.)
        if (!item.followUps) expect(floe.flatMap((m) => m.chunks).length, where).toBe(array.chunks.length);
        // The reference stores the box its chunks span; so does Floe.
        for (const ref of reference) expect(ref.extents, where).toEqual(boundingBox(ref.chunks));
        expect(floe.map((m) => m.extents), where).toEqual(reference.map((m) => m.extents));
      }
    }

    // The split sizes the configs' comments call for, by hand: the reference's manifests are the
    // non-empty splits they make (so the comparison above compared splits, not single manifests).
    const U = undefined;
    const MAX = 2 ** 32 - 1;
    const SIZES: Record<string, Record<string, (number | undefined)[]>> = {
      severalRulesMatch: { '/temperature': [3, 2, 4], '/group/air_temp': [3, 4], '/group/unnamed': [4, 4], '/flat': [4] },
      firstMatchPerDimension: { '/temperature': [4, 4, 100], '/group/air_temp': [2, 1], '/group/unnamed': [U, 2], '/flat': [3] },
      nothingMatches: { '/temperature': [U, U, U], '/group/air_temp': [U, U], '/group/unnamed': [U, U], '/flat': [U] },
      emptyAndAndHugeSize: { '/temperature': [4, MAX, MAX], '/group/air_temp': [4, MAX], '/group/unnamed': [4, MAX], '/flat': [4] },
      noConfig: { '/temperature': [U, U, U], '/group/air_temp': [U, U], '/group/unnamed': [U, U], '/flat': [U] },
    };
    const byName = (name: string) => ITEMS.find((i) => i.name === name) as Item;
    const counts = async (item: Item) => new Map([...(await layoutsOf(dirOf('ref', item), item.arrays))].map(([p, m]) => [p, m.length]));
    for (const [name, sizes] of Object.entries(SIZES)) {
      const expected = new Map(ARRAYS.map((a) => [a.path, splitsHolding(a.chunks, sizes[a.path] ?? [])]));
      expect(await counts(byName(name)), name).toEqual(expected);
    }

    // The regex table: the reference matches as the table says, and Floe as the reference, except
    // where it names a pattern it does not translate (it then matches nothing).
    const regexes = byName('regexes');
    const referenceCounts = await counts(regexes);
    const floeCounts = new Map([...(await layoutsOf(dirOf('floe', regexes), regexes.arrays))].map(([p, m]) => [p, m.length]));
    for (const [k, c] of RUST_REGEX_CASES.entries()) {
      const where = `${JSON.stringify(c.pattern)} on ${JSON.stringify(c.text)}`;
      expect(referenceCounts.get(`/r${k}/a`), `reference: ${where}`).toBe(c.rust ? 2 : 1);
      expect(floeCounts.get(`/r${k}/a`), `Floe: ${where}`).toBe(c.rust && c.floe === undefined ? 2 : 1);
    }
  }, 60_000);
});
