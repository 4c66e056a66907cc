// Combining many files into one cube (`virtualize` with `concat`): NetCDF-3 files written at test
// time by Debian's python3-netcdf4 (classic and 64-bit offset, 3 to 5 records each), joined along
// their record dimension, read back equal to netCDF4's MFDataset; coordinates stored as real
// chunks, so a query by label plans with the archive gone, while a data read then fails typed; a
// new leading dimension; kerchunk references (one per file) joined alike; and mismatches refused
// naming the file, the variable and the field.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { openByteSource } from '../../src/engine/byte-source.ts';
import { planNetcdf3 } from '../../src/txn/netcdf3-scan.ts';
import { isFloeError } from '../../src/errors.ts';
import { query } from '../../src/query/index.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import type { ReadSource } from '../../src/engine/read-source.ts';
import type { ZarrStore } from '../../src/engine/store.ts';
import { describeWithVirtualPeer, hexOf, runVirtualPeer } from '../support/python-virtual.ts';

interface Joined { files: string[]; vars: Record<string, { dtype: string; shape: number[]; hex: string }> }

let root: string;
const archives: Record<string, { dir: string; peer: Joined }> = {};
const FORMATS = ['NETCDF3_CLASSIC', 'NETCDF3_64BIT_OFFSET'];

async function repoFor(dir: string, storage = Storage.newInMemory()) {
  const prefix = pathToFileURL(dir).href + '/';
  const config = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: dir } } } };
  return Repository.create(storage, config, 2, { [prefix]: null });
}

async function expectValues(store: ZarrStore, group: string, peer: Joined): Promise<void> {
  for (const [name, v] of Object.entries(peer.vars)) {
    const array = await ZarrArray.open(store, `${group}/${name}`.replace('//', '/'));
    expect(array.metadata.shape, name).toEqual(v.shape);
    expect(hexOf((await array.get()).data as ArrayBufferView), `${name} values`).toBe(v.hex);
  }
}

