// Reading repositories and stores over HTTP (issue 30) everywhere a location is accepted:
// Repository.open('http://…') on a static copy and on `floe serve`'s raw route (which keeps its
// other routes), a spec-1 repository where the host lists and the refusal where it does not,
// openStore('http://…') for plain Zarr v2 (consolidated) and v3, and the CLI's read commands with
// `--repo http://…` (write commands refused before any request; unknown schemes refused).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { HttpStorage } from '../../src/engine/storage/http.ts';
import { isFloeError } from '../../src/errors.ts';
import { createRepositoryServer, type RepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { fixturePath } from '../support/fixtures.ts';
import { objectsInDirectory, startStaticServer, type StaticServer } from '../support/static-http-server.ts';
import { floe, removeTempDirs, sampleRepository, tempDir } from './helpers.ts';

let sample: Awaited<ReturnType<typeof sampleRepository>>;
let host: StaticServer;
let served: RepositoryServer;
let servedUrl: string;
const extra: StaticServer[] = [];

beforeAll(async () => {
  sample = await sampleRepository(tempDir());
  host = await startStaticServer({ objects: objectsInDirectory(sample.repoPath), prefix: 'pub/repo.icechunk/' });
  served = createRepositoryServer(sample.repo, { token: 'tok-raw' });
  servedUrl = await served.listen(0, '127.0.0.1');
});
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await host?.stop();
  await served?.close();
  removeTempDirs();
});

/** What a reader sees of a repository: refs, main's history, and the temperature at v1 and main. */
async function view(repo: Repository) {
  const log: string[] = [];
  for await (const s of repo.ancestry({ branch: 'main' })) log.push(`${s.id} ${s.message}`);
  const values = async (ref: { branch: string } | { tag: string }) => {
    const session = await repo.readonlySession(ref);
    return Array.from((await (await ZarrArray.open(session.store, '/weather/temperature')).get()).data as Float32Array);
  };
  return { branches: await repo.listBranches(), tags: await repo.listTags(), log, main: await values({ branch: 'main' }), v1: await values({ tag: 'v1' }) };
}

