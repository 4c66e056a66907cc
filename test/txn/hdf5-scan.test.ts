// HDF5 / NetCDF-4 scanning against what h5py and netCDF4 wrote (test/support/hdf5-peer.py): files
// with libver 'earliest' (v1 B-tree chunk index, symbol-table groups) and 'latest' (single chunk,
// fixed array paged and not, extensible array along either dimension, v2 B-tree filtered and
// not, dense links and attributes), an implicit index, compact layout, the Debian filter plugins,
// and NetCDF-4 files. Every chunk Floe references equals h5py's get_chunk_info (index, byte
// offset, size, mask 0; a chunk whose mask skipped a filter is re-encoded and stored instead),
// every value read through the virtual refs equals what h5py / netCDF4 read, and what cannot be
// referenced is skipped with the reason.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openLocalFile } from '../../src/engine/byte-source.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { planHdf5 } from '../../src/txn/hdf5-scan.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import { describeWithVirtualPeer, HDF5_PEER, hexOf, runVirtualPeer } from '../support/python-virtual.ts';

interface H5Var { dtype: string; shape: number[]; hex: string | null; layout: number; chunks: [number[], number, number, number][] | null; chunk_shape?: number[]; filters: string[] }
interface NcVar { dtype: string; shape: number[]; dims: string[]; hex: string; attrs: string[]; skipped?: true }

let dir: string;
let h5: Record<string, Record<string, H5Var>>;
let nc4: Record<string, Record<string, NcVar>>;
/** Chunks compared against get_chunk_info, per chunk index and per filter pipeline. */
const byIndex: Record<string, number> = {};
const byFilter: Record<string, number> = {};
const counts = { files: 0, variables: 0, valuesCompared: 0 };

async function repoFor(prefixDir: string) {
  const prefix = pathToFileURL(prefixDir).href + '/';
  const config = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: prefixDir } } } };
  return Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
}

const SKIPPED: Record<string, string> = {
  lz4: "HDF5's LZ4 framing",
  lzf: 'LZF',
};

