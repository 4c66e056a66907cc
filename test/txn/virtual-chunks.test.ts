// Virtual chunks over HTTP (a loopback server) and local files: range reads through an
// allow-listed container, refusal of unauthorised containers and redirects, and a source changed
// since its ref was recorded (HTTP 412, a server ignoring the conditional headers, a touched file)
// failing with CHECKSUM_MISMATCH instead of returning stale bytes.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage, type Session } from '../../src/txn/index.ts';

const int32 = { shape: [8], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never;
const bytesOf = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);
const valuesOf = (bytes: Uint8Array | undefined) => bytes && Array.from(new Int32Array(bytes.slice().buffer));
const T0 = Date.UTC(2031, 4, 6, 7, 8, 9); // the source's first Last-Modified (whole seconds)

/** The loopback server's one object and how it behaves; tests change these. */
const source = {
  body: bytesOf(Array.from({ length: 16 }, (_, i) => i)),
  etag: '"v1"',
  lastModified: T0,
  honourRange: true,
  honourConditions: true,
  requests: [] as { url: string; headers: IncomingHttpHeaders }[],
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    source.requests.push({ url: req.url!, headers: req.headers });
    if (req.url!.startsWith('/moved/')) {
      res.writeHead(302, { location: `http://example.invalid${req.url}` }).end();
      return;
    }
    if (req.headers['x-token'] !== 'secret') return void res.writeHead(401).end();
    if (req.url !== '/data/blob.bin' && req.url !== '/private/blob.bin') return void res.writeHead(404).end();
    const validators = { etag: source.etag, 'last-modified': new Date(source.lastModified).toUTCString() };
    const ifMatch = req.headers['if-match'];
    const ifUnmodified = req.headers['if-unmodified-since'];
    if (source.honourConditions && ((ifMatch && ifMatch !== source.etag) || (ifUnmodified && source.lastModified > Date.parse(ifUnmodified)))) {
      return void res.writeHead(412, validators).end();
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!range || !source.honourRange) return void res.writeHead(200, validators).end(source.body);
    const [start, end] = [Number(range[1]), Number(range[2])];
    res.writeHead(206, { ...validators, 'content-range': `bytes ${start}-${end}/${source.body.length}` }).end(source.body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  Object.assign(source, { etag: '"v1"', lastModified: T0, honourRange: true, honourConditions: true, requests: [] });
  source.body = bytesOf(Array.from({ length: 16 }, (_, i) => i));
});

const http = (prefix: string) => ({ urlPrefix: prefix, store: { type: 'Http' as const, field0: { headers: { 'x-token': 'secret' } } } });

/** A repository with an authorised `/data/` container, an unauthorised `/private/` one, and `/moved/`. */
async function httpRepo(): Promise<{ repo: Repository; session: Session }> {
  const config = { virtualChunkContainers: { data: http(`${base}/data/`), private: http(`${base}/private/`), moved: http(`${base}/moved/`) } };
  const repo = await Repository.create(Storage.newInMemory(), config, 2, { [`${base}/data/`]: null, [`${base}/moved/`]: null });
  const session = await repo.writableSession('main');
  await ZarrArray.create(session.store, '/v', int32);
  return { repo, session };
}

async function failure(read: Promise<unknown>): Promise<{ code?: string; message?: string; details?: Record<string, unknown> }> {
  return read.then(
    () => ({ code: 'no error' }),
    (err: unknown) => err as { code: string },
  );
}

