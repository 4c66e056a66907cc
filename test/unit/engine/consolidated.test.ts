// Consolidated metadata: a group opened with it opens its children without reading the store
// (storage requests counted: 1 against 51 for a v3 group of 50 arrays), `consolidate` writes it as
// zarr-python does (v3 inline, v2 .zmetadata), and Floe's own metadata writes keep it current.
import { describe, expect, it } from 'vitest';
import { createArray, createGroup, openGroup } from '../../../src/engine/api.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { consolidate } from '../../../src/engine/consolidated.ts';
import { ZarrGroup } from '../../../src/engine/group.ts';
import { MemoryStorage } from '../../../src/engine/storage/memory.ts';
import { wrapStorage } from '../../../src/engine/storage/wrap.ts';
import { StorageStore } from '../../../src/engine/store.ts';
import { isFloeError } from '../../../src/errors.ts';

/** A store over memory that counts the storage requests it makes. */
function countedStore(): { store: StorageStore; requests: () => number; reset: () => void } {
  let n = 0;
  const storage = wrapStorage(new MemoryStorage(), (_call, next) => {
    n++;
    return next();
  });
  return { store: new StorageStore(storage), requests: () => n, reset: () => (n = 0) };
}

const json = async (s: StorageStore, key: string): Promise<Record<string, unknown>> => JSON.parse(new TextDecoder().decode(await s.get(key))) as Record<string, unknown>;
const v3Entries = async (s: StorageStore, key = 'zarr.json') => ((await json(s, key)).consolidated_metadata as { metadata: Record<string, Record<string, unknown>> }).metadata;
const v2Entries = async (s: StorageStore, key = '.zmetadata') => (await json(s, key)).metadata as Record<string, Record<string, unknown>>;

async function openAll(group: ZarrGroup): Promise<ZarrArray[]> {
  const children = await group.children();
  return Promise.all(children.map((c) => group.openArray(c.name)));
}

async function fiftyArrays(zarrFormat: 2 | 3): Promise<ReturnType<typeof countedStore>> {
  const counted = countedStore();
  const root = await createGroup(counted.store, '/', { zarrFormat, attributes: { title: 'fifty' } });
  for (let i = 0; i < 50; i++) {
    const name = `a${String(i).padStart(2, '0')}`;
    if (zarrFormat === 2) await root.createArray(name, { zarrFormat: 2, shape: [4], chunks: [2], dtype: '<i4', attributes: { i } });
    else await root.createArray(name, { shape: [4], chunkShape: [2], dataType: 'int32', attributes: { i } });
  }
  return counted;
}

describe('opening a group of 50 arrays', () => {
  it('v3: 51 requests without consolidated metadata, 1 with it', async () => {
    const { store, requests, reset } = await fiftyArrays(3);
    const opened = async (useConsolidated: boolean) => {
      reset();
      const arrays = await openAll(await openGroup(store, '/', { useConsolidated }));
      expect(arrays.map((a) => a.attributes.i)).toEqual([...Array(50).keys()]);
      return requests();
    };
    const withoutListing = async () => {
      reset();
      const group = await openGroup(store, '/');
      await Promise.all([...Array(50).keys()].map((i) => group.openArray(`a${String(i).padStart(2, '0')}`)));
      return requests();
    };
    const before = await withoutListing();
    expect(await consolidate(store, '/')).toEqual({ zarrFormat: 3, nodes: 50 });
    expect([before, await withoutListing(), await opened(true)]).toEqual([51, 1, 1]);
    expect(await opened(false)).toBeGreaterThan(51); // and listing the children costs more still
  });

  it('v2: 1 request with .zmetadata when the version is given (2 when detected), 103 before consolidating (104 detected, 102 not looking for it)', async () => {
    const { store, requests, reset } = await fiftyArrays(2);
    const count = async (options: { zarrFormat?: 2; useConsolidated?: boolean }) => {
      reset();
      const group = await openGroup(store, '/', options);
      const arrays = await Promise.all([...Array(50).keys()].map((i) => group.openArray(`a${String(i).padStart(2, '0')}`)));
      expect([group.attributes, arrays.map((a) => a.attributes.i)]).toEqual([{ title: 'fifty' }, [...Array(50).keys()]]);
      return requests();
    };
    const before = [await count({ zarrFormat: 2 }), await count({})];
    await consolidate(store, '/');
    expect([...before, await count({ zarrFormat: 2 }), await count({}), await count({ zarrFormat: 2, useConsolidated: false })]).toEqual([103, 104, 1, 2, 102]);
  });
});