describe('Repository.open over HTTP', () => {
  it('reads a static copy exactly as the local repository, sending no write', async () => {
    const local = await view(sample.repo);
    const remote = await view(await Repository.open(host.url));
    expect(remote).toEqual(local);
    expect(local.log).toHaveLength(3);
    expect(host.requests.every((r) => r.method === 'GET' || r.method === 'HEAD')).toBe(true);
    // Chunks are byte ranges of packed chunk objects: each is read by range, never a whole object.
    const chunkReads = host.requests.filter((r) => r.url.includes('/chunks/'));
    expect(chunkReads.length).toBeGreaterThan(0);
    for (const r of chunkReads) expect(r.headers.range).toMatch(/^bytes=\d+-\d+(,\d+-\d+)*$/);
  });

  it('reads floe serve raw route the same way, with the token, and keeps the other routes', async () => {
    const local = await view(sample.repo);
    const storage = Storage.newHttp(`${servedUrl}/.icechunk/`, { headers: { authorization: 'Bearer tok-raw' } });
    expect(await view(await Repository.open(storage))).toEqual(local);
    // Without the token: typed, not a crash.
    const err = await Repository.open(`${servedUrl}/.icechunk/`).then(() => undefined, (e: unknown) => e);
    expect(isFloeError(err, 'UNAUTHORIZED') && err.details.reason).toBe('http-unauthorized');
    const auth = { authorization: 'Bearer tok-raw' };
    const refs = (await (await fetch(`${servedUrl}/`, { headers: auth })).json()) as { branches: Record<string, string> };
    expect(refs.branches.main).toBe(sample.tip);
    expect((await fetch(`${servedUrl}/main/weather/temperature/zarr.json`, { headers: auth })).status).toBe(200);
  });

  it('serves raw objects with revalidation for the repo file, immutability for the rest, Range, 304 and no escapes', async () => {
    const auth = { authorization: 'Bearer tok-raw' };
    const info = await fetch(`${servedUrl}/.icechunk/repo`, { headers: auth });
    expect(info.status).toBe(200);
    expect(info.headers.get('cache-control')).toBe('no-cache');
    expect(info.headers.get('access-control-expose-headers')).toMatch(/ETag/);
    const etag = info.headers.get('etag')!;
    await info.arrayBuffer();
    expect((await fetch(`${servedUrl}/.icechunk/repo`, { headers: { ...auth, 'if-none-match': etag } })).status).toBe(304);
    const snapshot = [...objectsInDirectory(sample.repoPath).keys()].find((k) => k.startsWith('snapshots/'))!;
    const ranged = await fetch(`${servedUrl}/.icechunk/${snapshot}`, { headers: { ...auth, range: 'bytes=-4' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('cache-control')).toMatch(/immutable/);
    const size = objectsInDirectory(sample.repoPath).get(snapshot)!.length;
    expect(ranged.headers.get('content-range')).toBe(`bytes ${size - 4}-${size - 1}/${size}`);
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(objectsInDirectory(sample.repoPath).get(snapshot)!.subarray(size - 4));
    for (const bad of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e/repo', 'snapshots/..']) {
      const res = await fetch(`${servedUrl}/.icechunk/${bad}`, { headers: auth });
      expect([400, 404]).toContain(res.status);
      await res.arrayBuffer();
    }
    expect((await fetch(`${servedUrl}/.icechunk/repo`, { method: 'PUT', headers: auth, body: 'x' })).status).toBe(405);
    const listing = await (await fetch(`${servedUrl}/.icechunk/?list-type=2&prefix=snapshots/`, { headers: auth })).text();
    expect(listing).toContain(`<Key>${snapshot}</Key>`);
  });

  it('answers several ranges as multipart/byteranges, which HttpStorage takes in one request', async () => {
    const auth = { authorization: 'Bearer tok-raw' };
    const objects = objectsInDirectory(sample.repoPath);
    const snapshot = [...objects.keys()].find((k) => k.startsWith('snapshots/'))!;
    const bytes = objects.get(snapshot)!;
    const size = bytes.length;
    const res = await fetch(`${servedUrl}/.icechunk/${snapshot}`, { headers: { ...auth, range: `bytes=0-3,10-19,-5,${size + 10}-` } });
    expect(res.status).toBe(206);
    const boundary = /boundary=(\S+)/.exec(res.headers.get('content-type') ?? '')?.[1];
    expect(boundary).toBeDefined();
    const body = new Uint8Array(await res.arrayBuffer());
    expect(body.length).toBe(Number(res.headers.get('content-length')));
    // Parsed here by splitting on the boundary (latin1 keeps one character per byte).
    const text = Buffer.from(body).toString('latin1');
    const parts = text.split(`--${boundary}`).slice(1, -1).map((part) => {
      const [head, data] = [part.slice(0, part.indexOf('\r\n\r\n')), part.slice(part.indexOf('\r\n\r\n') + 4, -2)];
      return { range: /Content-Range: bytes (\d+)-(\d+)\/(\d+)/.exec(head)!.slice(1).map(Number), data: Buffer.from(data, 'latin1') };
    });
    expect(parts.map((p) => p.range)).toEqual([[0, 3, size], [10, 19, size], [size - 5, size - 1, size]]); // the range past the end left out
    for (const p of parts) expect(new Uint8Array(p.data)).toEqual(bytes.subarray(p.range[0]!, p.range[1]! + 1));
    // Overlapping ranges, more than 100 of them, or none satisfiable: the whole object, or 416.
    const overlapping = await fetch(`${servedUrl}/.icechunk/${snapshot}`, { headers: { ...auth, range: 'bytes=0-9,5-14' } });
    expect([overlapping.status, (await overlapping.arrayBuffer()).byteLength]).toEqual([200, size]);
    const many = Array.from({ length: 101 }, (_, i) => `${i}-${i}`).join(',');
    const tooMany = await fetch(`${servedUrl}/.icechunk/${snapshot}`, { headers: { ...auth, range: `bytes=${many}` } });
    expect([tooMany.status, (await tooMany.arrayBuffer()).byteLength]).toEqual([200, size]);
    const past = await fetch(`${servedUrl}/.icechunk/${snapshot}`, { headers: { ...auth, range: `bytes=${size}-,${size + 5}-` } });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${size}`]);
    await past.arrayBuffer();
    // Floe's client keeps using multi-range requests with this host.
    const storage = new HttpStorage({ url: `${servedUrl}/.icechunk/`, headers: auth });
    const got = await storage.getRanges(snapshot, [{ offset: 1, length: 3 }, { offset: size - 8, length: 8 }]);
    expect(got!.bytes).toEqual([bytes.subarray(1, 4), bytes.subarray(size - 8)]);
    expect(storage.multiRange).toBe(true);
  });

  it('opens a spec-1 repository where the host lists, and names what needs listing where it does not', async () => {
    const objects = objectsInDirectory(fixturePath('icechunk/repos/test-repo-v1'));
    const listing = await startStaticServer({ objects, prefix: 'b/test-repo-v1/', listing: true });
    const plain = await startStaticServer({ objects, prefix: 'b/test-repo-v1/' });
    extra.push(listing, plain);
    const local = await Repository.open(Storage.newLocalFilesystem(fixturePath('icechunk/repos/test-repo-v1')));
    const remote = await Repository.open(listing.url);
    expect(remote.specVersion).toBe(1);
    expect((await remote.listBranches()).sort()).toEqual((await local.listBranches()).sort());
    expect((await remote.listTags()).sort()).toEqual((await local.listTags()).sort());
    const err = await Repository.open(plain.url).then(() => undefined, (e: unknown) => e);
    expect(isFloeError(err) ? err.code : err).toMatch(/UNSUPPORTED|NOT_FOUND/);
    expect(String((err as Error).message)).toMatch(/listing|no Icechunk repository/);
  });
});

describe('floe serve as a proxy of a published repository', () => {
  it('serves an HTTP repository through its Zarr, query and raw routes as it serves the local one', async () => {
    const proxy = createRepositoryServer(await Repository.open(host.url));
    const direct = createRepositoryServer(sample.repo);
    const [proxyUrl, directUrl] = [await proxy.listen(0, '127.0.0.1'), await direct.listen(0, '127.0.0.1')];
    try {
      const body = JSON.stringify({ from: '/weather/temperature', ops: [{ where: ['time', '=', 2] }, { nearest: ['lat', -5] }] });
      for (const [path, init] of [['/main/weather/temperature/zarr.json', {}], ['/v1/weather/temperature/c/0/0/0', {}], ['/.icechunk/repo', {}], ['/main/query', { method: 'POST', body, headers: { 'content-type': 'application/json' } }]] as const) {
        const [a, b] = await Promise.all([fetch(`${proxyUrl}${path}`, init), fetch(`${directUrl}${path}`, init)]);
        expect(a.status, path).toBe(b.status);
        expect(a.status, path).toBeLessThan(300);
        const [x, y] = [Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer())];
        if (path.endsWith('/query')) {
          // The same answer; only its report of what was fetched (requests, times) may differ.
          const { report: _x, ...got } = JSON.parse(x.toString()) as Record<string, unknown>;
          const { report: _y, ...want } = JSON.parse(y.toString()) as Record<string, unknown>;
          expect(got, path).toEqual(want);
          expect(want.arrays, path).toHaveLength(1);
        } else expect(x.equals(y), path).toBe(true);
      }
    } finally {
      await proxy.close();
      await direct.close();
    }
  });
});

describe('openStore over HTTP', () => {
  it('reads a consolidated Zarr v2 store written by zarr-python as the local copy', async () => {
    const dir = fixturePath('zarr/zarrita-v2/data.zarr');
    const server = await startStaticServer({ objects: objectsInDirectory(dir), prefix: 'data.zarr/' });
    extra.push(server);
    const local = openStore(dir, { readOnly: true });
    const remote = openStore(server.url);
    for (const name of ['1d.chunked.i2', '1d.chunked.ragged.i2', '1d.contiguous.b1']) {
      const a = await openArray(local, name);
      const b = await openArray(remote, name);
      expect(Array.from((await b.get()).data as ArrayLike<unknown>)).toEqual(Array.from((await a.get()).data as ArrayLike<unknown>));
    }
    const err = await remote.set('x', new Uint8Array(1)).then(() => undefined, (e: unknown) => e);
    expect(isFloeError(err, 'READ_ONLY')).toBe(true);
  });
});

describe('the CLI with --repo http://…', () => {
  it('runs the read commands against a static copy as against the directory', async () => {
    const cwd = tempDir();
    for (const argv of [['log'], ['ls', 'main'], ['show', 'main:/weather/temperature'], ['cat', 'main:/weather/temperature[1, 2, 3:6]'], ['diff', 'v1', 'main'], ['branch'], ['tag'], ['status']]) {
      const local = await floe([...argv, '--repo', sample.repoPath], { cwd });
      const remote = await floe([...argv, '--repo', host.url], { cwd });
      expect(local.code, `${argv.join(' ')}: ${local.stderr}`).toBe(0);
      expect(remote.code, `${argv.join(' ')}: ${remote.stderr}`).toBe(0);
      const neutral = (s: string) => s.replaceAll(sample.repoPath, 'REPO').replaceAll(host.url, 'REPO').replace(/\((http|file), Icechunk/g, '(KIND, Icechunk');
      expect(neutral(remote.stdout), argv.join(' ')).toBe(neutral(local.stdout));
    }
    for (const command of ['query', 'explain']) {
      const text = '.from("/weather/temperature").where("time", "=", 2).nearest("lat", -5).nearest("lon", 36)';
      const local = await floe([command, text, '--repo', sample.repoPath, '--json'], { cwd });
      const remote = await floe([command, text, '--repo', host.url, '--json'], { cwd });
      expect(remote.code, remote.stderr).toBe(0);
      // The same answer; only the report of what was fetched (requests, times) may differ.
      const { report: _r, ...answer } = JSON.parse(remote.stdout) as Record<string, unknown>;
      const { report: _l, ...expected } = JSON.parse(local.stdout) as Record<string, unknown>;
      expect(answer).toEqual(expected);
    }
  });

  it('refuses write commands on an HTTP location before sending anything, and unknown schemes', async () => {
    const cwd = tempDir();
    const before = host.requests.length;
    for (const argv of [['branch', 'create', 'x'], ['tag', 'delete', 'v1'], ['gc', '--older-than', '30d'], ['expire', '--older-than', '30d'], ['config', 'set', 'inline_chunk_threshold_bytes', '10'], ['init']]) {
      const result = await floe([...argv, '--repo', host.url, '--json'], { cwd });
      expect(result.code, argv.join(' ')).not.toBe(0);
      expect(result.stderr, argv.join(' ')).toMatch(/READ_ONLY|read-only/);
    }
    expect(host.requests.length).toBe(before);
    const wrongUrl = await floe(['log', '--repo', `${host.origin}/pub/`], { cwd });
    expect(wrongUrl.code).not.toBe(0);
    expect(wrongUrl.stderr).toMatch(/no Icechunk repository at .*repo.* file is missing/);
    expect(wrongUrl.stderr).not.toMatch(/floe init/);
    const unknown = await floe(['log', '--repo', 'gs://bucket/repo'], { cwd });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/gs:\/\/.*known: file:\/\/, s3:\/\/, http:\/\/, https:\/\//s);
  });

  it('sends FLOE_HTTP_TOKEN to floe serve, and says what to do without it', async () => {
    const cwd = tempDir();
    const ok = await floe(['log', '--repo', `${servedUrl}/.icechunk/`], { cwd, env: { FLOE_HTTP_TOKEN: 'tok-raw' } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('zero a corner');
    const denied = await floe(['log', '--repo', `${servedUrl}/.icechunk/`], { cwd });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/401.*FLOE_HTTP_TOKEN/s);
  });
});
