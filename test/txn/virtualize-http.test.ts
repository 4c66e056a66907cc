// Virtual datasets over HTTP: NetCDF-3 files written by python3-netcdf4, served by nginx on
// loopback, scanned by URL with ranged reads (requests counted in nginx's access log: one HEAD
// and one ranged GET per file, coordinates read from the blocks already fetched), the http://
// container added to the configuration, values read back through it equal to MFDataset's; the
// refs record the ETag, so a file changed on the server after the import is refused when read
// (CHECKSUM_MISMATCH), never read as other values; a local file changed likewise (mtime).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { isFloeError } from '../../src/errors.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { virtualize } from '../../src/txn/virtualize.ts';
import { startNginx, type StaticHost } from '../support/loopback-static-hosts.ts';
import { describeWithVirtualPeer, hexOf, runVirtualPeer } from '../support/python-virtual.ts';

interface Joined { files: string[]; vars: Record<string, { dtype: string; shape: number[]; hex: string }> }

let root: string;
let host: StaticHost;
let peer: Joined;

/** Requests nginx logged since `from` lines. */
const requestsSince = (from: number) => host.accessLog!().split('\n').filter(Boolean).slice(from);
const logged = () => host.accessLog!().split('\n').filter(Boolean).length;

describeWithVirtualPeer('virtualize over HTTP (nginx on loopback)', () => {
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'floe-virtualize-http-'));
    mkdirSync(path.join(root, 'archive'));
    peer = runVirtualPeer<Joined>(['concat', path.join(root, 'archive'), '3', 'NETCDF3_64BIT_OFFSET']);
    host = await startNginx(root);
  });
  afterAll(async () => {
    await host?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('scans by URL in two requests a file, adds the http container, and reads back as MFDataset does', async () => {
    const urls = peer.files.map((f) => `${host.url}/archive/${path.basename(f)}`);
    const storage = Storage.newInMemory();
    const repo = await Repository.create(storage);
    const session = await repo.writableSession('main');
    const before = logged();
    const result = await virtualize(session, urls, { concat: { dim: 'time' }, repository: repo, addContainers: true });
    const requests = requestsSince(before);
    // Per file: HEAD for the size and ETag, one GET of the first 64 KiB block (the whole header,
    // and the coordinates' bytes of these small files); nothing else.
    expect(requests.filter((r) => r.startsWith('HEAD ')), requests.join('\n')).toHaveLength(3);
    expect(requests.filter((r) => r.startsWith('GET ')), requests.join('\n')).toHaveLength(3);
    expect(requests.length).toBeLessThanOrEqual(2 * urls.length);
    expect(result.containersAdded).toEqual([`${host.url}/archive/`]);
    expect(repo.config.virtualChunkContainers?.[`${host.url}/archive/`]?.store.type).toBe('Http');
    expect(result.imported.find((v) => v.variable === 'temp')).toMatchObject({ shape: [12, 4, 6], virtualChunks: 12 });
    await session.commit('remote archive');

    const reader = await (await Repository.open(storage, null, { [`${host.url}/archive/`]: null })).readonlySession({ branch: 'main' });
    for (const [name, v] of Object.entries(peer.vars)) {
      expect(hexOf((await (await ZarrArray.open(reader.store, `/${name}`)).get()).data as ArrayBufferView), name).toBe(v.hex);
    }

    // The server's file replaced after the import by another file with an OLDER
    // modification time (a restored copy): only the ETag tells, and it does.
    const part1 = peer.files[1]!;
    copyFileSync(peer.files[0]!, `${part1}.tmp`);
    copyFileSync(part1, `${part1}.orig`);
    copyFileSync(`${part1}.tmp`, part1);
    const earlier = new Date(Date.now() - 3600_000);
    utimesSync(part1, earlier, earlier);
    const again = await (await Repository.open(storage, null, { [`${host.url}/archive/`]: null })).readonlySession({ branch: 'main' });
    const err = await (await ZarrArray.open(again.store, '/temp')).get().catch((e: unknown) => e);
    expect(isFloeError(err, 'CHECKSUM_MISMATCH'), String(err)).toBe(true);
    expect((err as Error).message).toContain('part01.nc');
    expect((err as Error).message).toContain('HTTP 412');
    // The coordinates are stored: still read.
    expect(hexOf((await (await ZarrArray.open(again.store, '/time')).get()).data as ArrayBufferView)).toBe(peer.vars.time!.hex);
    copyFileSync(`${part1}.orig`, part1);
  });

  it('refuses a file that changes while it is scanned, and a missing URL, writing nothing', async () => {
    // HEAD answers one ETag, every GET another: the file changed between the two.
    const bytes = readFileSync(peer.files[0]!);
    const server = http.createServer((req, res) => {
      if (!req.url?.endsWith('/a.nc')) return void res.writeHead(404).end();
      const etag = req.method === 'HEAD' ? '"one"' : '"two"';
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (req.method === 'HEAD' || !m) return void res.writeHead(200, { etag, 'content-length': String(bytes.length), 'accept-ranges': 'bytes' }).end(req.method === 'HEAD' ? undefined : bytes);
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), bytes.length - 1);
      res.writeHead(206, { etag, 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': String(end - start + 1) }).end(bytes.subarray(start, end + 1));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const repo = await Repository.create(Storage.newInMemory());
      const session = await repo.writableSession('main');
      const changed = await virtualize(session, [`${base}/d/a.nc`], { repository: repo, addContainers: true }).catch((e: unknown) => e);
      expect(isFloeError(changed, 'CHECKSUM_MISMATCH'), String(changed)).toBe(true);
      expect((changed as Error).message).toContain('changed while it was scanned');
      const missing = await virtualize(session, [`${base}/d/none.nc`], { repository: repo, addContainers: true }).catch((e: unknown) => e);
      expect(isFloeError(missing, 'NOT_FOUND'), String(missing)).toBe(true);
      expect(session.hasUncommittedChanges).toBe(false);
      expect(repo.config.virtualChunkContainers ?? {}).toEqual({});
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a local file changed after the import (modification time, whole seconds)', async () => {
    const dir = path.join(root, 'local');
    mkdirSync(dir);
    const file = path.join(dir, 'a.nc');
    copyFileSync(peer.files[2]!, file);
    const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    utimesSync(file, past, past);
    const storage = Storage.newInMemory();
    const repo = await Repository.create(storage);
    const session = await repo.writableSession('main');
    await virtualize(session, [file], { repository: repo, addContainers: true });
    await session.commit('local');
    const prefix = `file://${dir}/`;
    const read = async () => {
      const reader = await (await Repository.open(storage, null, { [prefix]: null })).readonlySession({ branch: 'main' });
      return (await ZarrArray.open(reader.store, '/temp')).get();
    };
    expect((await read()).data.length).toBe(5 * 4 * 6);
    utimesSync(file, new Date(), new Date());
    const err = await read().catch((e: unknown) => e);
    expect(isFloeError(err, 'CHECKSUM_MISMATCH'), String(err)).toBe(true);
    expect((err as Error).message).toContain('modified');
  });
});