describe('HTTP virtual chunks', () => {
  it('reads byte ranges through an allow-listed container, sending its headers and the recorded ETag', async () => {
    const { repo, session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/data/blob.bin`, 8, 16, 'v1', null, true);
    await session.store.setVirtualRef('v/c/1', `${base}/data/blob.bin`, 40, 16, '"v1"', null, true);
    await session.commit('virtual');
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(Array.from((await (await ZarrArray.open(reader.store, '/v')).get()).data as Int32Array)).toEqual([2, 3, 4, 5, 10, 11, 12, 13]);
    const ranges = source.requests.map((r) => r.headers.range).sort();
    expect(ranges).toEqual(['bytes=40-55', 'bytes=8-23']);
    for (const r of source.requests) expect(r.headers).toMatchObject({ 'x-token': 'secret', 'if-match': '"v1"' });
    // A partial read of the chunk asks for just those bytes.
    source.requests = [];
    expect(valuesOf(await reader.store.getRange('v/c/1', { offset: 4, length: 8 }))).toEqual([11, 12]);
    expect(source.requests.map((r) => r.headers.range)).toEqual(['bytes=44-51']);
  });

  it('cuts the range out when the server ignores Range', async () => {
    const { session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/data/blob.bin`, 12, 16, null, null, true);
    source.honourRange = false;
    expect(valuesOf(await session.store.get('v/c/0'))).toEqual([3, 4, 5, 6]);
  });

  it('refuses containers the repository was not authorised for, without a request', async () => {
    const { session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/private/blob.bin`, 0, 16, null, null, true);
    const err = await failure(session.store.get('v/c/0'));
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'virtual-chunk-not-authorized' } });
    expect(err.message).toContain('authorizeVirtualChunkAccess');
    expect(source.requests).toEqual([]);
    // A location no container serves is refused when it is recorded.
    const unserved = await failure(session.store.setVirtualRef('v/c/1', 'http://127.0.0.1:1/elsewhere', 0, 16, null, null, true));
    expect(unserved).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'virtual-chunk-no-container' } });
  });

  it('does not follow a redirect out of the authorised prefix', async () => {
    const { session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/moved/blob.bin`, 0, 16, null, null, true);
    expect(await failure(session.store.get('v/c/0'))).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'virtual-chunk-redirect' } });
    expect(source.requests.map((r) => r.url)).toEqual(['/moved/blob.bin']);
  });

  it('an object changed since its ETag was recorded is CHECKSUM_MISMATCH (412, or a server ignoring If-Match)', async () => {
    const { repo, session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/data/blob.bin`, 8, 16, '"v1"', null, true);
    await session.commit('virtual');
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(valuesOf(await reader.store.get('v/c/0'))).toEqual([2, 3, 4, 5]);
    source.body = bytesOf(Array.from({ length: 16 }, (_, i) => 100 + i));
    source.etag = '"v2"';
    const err = await failure(reader.store.get('v/c/0'));
    expect(err).toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(err.message).toContain('HTTP 412');
    source.honourConditions = false; // the stale bytes come back with 206; the ETag gives it away
    const ignored = await failure(reader.store.get('v/c/0'));
    expect(ignored).toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(ignored.message).toContain('ETag "v2", recorded "v1"');
  });

  it('an object modified after its recorded time is CHECKSUM_MISMATCH (If-Unmodified-Since, Last-Modified)', async () => {
    const { session } = await httpRepo();
    await session.store.setVirtualRef('v/c/0', `${base}/data/blob.bin`, 8, 16, null, new Date(T0 + 500), true);
    expect(valuesOf(await session.store.get('v/c/0'))).toEqual([2, 3, 4, 5]);
    expect(source.requests[0]!.headers['if-unmodified-since']).toBe(new Date(T0).toUTCString());
    source.lastModified = T0 + 60_000;
    expect(await failure(session.store.get('v/c/0'))).toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    source.honourConditions = false;
    const ignored = await failure(session.store.get('v/c/0'));
    expect(ignored).toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(ignored.message).toContain('modified');
  });

  it('chunks of one object read together become one coalesced request, and a changed ETag still fails every chunk', async () => {
    const config = { virtualChunkContainers: { data: http(`${base}/data/`) } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [`${base}/data/`]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/w', { shape: [16], chunkShape: [2], dataType: 'int32', fillValue: 0 } as never);
    // Eight chunks of 8 bytes; chunk 3 sits after a 4-byte gap (a header between records).
    for (let c = 0; c < 8; c++) await session.store.setVirtualRef(`w/c/${c}`, `${base}/data/blob.bin`, c * 8 - (c > 3 ? 4 : 0), 8, '"v1"', null, true);
    await session.commit('virtual');
    const reader = await repo.readonlySession({ branch: 'main' });
    const array = await ZarrArray.open(reader.store, '/w');
    expect(Array.from((await array.get()).data as Int32Array)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(source.requests.map((r) => r.headers.range)).toEqual(['bytes=0-59']);
    expect(source.requests[0]!.headers['if-match']).toBe('"v1"');
    source.requests = [];
    source.etag = '"v2"';
    await expect(array.get()).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    source.honourConditions = false;
    await expect(array.get()).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    // Each chunk read alone is checked as well.
    for (let c = 0; c < 8; c++) await expect(reader.store.get(`w/c/${c}`)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
  });

  it('other HTTP failures keep their meaning: 404 NOT_FOUND, 401 STORAGE_ERROR', async () => {
    const config = { virtualChunkContainers: { data: { urlPrefix: `${base}/data/`, store: { type: 'Http' as const, field0: {} } } } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [`${base}/data/`]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/v', int32);
    await session.store.setVirtualRef('v/c/0', `${base}/data/blob.bin`, 0, 16, null, null, true);
    expect(await failure(session.store.get('v/c/0'))).toMatchObject({ code: 'STORAGE_ERROR' }); // no x-token header configured
    const { session: withToken } = await httpRepo();
    await withToken.store.setVirtualRef('v/c/0', `${base}/data/gone.bin`, 0, 16, null, null, true);
    expect(await failure(withToken.store.get('v/c/0'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('local-file virtual chunks', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'floe-virtual-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('a file modified after the recorded time is CHECKSUM_MISMATCH', async () => {
    const file = path.join(scratch, 'data.bin');
    writeFileSync(file, bytesOf([7, 7, 21, 22, 23, 24, 7]));
    utimesSync(file, new Date(T0), new Date(T0));
    const prefix = pathToFileURL(scratch).href + '/';
    const config = { virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: scratch } } } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/v', int32);
    await session.store.setVirtualRef('v/c/0', pathToFileURL(file).href, 8, 16, null, statSync(file).mtime, true);
    await session.commit('virtual file');
    const reader = await repo.readonlySession({ branch: 'main' });
    expect(valuesOf(await reader.store.get('v/c/0'))).toEqual([21, 22, 23, 24]);
    // Rewritten in place a minute later: the recorded time no longer vouches for the bytes.
    writeFileSync(file, bytesOf([7, 7, 31, 32, 33, 34, 7]));
    utimesSync(file, new Date(T0 + 60_000), new Date(T0 + 60_000));
    const err = await failure(reader.store.get('v/c/0'));
    expect(err).toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(err.message).toContain('modified');
    // A ref without a checksum reads whatever is there now.
    const fresh = await repo.writableSession('main');
    await fresh.store.setVirtualRef('v/c/1', pathToFileURL(file).href, 8, 16, null, null, true);
    expect(valuesOf(await fresh.store.get('v/c/1'))).toEqual([31, 32, 33, 34]);
  });

  it('chunks of one file read together: values as written, a modified file fails every batch, a range past the end fails alone', async () => {
    const file = path.join(scratch, 'records.bin');
    writeFileSync(file, bytesOf(Array.from({ length: 64 }, (_, i) => i)));
    utimesSync(file, new Date(T0), new Date(T0));
    const prefix = pathToFileURL(scratch).href + '/';
    const config = { virtualChunkContainers: { local: { urlPrefix: prefix, store: { type: 'LocalFileSystem' as const, field0: scratch } } } };
    const repo = await Repository.create(Storage.newInMemory(), config, 2, { [prefix]: null });
    const session = await repo.writableSession('main');
    await ZarrArray.create(session.store, '/r', { shape: [40], chunkShape: [4], dataType: 'int32', fillValue: 0 } as never);
    // Ten chunks of 16 bytes, each after a 4-byte gap (interleaved records), out of order in the file.
    const at = (c: number) => (9 - c) * 20 + 4;
    for (let c = 0; c < 10; c++) await session.store.setVirtualRef(`r/c/${c}`, pathToFileURL(file).href, at(c), 16, null, new Date(T0), true);
    await session.commit('records');
    const reader = await repo.readonlySession({ branch: 'main' });
    const array = await ZarrArray.open(reader.store, '/r');
    const expected = Array.from({ length: 10 }, (_, c) => [0, 1, 2, 3].map((i) => at(c) / 4 + i)).flat();
    for (let round = 0; round < 3; round++) expect(Array.from((await array.get()).data as Int32Array)).toEqual(expected);
    // Concurrent partial reads of overlapping ranges of one chunk each get their own bytes.
    const parts = await Promise.all([reader.store.getRange('r/c/0', { offset: 0, length: 8 }), reader.store.getRange('r/c/0', { offset: 4, length: 8 })]);
    expect(parts.map(valuesOf)).toEqual([[at(0) / 4, at(0) / 4 + 1], [at(0) / 4 + 1, at(0) / 4 + 2]]);
    // Touched a minute later: every read after that, batched or alone, refuses the stale bytes.
    utimesSync(file, new Date(T0 + 60_000), new Date(T0 + 60_000));
    await expect(array.get()).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    const alone = await Promise.allSettled(Array.from({ length: 10 }, (_, c) => reader.store.get(`r/c/${c}`)));
    expect(alone.map((r) => r.status === 'rejected' && (r.reason as { code: string }).code)).toEqual(Array(10).fill('CHECKSUM_MISMATCH'));
    // A ref past the end of the file fails alone; the others read in the same batch still succeed.
    utimesSync(file, new Date(T0), new Date(T0));
    const fresh = await repo.writableSession('main');
    await fresh.store.setVirtualRef('r/c/9', pathToFileURL(file).href, 250, 16, null, new Date(T0), true);
    const mixed = await Promise.allSettled(Array.from({ length: 10 }, (_, c) => fresh.store.get(`r/c/${c}`)));
    expect(mixed.slice(0, 9).map((r) => r.status === 'fulfilled' && valuesOf(r.value))).toEqual(Array.from({ length: 9 }, (_, c) => expected.slice(c * 4, c * 4 + 4)));
    expect(mixed[9]).toMatchObject({ status: 'rejected', reason: { code: 'CORRUPT_OBJECT' } });
  });
});