describeWithVirtualPeer('virtualize combining files', () => {
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-virtualize-combine-'));
    for (const format of FORMATS) {
      const dir = path.join(root, format);
      mkdirSync(dir);
      archives[format] = { dir, peer: runVirtualPeer<Joined>(['concat', dir, '4', format]) };
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(FORMATS)('joins %s files along their record dimension as MFDataset does; labels without the archive', async (format) => {
    const { dir, peer } = archives[format]!;
    const storage = Storage.newInMemory();
    const repo = await repoFor(dir, storage);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, peer.files, { concat: { dim: 'time' }, path: '/cube' });
    expect(result.skipped).toEqual([]);
    expect(result.sources.map((s) => s.group)).toEqual(peer.files.map(() => '/cube'));
    const byName = Object.fromEntries(result.imported.map((v) => [v.variable, v]));
    // Coordinates are stored (time in one chunk), data stays in the files (one ref per record).
    expect(byName.time).toMatchObject({ shape: [15], virtualChunks: 0, storedChunks: 1 });
    expect(byName.lat).toMatchObject({ virtualChunks: 0, storedChunks: 1 });
    expect(byName.temp).toMatchObject({ shape: [15, 4, 6], virtualChunks: 15, storedChunks: 0 });
    expect(byName.grid).toMatchObject({ shape: [4, 6], virtualChunks: 1 });
    await expectValues(session.store, '/cube', peer);
    await session.commit('one cube');
    const reader = await repo.readonlySession({ branch: 'main' });
    await expectValues(reader.store, '/cube', peer);
    const q = query(reader as ReadSource).from('/cube/temp', 'float32').where('time', 'between', [24, 48]).where('lat', '>=', 50);
    const all = new Float32Array(new Uint8Array(Buffer.from(peer.vars.temp!.hex, 'hex')).buffer);
    const expected: number[] = [];
    for (let t = 4; t <= 8; t++) for (let y = 0; y < 2; y++) for (let x = 0; x < 6; x++) expected.push(all[(t * 4 + y) * 6 + x]!);
    expect(Array.from((await q.execute()).data)).toEqual(expected);

    // The archive gone: labels still resolve (coordinates are real chunks); data reads fail typed.
    renameSync(dir, `${dir}-gone`);
    try {
      // A repository opened afresh: no chunk cached by the reads above.
      const fresh = await (await Repository.open(storage, null, { [pathToFileURL(dir).href + '/']: null })).readonlySession({ branch: 'main' });
      const gone = query(fresh as ReadSource).from('/cube/temp', 'float32').where('time', 'between', [24, 48]).where('lat', '>=', 50);
      const { plan } = await gone.explain();
      expect(plan.dims.map((d) => [d.name, d.count])).toEqual([['time', 5], ['lat', 2], ['lon', 6]]);
      expect(hexOf((await (await ZarrArray.open(fresh.store, '/cube/time')).get()).data as ArrayBufferView)).toBe(peer.vars.time!.hex);
      const err = await gone.execute().catch((e: unknown) => e);
      expect(isFloeError(err), String(err)).toBe(true);
      expect((err as Error).message).toContain('part01.nc');
    } finally {
      renameSync(`${dir}-gone`, dir);
    }
  });

  it('joins NetCDF-4 files whose record coordinate is chunked longer than a file (netCDF-C: 512)', async () => {
    const dir = path.join(root, 'netcdf4');
    mkdirSync(dir);
    const peer = runVirtualPeer<Joined>(['concat', dir, '3', 'NETCDF4_CLASSIC']);
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, peer.files, { concat: { dim: 'time' }, path: '/cube' });
    expect(result.skipped).toEqual([]);
    const byName = Object.fromEntries(result.imported.map((v) => [v.variable, v]));
    // time: 3 + 4 + 5 values joined and stored; temp: one record a chunk, referenced in the files.
    expect(byName.time).toMatchObject({ shape: [12], virtualChunks: 0, storedChunks: 1 });
    expect(byName.temp).toMatchObject({ shape: [12, 4, 6], virtualChunks: 12, storedChunks: 0 });
    await expectValues(session.store, '/cube', peer);
    const q = query(session as unknown as ReadSource).from('/cube/temp', 'float32').where('time', 'between', [18, 30]);
    expect((await q.explain()).plan.dims.map((d) => [d.name, d.count])).toEqual([['time', 3], ['lat', 4], ['lon', 6]]);
  });

  it('joins kerchunk references (one per file, version 1) as it joins the files themselves', async () => {
    const { dir, peer } = archives.NETCDF3_64BIT_OFFSET!;
    const V2: Record<string, string> = { float32: '>f4', float64: '>f8', int16: '>i2', int32: '>i4' };
    const refsFiles: string[] = [];
    for (const file of peer.files) {
      const source = await openByteSource(file);
      const plan = await planNetcdf3(source, file, {}).finally(() => source.close());
      const refs: Record<string, unknown> = { '.zgroup': JSON.stringify({ zarr_format: 2 }) };
      for (const a of plan.arrays) {
        const m = a.metadata;
        refs[`${a.relativePath}/.zarray`] = JSON.stringify({ zarr_format: 2, shape: m.shape, chunks: m.chunkShape, dtype: V2[m.dataType], compressor: null, filters: null, fill_value: m.fillValue, order: 'C' });
        refs[`${a.relativePath}/.zattrs`] = JSON.stringify({ _ARRAY_DIMENSIONS: m.dimensionNames });
        for (const r of a.refs) refs[`${a.relativePath}/${r.index.join('.')}`] = [path.basename(file), r.offset, r.length];
      }
      const out = file.replace(/\.nc$/, '.json');
      writeFileSync(out, JSON.stringify({ version: 1, refs }));
      refsFiles.push(out);
    }
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    const result = await virtualize(session, refsFiles, { concat: { dim: 'time' } });
    expect(result.skipped).toEqual([]);
    expect(result.sources.map((s) => s.format)).toEqual(refsFiles.map(() => 'kerchunk references'));
    expect(result.imported.find((v) => v.variable === 'time')).toMatchObject({ virtualChunks: 0, storedChunks: 1 });
    await expectValues(session.store, '/', peer);
  });

  it('adds a new leading dimension, one position per file', async () => {
    const { dir, peer } = archives.NETCDF3_CLASSIC!;
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    // Files 0 and 3 have 3 records each (records 0-2 and 12-14 of the joined time).
    const result = await virtualize(session, [peer.files[0]!, peer.files[3]!], { concat: { dim: 'member', new: true } });
    expect(result.skipped).toEqual([]);
    const temp = await ZarrArray.open(session.store, '/temp');
    expect(temp.metadata.shape).toEqual([2, 3, 4, 6]);
    expect(temp.metadata.dimensionNames).toEqual(['member', 'time', 'lat', 'lon']);
    const hex = peer.vars.temp!.hex;
    const per = 3 * 4 * 6 * 4 * 2;
    expect(hexOf((await temp.get()).data as ArrayBufferView)).toBe(hex.slice(0, per) + hex.slice(12 * 4 * 6 * 4 * 2, 12 * 4 * 6 * 4 * 2 + per));
    // Coordinates are not given the new dimension.
    expect((await ZarrArray.open(session.store, '/lat')).metadata.shape).toEqual([4]);
    expect((await ZarrArray.open(session.store, '/time')).metadata.shape).toEqual([3]);
  });

  it('refuses files that do not agree, naming the file, the variable and the field, and writes nothing', async () => {
    const { dir, peer } = archives.NETCDF3_CLASSIC!;
    const repo = await repoFor(dir);
    const session = await repo.writableSession('main');
    // Along a new dimension the files' record counts differ (3 and 4).
    const err = await virtualize(session, peer.files, { concat: { dim: 'member', new: true } }).catch((e: unknown) => e);
    expect(isFloeError(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
    expect((err as Error).message).toMatch(/part01\.nc: variable (time|temp|level): its shape \[4.*differs from \[3.*part00\.nc/);
    const missing = await virtualize(session, peer.files, { concat: { dim: 'depth' } }).catch((e: unknown) => e);
    expect(isFloeError(missing, 'INVALID_ARGUMENT') && missing.message).toContain('no variable of');
    const clash = await virtualize(session, peer.files, { concat: { dim: 'lat', new: true } }).catch((e: unknown) => e);
    expect(isFloeError(clash, 'INVALID_ARGUMENT') && clash.message).toContain('already has a dimension lat');
    expect(session.hasUncommittedChanges).toBe(false);
  });
});
