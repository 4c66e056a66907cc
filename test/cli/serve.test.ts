// `floe serve`: zarrita reads branches, tags and snapshots through FetchStore; Range, 404s,
// ETags/304, CORS and the query route; and the real command serves until stopped.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { createRepositoryServer, type RepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { fieldValue, floe, NX, NY, removeTempDirs, ROOT, sampleRepository, tempDir } from './helpers.ts';

let server: RepositoryServer;
let base: string;
let v1: string;

afterAll(removeTempDirs); // after hooks run last-registered first: this one after server.close()
beforeAll(async () => {
  const sample = await sampleRepository(tempDir());
  v1 = sample.v1;
  server = createRepositoryServer(sample.repo);
  base = await server.listen(0, '127.0.0.1');
});
afterAll(() => server.close());

async function readTemperature(ref: string) {
  const root = zarr.root(new zarr.FetchStore(`${base}/${ref}`));
  const arr = await zarr.open(root.resolve('weather/temperature'), { kind: 'array' });
  const chunk = await zarr.get(arr, [0, zarr.slice(0, 6), zarr.slice(0, 6)]);
  return { shape: chunk.shape, data: chunk.data as Float32Array };
}

describe('floe serve over HTTP', () => {
  it('lets zarrita read a branch, a tag and a snapshot id (sharded, through Range requests)', async () => {
    const main = await readTemperature('main');
    const tagged = await readTemperature('v1');
    const bySnapshot = await readTemperature(v1);
    expect(main.shape).toEqual([6, 6]);
    expect(main.data[0]).toBe(0); // main zeroed the corner
    expect(main.data[5]).toBeCloseTo(fieldValue(0, 0, 5), 4);
    expect(tagged.data[0]).toBeCloseTo(fieldValue(0, 0, 0), 4);
    expect(Array.from(bySnapshot.data)).toEqual(Array.from(tagged.data));
    const group = await zarr.open(zarr.root(new zarr.FetchStore(`${base}/main`)).resolve('weather'), { kind: 'group' });
    expect(group.attrs).toEqual({ source: 'test' });
  });

  it('answers ranges with 206 and Content-Range, and unsatisfiable ones with 416', async () => {
    const whole = await fetch(`${base}/main/weather/lat/c/0`);
    expect(whole.status).toBe(200);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(bytes.length).toBe(NY * 8);
    const part = await fetch(`${base}/main/weather/lat/c/0`, { headers: { Range: 'bytes=8-15' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8-15/${NY * 8}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(8, 16));
    const suffix = await fetch(`${base}/main/weather/lat/c/0`, { headers: { Range: 'bytes=-4' } });
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 4));
    const beyond = await fetch(`${base}/main/weather/lat/c/0`, { headers: { Range: `bytes=${NY * 8}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${NY * 8}`);
  });

  it('gives 404 for missing keys, unknown refs and non-canonical keys', async () => {
    expect((await fetch(`${base}/main/weather/nothing/zarr.json`)).status).toBe(404);
    expect((await fetch(`${base}/main/weather/temperature/c/9/9/9`)).status).toBe(404);
    expect((await fetch(`${base}/no-such-branch/zarr.json`)).status).toBe(404);
    expect((await fetch(`${base}/main/weather%2F..%2Fzarr.json`)).status).toBe(404); // fetch would resolve a literal ../
    const head = await fetch(`${base}/main/missing/zarr.json`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect((await fetch(`${base}/main/zarr.json`, { method: 'PUT', body: '{}' })).status).toBe(405);
  });

  it('sends content ETags: 304 on a match, unchanged chunks keep theirs across versions', async () => {
    const first = await fetch(`${base}/main/weather/lon/c/0`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await fetch(`${base}/main/weather/lon/c/0`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${base}/v1/weather/lon/c/0`)).headers.get('etag')).toBe(etag);
    const changed = [await fetch(`${base}/main/weather/temperature/c/0/0/0`), await fetch(`${base}/v1/weather/temperature/c/0/0/0`)];
    expect(changed[0]!.headers.get('etag')).not.toBe(changed[1]!.headers.get('etag'));
    expect((await fetch(`${base}/${v1}/zarr.json`)).headers.get('cache-control')).toContain('immutable');
  });

  it('allows cross-origin reads (CORS headers and preflight)', async () => {
    const res = await fetch(`${base}/main/zarr.json`, { headers: { Origin: 'http://example.test' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('Content-Range');
    const preflight = await fetch(`${base}/main/zarr.json`, { method: 'OPTIONS', headers: { Origin: 'http://example.test', 'Access-Control-Request-Headers': 'range' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Range');
  });

  it('lists refs at / and answers queries on a version', async () => {
    const refs = (await (await fetch(`${base}/`)).json()) as { branches: Record<string, string>; tags: Record<string, string> };
    expect(refs.tags.v1).toBe(v1);
    const res = await fetch(`${base}/v1/query?format=json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: '/weather/temperature', ops: [{ whereIndex: ['time', 0, 1] }, { where: ['lat', '=', -45] }, { whereIndex: ['lon', 0, 3] }] }),
    });
    expect(res.status).toBe(200);
    const body = JSON.stringify(await res.json());
    expect(body).toContain(String(Math.fround(fieldValue(0, 0, 1))).slice(0, 6));
    const explain = await fetch(`${base}/v1/explain?q=${encodeURIComponent(JSON.stringify({ from: '/weather/temperature' }))}`);
    expect(explain.status).toBe(200);
    expect(((await explain.json()) as { text: string }).text).toContain('/weather/temperature');
  });
});

describe('floe serve protections', () => {
  it('answers 400 for a malformed URL and 413 for a key larger than the memory budget', async () => {
    expect((await fetch(`${base}/main/weather%ZZ/zarr.json`)).status).toBe(400);
    expect((await fetch(`${base}/%E0%A4%A/zarr.json`)).status).toBe(400);
    const small = createRepositoryServer((await sampleRepository(tempDir())).repo, { memoryBudgetBytes: 40 });
    const url = await small.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`${url}/main/weather/lat/c/0`);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/ask for a smaller Range/);
      expect((await fetch(`${url}/main/weather/lat/c/0`, { headers: { Range: 'bytes=0-15' } })).status).toBe(206);
    } finally {
      await small.close();
    }
  });

  it('with a token: 401 without it or with a wrong one, 200 with it; a CORS preflight needs none', async () => {
    const guarded = createRepositoryServer((await sampleRepository(tempDir())).repo, { token: 'tok-3141' });
    const url = await guarded.listen(0, '127.0.0.1');
    try {
      for (const path of ['/', '/main/zarr.json', '/main/weather/lat/c/0', `/main/explain?q=${encodeURIComponent('{"from": "/weather/lat"}')}`]) {
        const missing = await fetch(url + path);
        expect(missing.status).toBe(401);
        expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="floe"');
        expect(missing.headers.get('access-control-allow-origin')).toBe('*');
        const body = await missing.text();
        expect(body).not.toContain('weather');
        expect((await fetch(url + path, { headers: { Authorization: 'Bearer tok-3142' } })).status).toBe(401);
        expect((await fetch(url + path, { headers: { Authorization: 'Bearer tok-3141' } })).status).toBe(200);
      }
      const post = await fetch(`${url}/main/query`, { method: 'POST', body: '{"from": "/weather/lat"}' });
      expect(post.status).toBe(401);
      const preflight = await fetch(`${url}/main/zarr.json`, { method: 'OPTIONS', headers: { Origin: 'http://example.test', 'Access-Control-Request-Headers': 'authorization' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
      expect(await preflight.text()).toBe('');
    } finally {
      await guarded.close();
    }
  });

  it('serves HTTPS with --tls-cert/--tls-key material (a self-signed certificate made with openssl)', async () => {
    const dir = tempDir();
    const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
    const tls = { cert: readFileSync(cert), key: readFileSync(key) };
    const secure = createRepositoryServer((await sampleRepository(dir)).repo, { tls, token: 'tls-token', headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const url = await secure.listen(0, '127.0.0.1');
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const get = (authorization?: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpsRequest(`${url}/main/weather/temperature/zarr.json`, { ca: tls.cert, headers: authorization ? { authorization } : {} }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      expect((await get()).status).toBe(401);
      const ok = await get('Bearer tls-token');
      expect(ok.status).toBe(200);
      expect((JSON.parse(ok.body) as { shape: number[] }).shape).toEqual([6, NY, NX]);
      await expect(fetch(`${url}/main/zarr.json`)).rejects.toThrow(); // an untrusted certificate is refused by default
      // A client that never starts its TLS handshake is cut after the headers' time, not Node's 120 s.
      const started = performance.now();
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
        socket.setTimeout(5_000, () => socket.destroy()); // bounded: a server that never cuts it fails below
        socket.resume();
      });
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      await secure.close();
    }
  });

  it('warns loudly when bound beyond loopback without a token, and takes the token from FLOE_SERVE_TOKEN', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const stopped = AbortSignal.abort(); // listens, prints, closes at once
    const open = await floe(['serve', '--repo', repoPath, '--host', '0.0.0.0', '--port', '0'], { cwd: dir, signal: stopped });
    expect(open.code).toBe(0);
    expect(open.stderr).toMatch(/WARNING: listening on 0\.0\.0\.0 WITHOUT A TOKEN/);
    const tokened = await floe(['serve', '--repo', repoPath, '--host', '0.0.0.0', '--port', '0'], { cwd: dir, signal: stopped, env: { FLOE_SERVE_TOKEN: 'x-1' } });
    expect(tokened.stderr).not.toContain('WITHOUT A TOKEN');
    expect(tokened.stderr).toMatch(/without TLS/);
    expect(tokened.stdout).toMatch(/viewer: http:\/\/0\.0\.0\.0:\d+\/ui\/#token=x-1\n/); // the token in the fragment only
    const local = await floe(['serve', '--repo', repoPath, '--port', '0'], { cwd: dir, signal: stopped });
    expect(local.stderr).not.toContain('WARNING');
    expect(local.stdout).toMatch(/at http:\/\/127\.0\.0\.1:\d+/);
    expect(local.stdout).toMatch(/viewer: http:\/\/127\.0\.0\.1:\d+\/ui\/\n/);
    const bad = await floe(['serve', '--repo', repoPath, '--port', '0', '--max-chunks', '1.5'], { cwd: dir, signal: stopped });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-chunks takes a whole number/);
    const half = await floe(['serve', '--repo', repoPath, '--port', '0', '--tls-cert', 'c.pem'], { cwd: dir, signal: stopped });
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});

describe('floe serve as a process', () => {
  it('prints its URL, serves zarr.json, and stops on SIGTERM', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), 'serve', '--repo', repoPath, '--port', '0'], { cwd: dir });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`floe serve exited with ${code} before listening`)));
      });
      const res = await fetch(`${url}/main/weather/temperature/zarr.json`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { shape: number[] }).shape).toEqual([6, NY, NX]);
      // The viewer page's files, found beside the built CLI (dist/viewer/), as in the installed package.
      const page = await fetch(`${url}/ui/`);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect(await page.text()).toContain('<script type="module" src="viewer.js">');
      expect((await fetch(`${url}/ui/viewer.js`)).status).toBe(200);
      expect(await (await fetch(`${url}/`, { headers: { accept: 'application/json' } })).json()).toHaveProperty('branches');
      expect(await (await fetch(`${url}/`, { headers: { accept: 'text/html' } })).text()).toContain('<a href="/ui/">');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  }, 40_000);
});
