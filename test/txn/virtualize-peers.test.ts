// Virtual datasets against what others wrote: NetCDF-3 files written at test time by Debian's
// python3-netcdf4 (classic, 64-bit offset, CDF-5; record and fixed variables, fill values,
// attributes, 0 and many records), and kerchunk version-1 references emitted from h5py's chunk
// info for an uncompressed HDF5 file. Every value Floe reads through the virtual refs (ZarrArray.get
// through the session, then through a committed repository, and a query) equals what netCDF4 /
// h5py read; the kerchunk and NetCDF-3 paths give identical arrays for the same data.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { virtualize, type VirtualizeResult } from '../../src/txn/virtualize.ts';
import type { ReadSource } from '../../src/engine/read-source.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { describeWithVirtualPeer, hexOf, runVirtualPeer } from '../support/python-virtual.ts';

interface PeerVar { dtype: string; shape: number[]; dims: string[]; hex: string; attrs: Record<string, unknown> }
interface PeerFile { format: string; vars: Record<string, PeerVar>; attrs: Record<string, unknown> }
interface KerchunkOut { refs: string; h5: string; values: Record<string, { dtype: string; shape: number[]; hex: string }> }

const ZARR_DTYPE: Record<string, string> = {
  '<f8': 'float64', '<f4': 'float32', '<i2': 'int16', '|i1': 'int8', '<i4': 'int32', '|S1': 'uint8', '<u2': 'uint16', '<u4': 'uint32', '<i8': 'int64', '<u8': 'uint64', '|u1': 'uint8',
};

let dir: string;
let files: Record<string, PeerFile>;
let kerchunk: KerchunkOut;
const counts = { files: 0, variables: 0, chunks: 0 };