describeWithVirtualPeer('HDF5 / NetCDF-4 scanning against h5py and netCDF4', () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-hdf5-'));
    h5 = runVirtualPeer(['h5', dir], HDF5_PEER);
    nc4 = runVirtualPeer(['nc4', dir], HDF5_PEER);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    console.log(`hdf5 scan: ${counts.files} files, ${counts.variables} variables read back equal; chunks equal to get_chunk_info by index ${JSON.stringify(byIndex)}, by filters ${JSON.stringify(byFilter)}`);
  });

  it('references exactly the chunks h5py reports, for every chunk index', async () => {
    for (const [name, vars] of Object.entries(h5)) {
      const file = path.join(dir, name);
      const source = await openLocalFile(file);
      const plan = await planHdf5(source, file, {}).finally(() => source.close());
      for (const [v, peer] of Object.entries(vars)) {
        const planned = plan.arrays.find((a) => a.variable === v);
        const skip = Object.keys(SKIPPED).find((k) => v === k);
        if (skip) {
          expect(planned, v).toBeUndefined();
          expect(plan.skipped.find((s) => s.variable === v)?.reason, v).toContain(SKIPPED[skip]);
          continue;
        }
        expect(planned, `${name} ${v}`).toBeDefined();
        if (!planned || peer.chunks === null) continue;
        expect(planned.metadata.chunkShape, v).toEqual(peer.chunk_shape);
        const mine = planned.refs.map((r) => [[...r.index], r.offset, r.length, 0]).sort((a, b) => (a[1] as number) - (b[1] as number));
        // A chunk stored with filters skipped (its mask) is re-encoded and stored, not referenced.
        const theirs = peer.chunks.filter((c) => c[3] === 0).sort((a, b) => a[1] - b[1]);
        expect(mine, `${name} ${v}`).toEqual(theirs);
        expect(planned.stored.map((c) => [...c.index]), `${name} ${v}`).toEqual(peer.chunks.filter((c) => c[3] !== 0).map((c) => c[0]));
        if (v === 'masked') expect(peer.chunks.map((c) => c[3])).toEqual([0, 1]);
        const index = plan.chunkIndexes.get(v) ?? '?';
        byIndex[index] = (byIndex[index] ?? 0) + theirs.length;
        const filters = peer.filters.length === 0 ? 'none' : peer.filters.join('+');
        byFilter[filters] = (byFilter[filters] ?? 0) + theirs.length;
      }
    }
  });

  it('reads every dataset through the virtual refs as h5py does, in the session and committed', async () => {
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const files = Object.keys(h5).map((n) => path.join(dir, n));
    const result = await virtualize(session, files, { path: '/h5' });
    expect(result.sources.map((s) => s.format)).toEqual(['HDF5 (superblock 0)', 'HDF5 (superblock 3)', 'HDF5 (superblock 3)', 'HDF5 (superblock 3)']);
    expect(result.skipped.map((s) => s.variable).sort()).toEqual(['lz4', 'lz4', 'lzf', 'lzf']);
    expect(result.imported.filter((i) => i.variable === 'masked').map((i) => [i.virtualChunks, i.storedChunks])).toEqual([[1, 1], [1, 1]]);
    await session.commit('hdf5');
    const reader = await repo.readonlySession({ branch: 'main' });
    for (const [name, vars] of Object.entries(h5)) {
      const group = `/h5/${name.replace('.h5', '')}`;
      for (const [v, peer] of Object.entries(vars)) {
        if (SKIPPED[v] || peer.hex === null) continue;
        for (const store of [session.store, reader.store]) {
          const array = await ZarrArray.open(store, `${group}/${v}`);
          expect(array.metadata.shape, v).toEqual(peer.shape);
          expect(hexOf((await array.get()).data as ArrayBufferView), `${name} ${v}`).toBe(peer.hex);
        }
        counts.variables++;
      }
      counts.files++;
    }
    const root = await ZarrArray.open(reader.store, '/h5/earliest/chunked');
    expect(root.metadata.fillValue.json).toBe(-1.5);
    expect(root.metadata.attributes).toEqual({ units: 'K' });
    const latest = await reader.node('/h5/latest');
    expect(JSON.parse(new TextDecoder().decode(latest?.document)).attributes).toEqual({ title: 'hdf5 latest', vstr: 'a variable-length string', ints: [1, -2, 3], pi: 3.25 });
    for (const name of ['earliest', 'latest']) {
      const many = await reader.node(`/h5/${name}/many`);
      const attributes = JSON.parse(new TextDecoder().decode(many?.document)).attributes as Record<string, unknown>;
      expect(Object.keys(attributes).length, name).toBe(150);
      expect(attributes.attribute_149_with_a_longer_name).toEqual([0, 1, 2]); // 149 % 7 + 1 values
    }
    const dense = await reader.node('/h5/latest/grp/sub');
    expect(Object.keys(JSON.parse(new TextDecoder().decode(dense?.document)).attributes).length).toBe(12);
    expect((await ZarrArray.open(reader.store, '/h5/latest/empty_contig')).metadata.fillValue.json).toBe(7);
  });

  it("maps HDF5's LZ4 framing and h5py's LZF to Floe's own codecs only when asked, and reads them as h5py does", async () => {
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const files = ['earliest.h5', 'latest.h5'].map((n) => path.join(dir, n));
    const result = await virtualize(session, files, { allowFloeOnlyCodecs: true });
    expect(result.skipped).toEqual([]);
    for (const name of ['earliest', 'latest']) {
      for (const [v, codec] of [['lz4', 'floe.hdf5_lz4'], ['lzf', 'floe.lzf']] as const) {
        const array = await ZarrArray.open(session.store, `/${name}/${v}`);
        expect(array.metadata.codecs.map((c) => c.name)).toEqual(['bytes', codec]);
        expect(hexOf((await array.get()).data as ArrayBufferView), `${name} ${v}`).toBe(h5[`${name}.h5`]?.[v]?.hex);
        const located = await session.locateChunk(`/${name}/${v}`, [0]);
        expect(located.kind === 'virtual' && located.length, `${name} ${v}`).toBeLessThan(400); // really compressed
        counts.variables++;
      }
    }
  });

  it('gives the arrays kerchunk references emitted from h5py\'s chunk info give, for the same file', async () => {
    const kdir = path.join(dir, 'kerchunk');
    mkdirSync(kdir);
    const k = runVirtualPeer<{ refs: string; h5: string }>(['kerchunk', kdir]);
    const repo = await repoFor(kdir);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, [k.refs, k.h5]);
    expect(result.sources.map((x) => [x.format, x.group])).toEqual([['kerchunk references', '/refs'], ['HDF5 (superblock 0)', '/data']]);
    for (const v of ['chunked', 'grp/bigendian', 'contig']) {
      const viaRefs = await ZarrArray.open(session.store, `/refs/${v}`);
      const viaScan = await ZarrArray.open(session.store, `/data/${v}`);
      expect(viaScan.metadata.shape, v).toEqual(viaRefs.metadata.shape);
      expect(hexOf((await viaScan.get()).data as ArrayBufferView), v).toBe(hexOf((await viaRefs.get()).data as ArrayBufferView));
      if (v !== 'contig') expect(viaScan.metadata.chunkShape, v).toEqual(viaRefs.metadata.chunkShape);
      counts.variables++;
    }
    counts.files++;
  });

  it('reads a NetCDF-4 file with dimension names, not netCDF bookkeeping attributes', async () => {
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, [path.join(dir, 'nc4.nc'), path.join(dir, 'classic4.nc')]);
    expect(result.skipped.map((s) => [s.variable, s.reason])).toEqual([
      ['names', expect.stringContaining('variable-length strings')],
    ]);
    expect(result.sources.map((s) => s.format)).toEqual(['NetCDF-4 (superblock 2)', 'NetCDF-4 (superblock 2)']);
    for (const [file, peer] of Object.entries(nc4)) {
      const group = `/${file.replace('.nc', '')}`;
      const variables = Object.entries(peer).filter(([, p]) => !p.skipped);
      expect(result.imported.filter((i) => i.path.startsWith(group + '/')).map((i) => i.variable).sort()).toEqual(variables.map(([v]) => v).sort());
      for (const [v, p] of variables) {
        const array = await ZarrArray.open(session.store, `${group}/${v}`);
        expect(array.metadata.dimensionNames, v).toEqual(p.dims);
        expect(Object.keys(array.metadata.attributes).sort(), v).toEqual(p.attrs);
        expect(hexOf((await array.get()).data as ArrayBufferView), v).toBe(p.hex);
        counts.variables++;
      }
      counts.files++;
    }
    expect((await ZarrArray.open(session.store, '/nc4/temp')).metadata.fillValue.json).toBe(-999);
    expect((await ZarrArray.open(session.store, '/nc4/nofill')).metadata.fillValue.json).toBe(9.969209968386869e36);
    expect((await ZarrArray.open(session.store, '/classic4/v')).metadata.fillValue.json).toBe(1e20);
    const root = await session.node('/nc4');
    expect(JSON.parse(new TextDecoder().decode(root?.document)).attributes).toEqual({ title: 'netcdf4 file' });
  });
});