describe('consolidate', () => {
  it('writes v3 inline consolidated metadata as zarr-python 3 does: sorted by depth, nested groups without their own', async () => {
    const s = new StorageStore(new MemoryStorage());
    const root = await createGroup(s, '/', { attributes: { r: 1 } });
    const g = await root.createGroup('g', { attributes: { level: 1 } });
    await g.createArray('x', { shape: [2], chunkShape: [2], dataType: 'float32', fillValue: 'NaN' });
    await root.createArray('b', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await consolidate(s, '/g');
    expect(await consolidate(s, '/')).toEqual({ zarrFormat: 3, nodes: 3 });
    const doc = await json(s, 'zarr.json');
    expect(doc.consolidated_metadata).toMatchObject({ kind: 'inline', must_understand: false });
    const entries = await v3Entries(s);
    expect(Object.keys(entries)).toEqual(['b', 'g', 'g/x']);
    expect(entries.g).toEqual({ zarr_format: 3, node_type: 'group', attributes: { level: 1 } });
    expect(entries['g/x']).toMatchObject({ node_type: 'array', fill_value: 'NaN', shape: [2] });
    expect(doc.attributes).toEqual({ r: 1 });
  });

  it('writes v2 .zmetadata with every .zgroup, .zarray and .zattrs below the group ({} where a node has none)', async () => {
    const s = new StorageStore(new MemoryStorage());
    const root = await createGroup(s, '/', { zarrFormat: 2, attributes: { r: 1 } });
    await (await root.createGroup('g')).createArray('x', { zarrFormat: 2, shape: [2], chunks: [2], dtype: '<f4', attributes: { u: 'm' } });
    expect(await consolidate(s, '/')).toEqual({ zarrFormat: 2, nodes: 2 });
    const doc = await json(s, '.zmetadata');
    expect(doc.zarr_consolidated_format).toBe(1);
    expect(Object.keys(doc.metadata as object).sort()).toEqual(['.zattrs', '.zgroup', 'g/.zattrs', 'g/.zgroup', 'g/x/.zarray', 'g/x/.zattrs']);
    expect((doc.metadata as Record<string, unknown>)['g/.zattrs']).toEqual({});
    expect(await s.get('g/.zattrs')).toBeUndefined();
  });

  it('refuses an array or an empty path', async () => {
    const s = new StorageStore(new MemoryStorage());
    await createArray(s, '/a', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await expect(consolidate(s, '/a')).rejects.toSatisfy((e) => isFloeError(e, 'NODE_TYPE_MISMATCH'));
    await expect(consolidate(s, '/none')).rejects.toSatisfy((e) => isFloeError(e, 'NOT_FOUND'));
  });
});

describe('Floe\'s metadata writes keep consolidated metadata current', () => {
  it('v3: create, resize, attributes and erase, at any depth, concurrent creates included', async () => {
    const s = new StorageStore(new MemoryStorage());
    const root = await createGroup(s, '/');
    const stale = await openGroup(s, '/'); // opened before the changes below
    const g = await root.createGroup('g');
    await consolidate(s, '/');
    const a = await g.createArray('a', { shape: [4], chunkShape: [2], dataType: 'int16' });
    await Promise.all([...Array(20).keys()].map((i) => root.createArray(`c${i}`, { shape: [1], chunkShape: [1], dataType: 'uint8' })));
    await (await a.resize([8])).setAttributes({ note: 'x' });
    await stale.setAttributes({ t: 1 }); // must not write back the consolidated copy it was opened with
    let entries = await v3Entries(s);
    expect(Object.keys(entries)).toHaveLength(22);
    expect(entries['g/a']).toMatchObject({ shape: [8], attributes: { note: 'x' } });
    expect((await json(s, 'zarr.json')).attributes).toEqual({ t: 1 });
    await root.erase('g');
    entries = await v3Entries(s);
    expect([entries.g, entries['g/a'], Object.keys(entries).length]).toEqual([undefined, undefined, 20]);
  });

  it('v2: create, resize, attributes and erase', async () => {
    const s = new StorageStore(new MemoryStorage());
    const root = await createGroup(s, '/', { zarrFormat: 2 });
    await consolidate(s, '/');
    const a = await root.createArray('a', { zarrFormat: 2, shape: [4], chunks: [2], dtype: '<i2' });
    await (await a.resize([6])).setAttributes({ note: 'x' });
    await root.setAttributes({ t: 1 });
    const entries = await v2Entries(s);
    expect([entries['a/.zarray']?.shape, entries['a/.zattrs'], entries['.zattrs']]).toEqual([[6], { note: 'x' }, { t: 1 }]);
    await root.erase('a');
    expect(Object.keys(await v2Entries(s)).sort()).toEqual(['.zattrs', '.zgroup']);
  });

  it('a child missing from the consolidated metadata is still read from the store', async () => {
    const s = new StorageStore(new MemoryStorage());
    await createGroup(s, '/');
    await consolidate(s, '/');
    const other = new StorageStore(new MemoryStorage());
    await createArray(other, '/late', { shape: [1], chunkShape: [1], dataType: 'int8' });
    await s.set('late/zarr.json', (await other.get('late/zarr.json')) ?? new Uint8Array());
    const group = await openGroup(s, '/');
    expect([await group.children(), (await group.openArray('late')).shape]).toEqual([[], [1]]);
  });

  it('reads the layout zarr-python 3 writes: flat paths, nested groups with empty or null consolidated metadata', async () => {
    const array = (shape: number[]) => ({
      shape, data_type: 'int32', chunk_grid: { name: 'regular', configuration: { chunk_shape: [2] } },
      chunk_key_encoding: { name: 'default', configuration: { separator: '/' } }, fill_value: 0,
      codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 0, checksum: false } }],
      attributes: { units: 'K' }, dimension_names: null, zarr_format: 3, node_type: 'array', storage_transformers: [],
    });
    const root = {
      attributes: {}, zarr_format: 3, node_type: 'group',
      consolidated_metadata: {
        kind: 'inline', must_understand: false,
        metadata: {
          a: array([4]),
          child: { attributes: { kind: 'child' }, zarr_format: 3, consolidated_metadata: { kind: 'inline', must_understand: false, metadata: {} }, node_type: 'group' },
          'child/leaf': { attributes: {}, zarr_format: 3, consolidated_metadata: null, node_type: 'group' },
          'child/x': array([3]),
        },
      },
    };
    const { store, requests, reset } = countedStore();
    await store.set('zarr.json', new TextEncoder().encode(JSON.stringify(root)));
    reset();
    const group = await openGroup(store, '/');
    const child = await group.openGroup('child');
    const [a, x] = [await group.openArray('a'), await child.openArray('x')];
    expect([await group.children(), await child.children()]).toEqual([
      [{ name: 'a', path: '/a', kind: 'array' }, { name: 'child', path: '/child', kind: 'group' }],
      [{ name: 'leaf', path: '/child/leaf', kind: 'group' }, { name: 'x', path: '/child/x', kind: 'array' }],
    ]);
    expect([child.attributes, a.shape, x.shape, x.attributes, requests()]).toEqual([{ kind: 'child' }, [4], [3], { units: 'K' }, 1]);
  });

  it('ignores consolidated_metadata: null, zarr-python 3\'s default', async () => {
    const s = new StorageStore(new MemoryStorage());
    await s.set('zarr.json', new TextEncoder().encode('{"zarr_format": 3, "node_type": "group", "attributes": {}, "consolidated_metadata": null}'));
    await createArray(s, '/a', { shape: [1], chunkShape: [1], dataType: 'int8' });
    const group = await openGroup(s, '/');
    expect([group.consolidated, await group.children()]).toEqual([undefined, [{ name: 'a', path: '/a', kind: 'array' }]]);
  });
});