describeWithVirtualPeer('virtualize against netCDF4 and h5py', () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-virtualize-'));
    files = runVirtualPeer<Record<string, PeerFile>>(['netcdf3', dir]);
    kerchunk = runVirtualPeer<KerchunkOut>(['kerchunk', dir]);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // The figures for the note.
    console.log(`virtualize peers: ${counts.files} files (NetCDF-3 by netCDF4, kerchunk references from h5py), ${counts.variables} variables, ${counts.chunks} chunks compared`);
  });

  /** Every variable of a file, read through `store` under `group`, against the peer's values. */
  async function compareFile(store: ZarrStore, group: string, peer: PeerFile, count = true): Promise<void> {
    for (const [name, v] of Object.entries(peer.vars)) {
      const array = await ZarrArray.open(store, `${group === '/' ? '' : group}/${name}`);
      expect(array.metadata.shape, name).toEqual(v.shape);
      expect(array.metadata.dataType.name, name).toBe(ZARR_DTYPE[v.dtype]);
      expect(array.metadata.dimensionNames, name).toEqual(v.dims);
      const got = await array.get();
      expect(hexOf(got.data as ArrayBufferView), `${name} values`).toBe(v.hex);
      if (!count) continue;
      counts.variables++;
      counts.chunks += v.shape.some((n) => n === 0) ? 0 : array.metadata.shape.reduce((n, s, d) => n * Math.ceil(s / (array.metadata.chunkShape[d] ?? 1)), 1);
    }
  }

  async function repoFor(prefixDir: string) {
    const prefix = pathToFileURL(prefixDir).href + '/';
    const config = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: prefixDir } } } };
    return Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
  }

  it('reads every NetCDF-3 variable as netCDF4 does, in the session, committed, and by query', async () => {
    const repo = await repoFor(dir);
    for (const [name, peer] of Object.entries(files)) {
      const session = await repo.writableSession('main');
      const result = await virtualize(session, [path.join(dir, name)], { path: `/${name.replace('.nc', '')}` });
      expect(result.skipped, name).toEqual([]);
      expect(result.imported.map((i) => i.variable).sort(), name).toEqual(Object.keys(peer.vars).sort());
      await compareFile(session.store, `/${name.replace('.nc', '')}`, peer);
      await session.commit(`virtualize ${name}`);
      counts.files++;
    }
    const reader = await repo.readonlySession({ branch: 'main' });
    for (const [name, peer] of Object.entries(files)) await compareFile(reader.store, `/${name.replace('.nc', '')}`, peer, false);
    // Formats, fill values and attributes.
    const classic = await ZarrArray.open(reader.store, '/classic/temp');
    expect(classic.metadata.fillValue.json).toBe(-999);
    expect(classic.metadata.attributes).toMatchObject({ long_name: 'temperature', _FillValue: -999 });
    expect((await ZarrArray.open(reader.store, '/classic/count')).metadata.fillValue.json).toBe(-32767);
    expect((await ZarrArray.open(reader.store, '/classic/nanfill')).metadata.fillValue.json).toBe('NaN');
    expect((await ZarrArray.open(reader.store, '/classic/time')).metadata.attributes).toEqual({ units: 'days since 2000-01-01' });
    expect(reader.view().nodeAt('/classic')?.kind).toBe('group');
    const root = await reader.node('/offset64');
    expect(new TextDecoder().decode(root?.document)).toContain('"title": "virtual offset64.nc"');
    expect((await ZarrArray.open(reader.store, '/cdf5/u64')).metadata.fillValue.json).toBe(18446744073709551614n);
    // A query reads through the same refs.
    const q = await query(reader as ReadSource).from('/classic/temp', 'float32').whereIndex('time', 2, 5).whereIndex('lat', 1, 3).execute();
    const temp = files['classic.nc']?.vars.temp;
    const all = new Float32Array(new Uint8Array(Buffer.from(temp?.hex ?? '', 'hex')).buffer);
    const expected: number[] = [];
    for (let t = 2; t < 5; t++) for (let y = 1; y < 3; y++) for (let x = 0; x < 7; x++) expected.push(all[(t * 5 + y) * 7 + x] ?? NaN);
    expect(Array.from(q.data as Float32Array)).toEqual(expected);
  });

  it('splits large contiguous variables into regular chunks and still reads the same values', async () => {
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, [path.join(dir, 'many.nc'), path.join(dir, 'classic.nc')], { maxChunkBytes: 12 });
    expect(result.sources.map((s) => s.group)).toEqual(['/many', '/classic']);
    const temp = await ZarrArray.open(session.store, '/classic/temp');
    expect(temp.metadata.chunkShape).toEqual([1, 1, 3]); // 12 bytes of float32; 7 has no divisor >= 2 below 3: a partial last chunk
    await compareFile(session.store, '/many', files['many.nc'] as PeerFile, false);
    await compareFile(session.store, '/classic', files['classic.nc'] as PeerFile, false);
    // The last chunk of the file's last variable runs past its end: stored natively, padded.
    expect(result.imported.find((i) => i.path === '/many/b')).toMatchObject({ storedChunks: 1, virtualChunks: 500 * 3 - 1 });
    counts.chunks += result.imported.reduce((n, i) => n + i.virtualChunks + i.storedChunks, 0); // the split layout's chunks, compared again
  });

  it('imports kerchunk references (templates, gen, inline text and base64, [url, offset, length]) as h5py reads them', async () => {
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const result: VirtualizeResult = await virtualize(session, [kerchunk.refs, path.join(dir, 'same.nc')], { path: '/k' });
    expect(result.skipped).toEqual([
      expect.objectContaining({ variable: 'unicode', reason: expect.stringContaining('re-encoding') }),
      expect.objectContaining({ variable: 'gone', reason: expect.stringContaining('missing.h5, which does not exist') }),
    ]);
    for (const [name, v] of Object.entries(kerchunk.values)) {
      const array = await ZarrArray.open(session.store, `/k/refs/${name}`);
      expect(array.metadata.shape, name).toEqual(v.shape);
      expect(hexOf((await array.get()).data as ArrayBufferView), name).toBe(v.hex);
      counts.variables++;
      counts.chunks += array.metadata.shape.reduce((n, s, d) => n * Math.ceil(s / (array.metadata.chunkShape[d] ?? 1)), 1);
    }
    counts.files++;
    const viaRefs = await (await ZarrArray.open(session.store, '/k/refs/chunked')).get();
    const viaNetcdf = await (await ZarrArray.open(session.store, '/k/same/chunked')).get();
    expect(hexOf(viaNetcdf.data as ArrayBufferView)).toBe(hexOf(viaRefs.data as ArrayBufferView));
    counts.files++;
    counts.variables++;
    expect((await ZarrArray.open(session.store, '/k/refs/chunked')).metadata.dimensionNames).toEqual(['y', 'x']);
    const inline = result.imported.find((i) => i.variable === 'small');
    expect(inline).toMatchObject({ virtualChunks: 0, storedChunks: 1 });
    expect(result.imported.find((i) => i.variable === 'contig')).toMatchObject({ virtualChunks: 4 });
    await session.commit('kerchunk');
    const reader = await repo.readonlySession({ branch: 'main' });
    const group = await reader.node('/k/refs/grp');
    expect(new TextDecoder().decode(group?.document)).toContain('subgroup');
  });

  it('says which container is missing, adds it when asked, and records the files\' modification times', async () => {
    const storage = Storage.newInMemory();
    const repo = await Repository.create(storage, {}, 2);
    const session = await repo.writableSession('main');
    const file = path.join(dir, 'onerec.nc');
    const refused = await virtualize(session, [file]).catch((e: unknown) => e);
    expect(isFloeError(refused, 'UNAUTHORIZED') && refused.details.reason).toBe('virtual-chunk-no-container');
    expect((refused as Error).message).toContain(pathToFileURL(dir).href + '/');
    expect(session.view().nodeAt('/only')).toBeUndefined(); // nothing written
    const result = await virtualize(session, [file], { addContainers: true, repository: repo });
    expect(result.containersAdded).toEqual([pathToFileURL(dir).href + '/']);
    await session.commit('one record variable');
    const reopened = await Repository.open(storage, undefined, { [pathToFileURL(dir).href + '/']: null });
    expect(Object.keys(reopened.config.virtualChunkContainers ?? {})).toEqual([pathToFileURL(dir).href + '/']);
    const reader = await reopened.readonlySession({ branch: 'main' });
    await compareFile(reader.store, '/', files['onerec.nc'] as PeerFile, false);
    const location = await reader.locateChunk('/only', [3, 0]);
    expect(location).toMatchObject({ kind: 'virtual', checksum: { lastModified: Math.floor(statSync(file).mtimeMs / 1000) } });
    expect(location.kind === 'virtual' && location.offset - (await reader.locateChunk('/only', [2, 0]).then((l) => (l.kind === 'virtual' ? l.offset : 0)))).toBe(6);
  });
});
