// Reads a whole hierarchy through the Zarr v3 keys any store exposes (`path/zarr.json`, chunk keys
// `path/c/<i>`), so every repository adapter observes the same thing the same way.
import { HISTORY_ARRAY } from '../arbitraries/repository-history.ts';
import type { ListedNode, TreeListing } from '../model/repository-model.ts';

export interface KeyReader {
  list(): Promise<string[]>;
  get(key: string): Promise<Uint8Array | undefined>;
}

/** Every node but the root: groups as 'group', arrays (the history layout) as int32 values. */
export async function readTreeListing(store: KeyReader): Promise<TreeListing> {
  const out: TreeListing = {};
  const metas = (await store.list()).filter((k) => k.endsWith('zarr.json') && k !== 'zarr.json').sort();
  for (const key of metas) {
    const dir = key.slice(0, -'/zarr.json'.length);
    const doc = JSON.parse(Buffer.from((await store.get(key))!).toString('utf8')) as { node_type?: string; attributes?: { v?: number } };
    const node = doc.node_type === 'group' ? 'group' : await readValues(store, dir);
    out['/' + dir] = withAttribute(node, doc.attributes?.v);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function readValues(store: KeyReader, dir: string): Promise<number[]> {
  const values: number[] = [];
  for (let c = 0; c < HISTORY_ARRAY.chunks; c++) {
    const bytes = await store.get(`${dir}/c/${c}`);
    const view = bytes ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
    for (let i = 0; i < HISTORY_ARRAY.chunkLength; i++) values.push(view ? view.getInt32(i * 4, true) : 0);
  }
  return values;
}

/** A listed node with the user attribute `v` when its zarr.json has one. */
export function withAttribute(node: 'group' | number[], v: number | undefined): ListedNode {
  return v === undefined ? node : { attr: v, node };
}

/** zarr.json of a history array (Zarr v3, written as bytes by adapters that have no array API). */
export function historyArrayDocument(): Uint8Array {
  return Buffer.from(JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [HISTORY_ARRAY.chunks * HISTORY_ARRAY.chunkLength], data_type: 'int32',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [HISTORY_ARRAY.chunkLength] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } }, fill_value: 0,
    codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], attributes: {},
  }));
}

/** A node's zarr.json with the user attribute `v` set (everything else as it was). */
export function documentWithAttribute(doc: Uint8Array, v: number): Uint8Array {
  const parsed = JSON.parse(Buffer.from(doc).toString('utf8')) as { attributes?: Record<string, unknown> };
  return Buffer.from(JSON.stringify({ ...parsed, attributes: { ...parsed.attributes, v } }));
}

export function historyChunkBytes(value: number): Uint8Array {
  return new Uint8Array(Int32Array.from({ length: HISTORY_ARRAY.chunkLength }, () => value).buffer);
}
