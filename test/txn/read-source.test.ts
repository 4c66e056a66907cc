// The read seam (src/engine/read-source.ts) as a contract, run against both implementations with
// the same content: a plain Zarr store (StoreReader) and an Icechunk session. Same nodes, children,
// metadata documents, stored chunks and chunk bytes; the locations differ only in kind (a plain
// store's chunks are all native, one object per key; a session's are inline, native in a packed
// object, or virtual) and every location's bytes are the chunk's bytes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { isReadSource, nodeMetadata, type ChunkLocation, type ReadSource, type StoredChunk } from '../../src/engine/read-source.ts';
import { resolveKey } from '../../src/engine/source-keys.ts';
import { slice } from '../../src/engine/selection.ts';
import { MemoryStorage } from '../../src/engine/storage/memory.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import { StorageStore, type ZarrStore } from '../../src/engine/store.ts';
import { StoreReader } from '../../src/engine/store-reader.ts';
import { query } from '../../src/query/builder.ts';
import { Repository, Storage } from '../../src/txn/index.ts';

// int32, little endian: 2 values (8 bytes) per /g/small chunk, inline under a 100-byte threshold;
// 50 values (200 bytes) per /g/packed chunk, five to a pack object; /v's one chunk is virtual.
const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }];
const SMALL = { shape: [8], chunkShape: [2], dataType: 'int32', fillValue: 0, codecs } as never;
const PACKED = { shape: [500], chunkShape: [50], dataType: 'int32', fillValue: 0, codecs, dimensionNames: ['x'] } as never;
const VIRTUAL = { shape: [4], chunkShape: [4], dataType: 'int32', fillValue: 0, codecs } as never;
const int32Bytes = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);
const range = (n: number, k: number) => Array.from({ length: n }, (_, i) => k * i + 3);
/** The file a virtual chunk points into: 16 bytes of chunk at offset 8. */
const FILE_BYTES = int32Bytes([7, 7, 21, 22, 23, 24, 7]);

/** The same tree through any Zarr store; chunk 3 of /g/small and 8, 9 of /g/packed stay missing. */
async function writeTree(store: ZarrStore): Promise<void> {
  await ZarrGroup.create(store, '/', { attributes: { title: 'contract' } });
  await ZarrGroup.create(store, '/g', { attributes: { units: 'K' } });
  await (await ZarrArray.create(store, '/g/small', SMALL)).set([slice(0, 6)], Int32Array.from([1, 2, 3, 4, 5, 6]));
  await (await ZarrArray.create(store, '/g/packed', PACKED)).set([slice(0, 400)], Int32Array.from(range(400, 2)));
  await ZarrArray.create(store, '/v', VIRTUAL);
}

interface Built {
  readonly source: ReadSource;
  /** Where a native location's object lies in storage. */
  readonly storage: ObjectStorage;
  readonly objectKey: (object: string) => string;
}

let scratch: string;
let file: string;

async function plainStore(): Promise<Built> {
  const storage = new MemoryStorage();
  const store = new StorageStore(storage);
  await writeTree(store);
  await store.set('v/c/0', FILE_BYTES.slice(8, 24));
  return { source: new StoreReader(store), storage, objectKey: (object) => object };
}

async function session(): Promise<Built> {
  const storage = new MemoryStorage();
  const prefix = pathToFileURL(scratch).href + '/';
  const config = {
    inlineChunkThresholdBytes: 100,
    virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: scratch } } },
  };
  const repo = await Repository.create(Storage.fromObjectStorage(storage), config, 2, { [prefix]: null }, { chunkPacking: { maxChunkBytes: 300, packBytes: 1000 } });
  const writer = await repo.writableSession('main');
  await writeTree(writer.store);
  await writer.store.setVirtualRef('v/c/0', pathToFileURL(file).href, 8, 16, null, null, true);
  await writer.commit('the contract tree');
  return { source: await repo.readonlySession({ branch: 'main' }), storage, objectKey: (object) => `chunks/${object}` };
}

/** The bytes a location names, read from where it says (not through the store). */
async function bytesAt(built: Built, location: ChunkLocation): Promise<Uint8Array | undefined> {
  switch (location.kind) {
    case 'missing':
      return undefined;
    case 'inline':
      return location.bytes;
    case 'native':
      return (await built.storage.get(built.objectKey(location.object), { offset: location.offset, length: location.length }))?.bytes;
    case 'virtual':
      return new Uint8Array(readFileSync(new URL(location.location)).subarray(location.offset, location.offset + location.length));
  }
}

