// Issue 31, stage 2, in Chromium: a page on one loopback origin reads, through the browser build
// (dist/browser/floe.js), the demo repository (`floe demo --small`) served from another origin by
// nginx (configured as docs/web.md says) and by `floe serve`'s raw route: log, tree, a slice and a
// query by labels. The same code runs in Node over the repository on disk (src/browser.ts, the
// filesystem backend), and every value is compared. A server that ignores Range (with
// `rangeIgnored: 'refuse'`) and a missing repository give the page the typed errors Node gets. No
// console error, but the browser's own "Failed to load resource" line for the 404 it was sent.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositoryServer, type RepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { startNginx, type StaticHost } from '../support/loopback-static-hosts.ts';
import { CROSS_ORIGIN_ISOLATION, chromiumInstalled, launchChromium, openPage, servePages, type PageHost } from '../support/chromium.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const haveChromium = chromiumInstalled();

/**
 * What is read, as the body of `async (floe, location, options)`: run by the page (floe: the
 * bundle, location: a URL) and by Node (floe: src/browser.ts, location: the directory).
 */
const READ = `
  const repo = await floe.Repository.open(location);
  const log = [];
  for await (const s of repo.ancestry({ branch: 'main' })) log.push([s.id, s.message]);
  const session = await repo.readonlySession({ tag: 'v1.0' });
  const tree = [];
  const walk = async (p) => {
    for (const n of await session.children(p)) {
      tree.push(n.path + ' ' + n.kind);
      if (n.kind === 'group') await walk(n.path);
    }
  };
  await walk('/');
  const temperature = await floe.ZarrArray.open(session.store, '/climate/temperature');
  const box = await temperature.get([200, floe.slice(8, 11), floe.slice(36, 40)]);
  const q = await floe.query(session).from('/climate/temperature', 'float32')
    .where('lat', 'between', [32.5, 47.5]).where('lon', 'between', [2.5, 17.5]).whereIndex('time', 100, 110).execute();
  return {
    branches: (await repo.listBranches()).sort(), tags: (await repo.listTags()).sort(), log, tree,
    box: { shape: box.shape, data: Array.from(box.data) },
    query: { shape: q.shape, dims: q.dims, data: Array.from(q.data), lat: Array.from(q.arrays['/climate/lat'] ?? []) },
  };
`;

/** The typed error (code, details' reason) of reading a slice through HttpStorage with `options`. */
const FAIL = `
  try {
    const repo = await floe.Repository.open(floe.Storage.newHttp(location, options));
    const session = await repo.readonlySession({ tag: 'v1.0' });
    await (await floe.ZarrArray.open(session.store, '/climate/temperature')).get([200, floe.slice(8, 11), floe.slice(36, 40)]);
    return 'no error';
  } catch (err) {
    return [floe.isFloeError(err), err.code, err.details?.reason ?? null];
  }
`;

/**
 * A 64 MiB read (16 chunks of 4 MiB, zstd) read whole until chunks go to decode workers (the first
 * read is big enough to start them; a later one uses them once one is ready): counts the requests
 * posted to Web Workers with bytes and the buffers transferred, and hashes the result.
 */
const BIG_READ = `
  const counts = { requests: 0, transferred: 0, into: 0, shared: typeof SharedArrayBuffer, isolated: self.crossOriginIsolated, results: [] };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, transfer) {
    if (message && message.bytes) { counts.requests++; counts.transferred += transfer ? transfer.length : 0; if (message.target) counts.into++; }
    return post.call(this, message, transfer);
  };
  const repo = await floe.Repository.open(location);
  const big = await floe.ZarrArray.open((await repo.readonlySession({ branch: 'main' })).store, '/big');
  const digests = [];
  for (let attempt = 0; attempt < 8 && counts.requests === 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 300));
    const whole = await big.get();
    counts.results.push(whole.data.buffer.constructor.name);
    // A copy: Web Crypto takes no shared memory (a cross-origin isolated page's pooled results are).
    digests.push(Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength).slice()))));
  }
  return { counts, digests: [...new Set(digests.map((d) => d.join()))], reads: digests.length };
`;
const BIG_SHAPE = [16, 1024, 1024];
/** JS files (floe.js and chunks/) a page may fetch to open a repository over HTTP, read a slice and run a query by labels. */
const MODULE_BUDGET = 10;

/** Float32 bytes with about a byte of entropy each (so 4 MiB chunks stay over 128 KiB encoded). */
function bigValues(): Float32Array {
  let x = 12345;
  return Float32Array.from({ length: BIG_SHAPE.reduce((a, b) => a * b, 1) }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 24) / 4;
  });
}

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-browser-repo-'));
const dir = path.join(scratch, 'demo.icechunk');
let nginx: StaticHost | undefined;
let served: RepositoryServer | undefined;
let servedUrl = '';
let ignoring: Server | undefined;
let ignoringUrl = '';
let pages: PageHost | undefined;
let browser: Browser | undefined;
let bigDigest = '';
let docPages: PageHost | undefined;
let cdn: PageHost | undefined;
let isolated: PageHost | undefined;

