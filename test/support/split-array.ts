// A split array for the manifest-reuse tests: int32, one element per chunk (so chunk index =
// element index and the shape is the chunk grid), chunks written straight to the store as 4
// bytes. Helpers read back what a commit wrote: the array's manifests and its values.
import { ZarrArray } from '../../src/engine/array.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { idToString } from '../../src/format/icechunk/ids.ts';
import type { ChunkIndexRange } from '../../src/format/icechunk/snapshot.ts';
import type { Repository, RepositoryConfig } from '../../src/txn/index.ts';

export const ARRAY_PATH = '/a';
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** Every dimension split by `size` chunks. */
export function splitConfig(size: number): RepositoryConfig {
  return { manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: size }]]] } } };
}

export function arrayMetadata(shape: readonly number[]): Uint8Array {
  return json({
    zarr_format: 3, node_type: 'array', shape, data_type: 'int32', fill_value: 0, attributes: {},
    chunk_grid: { name: 'regular', configuration: { chunk_shape: shape.map(() => 1) } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
  });
}

export async function createArray(store: ZarrStore, shape: readonly number[]): Promise<void> {
  await store.set('zarr.json', json({ zarr_format: 3, node_type: 'group', attributes: {} }));
  await store.set(`${ARRAY_PATH.slice(1)}/zarr.json`, arrayMetadata(shape));
}

export const chunkKey = (index: readonly number[]) => `${ARRAY_PATH.slice(1)}/c/${index.join('/')}`;

export function writeChunk(store: ZarrStore, index: readonly number[], value: number): Promise<void> {
  return store.set(chunkKey(index), new Uint8Array(Int32Array.of(value).buffer));
}

export interface ManifestSummary {
  id: string;
  extents: ChunkIndexRange[];
}

/** The array's manifest refs on `main`. */
export async function manifestsOf(repo: Repository): Promise<ManifestSummary[]> {
  const session = await repo.readonlySession({ branch: 'main' });
  const node = session.baseSnapshot.byPath.get(ARRAY_PATH);
  if (node?.nodeData.kind !== 'array') throw new Error(`no array at ${ARRAY_PATH}`);
  return node.nodeData.manifests.map((m) => ({ id: idToString(m.objectId), extents: m.extents.map((e) => ({ from: e.from, to: e.to })) }));
}

/** The array's values on `main`, row-major. */
export async function valuesOf(repo: Repository): Promise<number[]> {
  const session = await repo.readonlySession({ branch: 'main' });
  return Array.from((await (await ZarrArray.open(session.store, ARRAY_PATH)).get()).data as Int32Array);
}

/** The manifests of `after` not in `before`, and those of `before` still referenced as they were. */
export function compareManifests(before: readonly ManifestSummary[], after: readonly ManifestSummary[]) {
  const old = new Map(before.map((m) => [m.id, m]));
  return {
    written: after.filter((m) => !old.has(m.id)),
    kept: after.filter((m) => old.has(m.id)),
    keptUnchanged: after.filter((m) => old.has(m.id)).every((m) => JSON.stringify(old.get(m.id)?.extents) === JSON.stringify(m.extents)),
  };
}