async function all(chunks: AsyncIterable<StoredChunk>): Promise<StoredChunk[]> {
  const out: StoredChunk[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

const paths = async (source: ReadSource, at: string) => (await source.children(at)).map((n) => n.path);

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'floe-read-source-'));
  file = path.join(scratch, 'data.bin');
  writeFileSync(file, FILE_BYTES);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each([
  ['a plain Zarr store (StoreReader)', plainStore],
  ['an Icechunk session', session],
])('ReadSource contract: %s', (_name, build) => {
  let built: Built;
  beforeAll(async () => {
    built = await build();
  });

  it('is recognised structurally; a bare store is not a ReadSource', () => {
    expect(isReadSource(built.source)).toBe(true);
    expect(isReadSource(built.source.store)).toBe(false);
  });

  it('resolves nodes with their kind and zarr.json, and nothing where there is none', async () => {
    const { source } = built;
    expect(await source.node('/')).toMatchObject({ path: '/', kind: 'group' });
    expect(await source.node('/g/packed')).toMatchObject({ path: '/g/packed', kind: 'array' });
    expect(await source.node('/nope')).toBeUndefined();
    expect(await source.node('/g/packed/c')).toBeUndefined();
    const g = (await source.node('/g'))!;
    expect(g.document).toEqual(await source.store.get('g/zarr.json'));
    expect(nodeMetadata(g).attributes).toEqual({ units: 'K' });
    const packed = nodeMetadata((await source.node('/g/packed'))!);
    expect(packed).toMatchObject({ nodeType: 'array', shape: [500], chunkShape: [50], dimensionNames: ['x'] });
  });

  it('lists children in node-path order; none for arrays and absent nodes', async () => {
    const { source } = built;
    expect(await paths(source, '/')).toEqual(['/g', '/v']);
    expect(await paths(source, '/g')).toEqual(['/g/packed', '/g/small']);
    expect(await paths(source, '/g/small')).toEqual([]);
    expect(await paths(source, '/nope')).toEqual([]);
  });

  it('locates every chunk: its location holds exactly the bytes the store reads at its key', async () => {
    for (const [array, count] of [['/g/small', 4], ['/g/packed', 10], ['/v', 1]] as const) {
      for (let i = 0; i < count; i++) {
        const location = await built.source.locateChunk(array, [i]);
        const key = `${array.slice(1)}/c/${i}`;
        expect(await bytesAt(built, location), key).toEqual(await built.source.store.get(key));
      }
    }
    expect(await built.source.locateChunk('/g/small', [3])).toEqual({ kind: 'missing' });
    expect(await built.source.locateChunk('/g/packed', [9])).toEqual({ kind: 'missing' });
  });

  it('lists the stored chunks of an array in grid order, missing ones left out', async () => {
    const chunks = await all(built.source.chunks('/g/packed'));
    expect(chunks.map((c) => c.coords)).toEqual([[0], [1], [2], [3], [4], [5], [6], [7]]);
    expect(chunks.every((c) => (c.location.kind === 'inline' ? c.location.bytes.length : c.location.length) === 200)).toBe(true);
    expect((await all(built.source.chunks('/g/small'))).map((c) => c.coords)).toEqual([[0], [1], [2]]);
  });

  it('refuses chunk lookups on groups and absent nodes', async () => {
    await expect(built.source.locateChunk('/g', [0])).rejects.toMatchObject({ code: 'NODE_TYPE_MISMATCH' });
    await expect(built.source.locateChunk('/nope', [0])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(all(built.source.chunks('/nope'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('resolves store keys to metadata and chunks (resolveKey, as floe serve does)', async () => {
    const { source } = built;
    expect(await resolveKey(source, 'g/packed/c/3')).toMatchObject({ kind: 'chunk', node: { path: '/g/packed' }, coords: [3] });
    expect(await resolveKey(source, '/g/zarr.json')).toMatchObject({ kind: 'metadata', node: { path: '/g' } });
    expect(await resolveKey(source, 'g/packed/c/x')).toBeUndefined();
    expect(await resolveKey(source, 'g/c/0')).toBeUndefined();
    expect(await resolveKey(source, 'nope/zarr.json')).toBeUndefined();
    await expect(resolveKey(source, 'g//zarr.json')).rejects.toMatchObject({ code: 'INVALID_KEY' });
  });

  it('answers a query', async () => {
    const result = await query(built.source).from('/g/packed', 'int32').whereIndex('x', 395, 405).execute();
    expect(Array.from(result.data)).toEqual([...range(400, 2).slice(395), 0, 0, 0, 0, 0]);
  });
});

describe('ReadSource: the two implementations agree', () => {
  let plain: Built;
  let icechunk: Built;
  beforeAll(async () => {
    [plain, icechunk] = await Promise.all([plainStore(), session()]);
  });

  it('on every node, document and child', async () => {
    for (const p of ['/', '/g', '/g/small', '/g/packed', '/v']) {
      const [a, b] = [await plain.source.node(p), await icechunk.source.node(p)];
      expect(b).toEqual(a);
      expect(await paths(icechunk.source, p)).toEqual(await paths(plain.source, p));
    }
  });

  it('on every stored chunk and its bytes, whatever its location kind', async () => {
    for (const array of ['/g/small', '/g/packed', '/v']) {
      const [a, b] = [await all(plain.source.chunks(array)), await all(icechunk.source.chunks(array))];
      expect(b.map((c) => c.coords)).toEqual(a.map((c) => c.coords));
      for (let i = 0; i < a.length; i++) expect(await bytesAt(icechunk, b[i]!.location)).toEqual(await bytesAt(plain, a[i]!.location));
    }
  });

  it('a session locates inline, packed native and virtual chunks; a plain store one object per key', async () => {
    const kinds = async (built: Built, array: string) => (await all(built.source.chunks(array))).map((c) => c.location.kind);
    expect(await kinds(icechunk, '/g/small')).toEqual(['inline', 'inline', 'inline']);
    expect(await kinds(icechunk, '/v')).toEqual(['virtual']);
    const packed = await all(icechunk.source.chunks('/g/packed'));
    const objects = new Map<string, number[]>();
    for (const { location } of packed) {
      if (location.kind !== 'native') throw new Error(`expected native, got ${location.kind}`);
      objects.set(location.object, [...(objects.get(location.object) ?? []), location.offset]);
    }
    expect([...objects.values()].map((offsets) => offsets.sort((x, y) => x - y))).toEqual([[0, 200, 400, 600, 800], [0, 200, 400]]);
    const plainPacked = await all(plain.source.chunks('/g/packed'));
    expect(plainPacked.map((c) => c.location)).toEqual(plainPacked.map((c) => ({ kind: 'native', object: `g/packed/c/${c.coords[0]}`, offset: 0, length: 200 })));
  });
});

describe('ReadSource: nodes under a root without zarr.json', () => {
  it('are children of the root in a plain store too (as in a new repository, below)', async () => {
    const store = new StorageStore(new MemoryStorage());
    await ZarrGroup.create(store, '/g');
    const reader = new StoreReader(store);
    expect(await reader.node('/')).toBeUndefined();
    expect(await paths(reader, '/')).toEqual(['/g']);
  });
});

describe('ReadSource: a writable session reads its uncommitted changes', () => {
  it('new nodes, their children and their chunks; changes after a listing show up', async () => {
    const repo = await Repository.create(Storage.newInMemory(), { inlineChunkThresholdBytes: 100 });
    const writer = await repo.writableSession('main');
    expect(await writer.node('/')).toBeUndefined();
    expect(await writer.children('/')).toEqual([]);
    await ZarrGroup.create(writer.store, '/g');
    await (await ZarrArray.create(writer.store, '/g/small', SMALL)).set([slice(0, 2)], Int32Array.from([1, 2]));
    expect(await paths(writer, '/')).toEqual(['/g']);
    expect(await paths(writer, '/g')).toEqual(['/g/small']);
    expect(await writer.locateChunk('/g/small', [0])).toEqual({ kind: 'inline', bytes: int32Bytes([1, 2]) });
    expect(writer.cacheUse).toBe('none');
    await writer.commit('one array');
    expect(writer.cacheUse).toBe('read-only');
    await ZarrArray.create(writer.store, '/g/other', SMALL);
    expect(await paths(writer, '/g')).toEqual(['/g/other', '/g/small']);
  });
});