/** docs/web.md's ten-line page, as written (its block marked `<!-- run in Chromium: page -->`). */
function docPage(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/web.md'), 'utf8');
  const found = /<!-- run in Chromium: page -->\n```html\n([\s\S]*?)```/.exec(doc)?.[1];
  if (found === undefined) throw new Error('docs/web.md has no block marked <!-- run in Chromium: page -->');
  return found;
}

/** A static server that answers every GET 200 with the whole file, ignoring Range, with CORS. */
function rangeIgnoringServer(root: string): Server {
  return createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'Range, If-None-Match', 'access-control-expose-headers': 'ETag, Content-Length' };
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    const file = path.join(root, ...new URL(req.url ?? '/', 'http://x').pathname.split('/').filter((p) => p !== '' && p !== '..'));
    if (!existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404, cors).end();
    res.writeHead(200, { ...cors, 'content-length': statSync(file).size, 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function inNode(body: string, location: string, options?: unknown): Promise<unknown> {
  const floe = await import('../../src/browser.ts');
  const run = new Function('floe', 'location', 'options', `return (async () => {${body}})();`) as (f: unknown, l: string, o: unknown) => Promise<unknown>;
  return run(floe, location, options);
}

async function inPage(body: string, location: string, options?: unknown, host = pages!): Promise<{ result: unknown; problems: string[]; workers: string[] }> {
  const { page, problems } = await openPage(browser!, `${host.origin}/`);
  try {
    const result = await page.evaluate(
      ([text, where, opts]) => new Function('floe', 'location', 'options', `return import('/floe.js').then((floe) => (async () => {${text}})());`)(null, where, opts),
      [body, location, options ?? {}] as const,
    );
    return { result, problems, workers: page.workers().map((w) => new URL(w.url()).pathname) };
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  if (!haveChromium) return;
  execFileSync(process.execPath, [path.join(ROOT, 'bin/floe.mjs'), 'demo', '--small', '--repo', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const bigRepo = await Repository.create(Storage.newLocalFilesystem(path.join(scratch, 'big.icechunk')));
  const writing = await bigRepo.writableSession('main');
  const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 1, checksum: false } }];
  const big = await ZarrArray.create(writing.store, '/big', { shape: BIG_SHAPE, chunkShape: [1, 1024, 1024], dataType: 'float32', fillValue: 0, codecs });
  const values = bigValues();
  await big.set(undefined, values);
  await writing.commit('64 MiB');
  bigDigest = [...createHash('sha256').update(new Uint8Array(values.buffer)).digest()].join();
  nginx = await startNginx(scratch);
  served = createRepositoryServer(await Repository.open(Storage.newLocalFilesystem(dir)));
  servedUrl = `${await served.listen(0, '127.0.0.1')}/.icechunk`;
  ignoring = rangeIgnoringServer(dir);
  ignoringUrl = await listen(ignoring);
  pages = await servePages(path.join(ROOT, 'dist/browser'));
  // The doc's page at / with the browser build copied (here linked) beside it as ./floe/.
  const site = path.join(scratch, 'site');
  mkdirSync(site);
  symlinkSync(path.join(ROOT, 'dist/browser'), path.join(site, 'floe'));
  docPages = await servePages(site, { '/': docPage().replaceAll('http://localhost:8080', nginx.url) });
  // The browser build on a third origin, as a CDN serves it (with CORS), for a page elsewhere.
  cdn = await servePages(path.join(ROOT, 'dist/browser'), {}, { 'access-control-allow-origin': '*' });
  // The page, its scripts and the decode worker with COOP + COEP: a cross-origin isolated page.
  isolated = await servePages(path.join(ROOT, 'dist/browser'), {}, CROSS_ORIGIN_ISOLATION);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await docPages?.close();
  await cdn?.close();
  await isolated?.close();
  await served?.close();
  await nginx?.close();
  if (ignoring) {
    ignoring.closeAllConnections();
    await new Promise<void>((resolve) => ignoring!.close(() => resolve()));
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('a repository read in Chromium through the browser build', () => {
  let expected: unknown;

  it('from nginx on another origin: log, tree, a slice and a query by labels, equal to Node\'s reading of the directory; the page fetches at most 10 JS files', async () => {
    expected = await inNode(READ, dir);
    const before = pages!.requested.length;
    const { result, problems } = await inPage(READ, `${nginx!.url}/demo.icechunk`);
    expect(result).toEqual(expected);
    // The module budget of a cold read + query (scripts/build-browser.mjs, coreChunks and
    // EAGER_IN_BROWSER): 9 files, all requested as floe.js loads (it was 59, some 7 round trips deep).
    const scripts = pages!.requested.slice(before).filter((p) => p.endsWith('.js'));
    console.log(`[modules] a cold read + query fetched ${scripts.length} JS files: ${scripts.join(' ')}`);
    expect(scripts.length).toBeLessThanOrEqual(MODULE_BUDGET);
    expect((expected as { box: { data: number[] } }).box.data).toHaveLength(12);
    expect(problems).toEqual([]);
  });

  it('from `floe serve`\'s raw route on another origin: the same values', async () => {
    expected ??= await inNode(READ, dir);
    const { result, problems } = await inPage(READ, servedUrl);
    expect(result).toEqual(expected);
    expect(problems).toEqual([]);
  });

  it('a Range-ignoring server (rangeIgnored: refuse) and a missing repository: the typed errors Node gets', async () => {
    const refuse = { rangeIgnored: 'refuse' };
    const ignored = await inPage(FAIL, ignoringUrl, refuse);
    expect(ignored.result).toEqual(await inNode(FAIL, ignoringUrl, refuse));
    expect(ignored.result).toEqual([true, 'STORAGE_ERROR', 'http-range-ignored']);
    expect(ignored.problems).toEqual([]);
    const missing = await inPage(FAIL, `${nginx!.url}/no-such.icechunk`, {});
    expect(missing.result).toEqual(await inNode(FAIL, `${nginx!.url}/no-such.icechunk`, {}));
    expect((missing.result as unknown[])[0]).toBe(true);
    expect(missing.problems.every((p) => /Failed to load resource: the server responded with a status of 404/.test(p))).toBe(true);
  });

  it('a 64 MiB read decodes in Web Workers, chunks sent by transfer, without SharedArrayBuffer: the bytes Node wrote', async () => {
    const { result, problems, workers } = await inPage(BIG_READ, `${nginx!.url}/big.icechunk`);
    const { counts, digests } = result as { counts: { requests: number; transferred: number; shared: string }; digests: string[] };
    expect(digests).toEqual([bigDigest]);
    expect(counts.shared).toBe('undefined');
    expect(counts.requests).toBeGreaterThan(0);
    expect(counts.transferred).toBe(counts.requests);
    expect(workers.length).toBeGreaterThan(0);
    expect(new Set(workers)).toEqual(new Set(['/decode-worker.js']));
    expect(problems).toEqual([]);
  }, 60_000);

  it('a cross-origin isolated page: the same values, and the 64 MiB read decodes into shared memory on the Web Workers', async () => {
    expected ??= await inNode(READ, dir);
    const read = await inPage(READ, `${nginx!.url}/demo.icechunk`, undefined, isolated);
    expect(read.result).toEqual(expected);
    const { result, problems, workers } = await inPage(BIG_READ, `${nginx!.url}/big.icechunk`, undefined, isolated);
    const { counts, digests } = result as { counts: { requests: number; into: number; shared: string; isolated: boolean; results: string[] }; digests: string[] };
    expect(digests).toEqual([bigDigest]);
    expect(counts).toMatchObject({ isolated: true, shared: 'function' });
    expect(counts.requests).toBeGreaterThan(0);
    // Every chunk sent to a worker names its place in the result, which is shared memory.
    expect(counts.into).toBe(counts.requests);
    expect(counts.results.at(-1)).toBe('SharedArrayBuffer');
    expect(workers.length).toBeGreaterThan(0);
    expect([...read.problems, ...problems]).toEqual([]);
  }, 60_000);

  it('floe.js loaded from another origin (a CDN): the 64 MiB read still decodes in Web Workers (blob: URL wrappers)', async () => {
    const { page, problems } = await openPage(browser!, `${pages!.origin}/`);
    try {
      const result = await page.evaluate(
        ([text, where, script]) => new Function('location', `return import(${JSON.stringify(script)}).then((floe) => (async () => {${text}})());`)(where),
        [BIG_READ, `${nginx!.url}/big.icechunk`, `${cdn!.origin}/floe.js`] as const,
      );
      const { counts, digests } = result as { counts: { requests: number; transferred: number }; digests: string[] };
      expect(digests).toEqual([bigDigest]);
      expect(counts.requests).toBeGreaterThan(0);
      const workers = page.workers().map((w) => w.url());
      expect(workers.length).toBeGreaterThan(0);
      expect(workers.every((url) => url.startsWith(`blob:${pages!.origin}/`))).toBe(true);
      expect(cdn!.requested).toContain('/decode-worker.js');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('runs docs/web.md\'s ten-line page as written: the box Node reads', async () => {
    const lines = docPage().trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    const read = (await inNode(READ, dir)) as { box: { shape: number[]; data: number[] } };
    const { page, problems } = await openPage(browser!, `${docPages!.origin}/`);
    await page.waitForFunction(`document.getElementById('out')?.textContent !== 'reading…'`, undefined, { timeout: 30_000 });
    expect(await page.textContent('#out')).toBe(`${read.box.shape.join(' x ')}: ${read.box.data.map((v) => v.toFixed(2)).join(' ')}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
