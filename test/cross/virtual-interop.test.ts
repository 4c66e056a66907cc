// Virtual datasets against the reference Icechunk (@earthmover/icechunk, WASM): NetCDF-3 and
// NetCDF-4 (HDF5) files written by python3-netcdf4 and served by nginx on loopback. The WASM build cannot read
// local_file_system containers, so both directions use an http:// container:
//   - Floe virtualizes the files by URL, combined along time, into a repository directory; the
//     reference reads every array with its own HTTP virtual-chunk fetcher, values equal to
//     MFDataset's (virtual data over http, coordinates as real chunks);
//   - Floe creates the arrays (metadata only), the reference sets their virtual refs
//     (setVirtualRef, with the ETag) and commits; Floe reads them equal to netCDF4's values. The
//     WASM build 2.2.2 has no setVirtualRef on its store (its typings declare one): the test
//     checks that it is still missing, and runs the whole check the day it is there.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openByteSource } from '../../src/engine/byte-source.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { planNetcdf3 } from '../../src/txn/netcdf3-scan.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import { startNginx, type StaticHost } from '../support/loopback-static-hosts.ts';
import { describeWithVirtualPeer, hexOf, runVirtualPeer } from '../support/python-virtual.ts';
import { runReference } from '../support/reference-icechunk.ts';

interface Values { vars: Record<string, { dtype: string; shape: number[]; hex: string }> }
interface Joined extends Values { files: string[] }

let root: string;
let host: StaticHost;
let peer: Joined;
let peer4: Joined;

/** The peer's little-endian hex as numbers. */
function numbers(v: { dtype: string; hex: string }): number[] {
  const bytes = new Uint8Array(Buffer.from(v.hex, 'hex'));
  const Ctor = { '<f8': Float64Array, '<f4': Float32Array, '<i2': Int16Array, '<i4': Int32Array }[v.dtype];
  if (!Ctor) throw new Error(`no typed array for ${v.dtype}`);
  return Array.from(new Ctor(bytes.buffer), Number);
}

describeWithVirtualPeer('virtual datasets with the reference Icechunk (http:// container on nginx)', () => {
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-virtual-interop-'));
    mkdirSync(path.join(root, 'archive'));
    peer = runVirtualPeer<Joined>(['concat', path.join(root, 'archive'), '3', 'NETCDF3_CLASSIC']);
    mkdirSync(path.join(root, 'archive', 'nc4'));
    peer4 = runVirtualPeer<Joined>(['concat', path.join(root, 'archive', 'nc4'), '3', 'NETCDF4_CLASSIC']);
    host = await startNginx(path.join(root, 'archive'));
  });
  afterAll(async () => {
    await host?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the reference reads what Floe virtualized (combined along time) as MFDataset does', async () => {
    const prefix = `${host.url}/`;
    const dir = path.join(root, 'floe-wrote');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const session = await repo.writableSession('main');
    const urls = peer.files.map((f) => prefix + path.basename(f));
    await virtualize(session, urls, { concat: { dim: 'time' }, repository: repo, addContainers: true });
    await session.commit('virtualized by Floe');
    const names = Object.keys(peer.vars);
    const got = runReference<Record<string, number[]>>({ op: 'virtual-http-read', dir, prefixes: [prefix], paths: names.map((n) => `/${n}`) });
    for (const name of names) expect(got[`/${name}`], name).toEqual(numbers(peer.vars[name]!));
  });

  it('the reference reads a NetCDF-4 (HDF5) file Floe virtualized as netCDF4 does', async () => {
    // One file: combining NetCDF-4 files along time is refused while the time coordinate's chunk
    // (512 by netCDF-C's default) does not divide each file's length, although coordinates are
    // stored as real chunks.
    const prefix = `${host.url}/nc4/`;
    const file = peer4.files[0]!;
    const expected = runVirtualPeer<Values>(['dump', file]);
    const dir = path.join(root, 'floe-wrote-nc4');
    const repo = await Repository.create(Storage.newLocalFilesystem(dir));
    const session = await repo.writableSession('main');
    const result = await virtualize(session, [prefix + path.basename(file)], { repository: repo, addContainers: true });
    expect(result.sources.map((s) => s.format.split(' ')[0])).toEqual(['NetCDF-4']);
    expect(result.skipped).toEqual([]);
    await session.commit('NetCDF-4 virtualized by Floe');
    const names = Object.keys(expected.vars);
    expect(names.length).toBeGreaterThanOrEqual(4);
    const got = runReference<Record<string, number[]>>({ op: 'virtual-http-read', dir, prefixes: [prefix], paths: names.map((n) => `/${n}`) });
    for (const name of names) expect(got[`/${name}`], name).toEqual(numbers(expected.vars[name]!));
  });

  it('Floe reads the virtual refs the reference set (when its store can set them: not in 2.2.2 WASM)', async () => {
    const prefix = `${host.url}/`;
    const file = peer.files[1]!;
    const url = prefix + path.basename(file);
    const expected = runVirtualPeer<Values>(['dump', file]);
    const source = await openByteSource(url);
    const plan = await planNetcdf3(source, url, {}).finally(() => source.close());
    const dir = path.join(root, 'reference-wrote');
    const config = { virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: 'Http' as const, field0: {} } } } };
    const storage = Storage.newLocalFilesystem(dir);
    const repo = await Repository.create(storage, config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    for (const a of plan.arrays) await ZarrArray.create(session.store, `/${a.relativePath}`, a.metadata);
    await session.commit('arrays, no chunks');
    const refs = plan.arrays.flatMap((a) => a.refs.map((r) => ({ key: `${a.relativePath}/c/${r.index.join('/')}`, location: r.location, offset: r.offset, length: r.length, etag: r.etagChecksum })));
    expect(refs.every((r) => typeof r.etag === 'string')).toBe(true);
    const wrote = runReference<{ unavailable?: string[]; snapshot?: string }>({ op: 'virtual-set-refs', dir, prefixes: [prefix], refs });
    if (wrote.unavailable) {
      // A known gap of this build: no way to write virtual refs through its JS API.
      expect(wrote.unavailable).not.toContain('setVirtualRef');
      expect(wrote.unavailable).toContain('set');
      console.log(`virtual interop: the reference's WASM store has no setVirtualRef (methods: ${wrote.unavailable.join(' ')}); Floe-reads-reference-refs not checked`);
      return;
    }
    const reader = await (await Repository.open(storage, null, { [prefix]: null })).readonlySession({ branch: 'main' });
    for (const [name, v] of Object.entries(expected.vars)) {
      expect(hexOf((await (await ZarrArray.open(reader.store, `/${name}`)).get()).data as ArrayBufferView), name).toBe(v.hex);
    }
  });
});
