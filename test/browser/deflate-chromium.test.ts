// Issue 31 stage 3a, in Chromium: gzip and zlib decode through the browser's DecompressionStream
// (the async decode step), on the page and in the decode worker; bz2 and Blosc-snappy decode in
// the decode worker. python3-zarr 2.13 / numcodecs write the arrays at test time; the page reads
// them through dist/browser/floe.js over HTTP and must get Python's values. DecompressionStream is
// wrapped before Floe loads (on the page, and in decode-worker.js as served) so the test knows it
// was used. Damaged chunks (a gzip bomb past the chunk's size, a truncated stream, junk after a
// zlib stream, and gzip members one after another, which Chromium's stream refuses and the fflate
// fallback reads) give what Node's read gives, or the typed error, and the bomb is refused fast.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { isFloeError } from '../../src/errors.ts';
import { chromiumInstalled, closeBrowserTest, launchChromium, openPage, servePages, type PageHost } from '../support/chromium.ts';
import { PYTHON } from '../support/python-zarr.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const haveChromium = chromiumInstalled();

const WRITER = `
import sys, numpy as np, zarr, numcodecs
out = sys.argv[1]
a = (np.sin(np.arange(120 * 90, dtype='<f8') / 37.0) * 1000).astype('<f4').reshape(120, 90)
for name, comp in [('gzip', numcodecs.GZip(level=5)), ('zlib', numcodecs.Zlib(level=5))]:
    z = zarr.open(f'{out}/{name}.zarr', mode='w', shape=a.shape, chunks=(50, 40), dtype='<f4', compressor=comp)
    z[:] = a
a.tofile(f'{out}/values.f4')
# 8 MiB (the pool's threshold), 2 MiB chunks of about a byte of entropy per value: over 128 KiB encoded.
big = (np.random.default_rng(7).integers(0, 256, 2048 * 1024).astype('<f4') / 4).reshape(2048, 1024)
for name, comp in [('big-gzip', numcodecs.GZip(level=1)), ('big-bz2', numcodecs.BZ2(level=1)),
                   ('big-blosc-snappy', numcodecs.Blosc(cname='snappy', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))]:
    z = zarr.open(f'{out}/{name}.zarr', mode='w', shape=big.shape, chunks=(512, 1024), dtype='<f4', compressor=comp)
    z[:] = big
big.tofile(f'{out}/big.f4')
# 64 MiB of fill value (no chunk stored): a read this big starts the decode pool (startBytes).
zarr.open(f'{out}/starter.zarr', mode='w', shape=(4096, 4096), chunks=(1024, 4096), dtype='<f4', fill_value=0)
`;

/** Run before Floe loads: counts the DecompressionStreams made, by format, in globalThis.__ds. */
const COUNT_STREAMS = `{
  const Native = globalThis.DecompressionStream;
  globalThis.__ds = { gzip: 0, deflate: 0 };
  globalThis.DecompressionStream = class extends Native { constructor(format) { super(format); globalThis.__ds[format]++; } };
}
`;

const SMALL = ['gzip', 'zlib', 'gzip-members', 'gzip-bomb', 'gzip-truncated', 'zlib-junk'];

/** The body of `async (floe, base)`: each small array's values or typed error, and the time taken. */
const READ_SMALL = `
  const out = {};
  for (const name of ${JSON.stringify(SMALL)}) {
    const started = performance.now();
    try {
      const whole = await (await floe.openArray(floe.openStore(base + '/' + name + '.zarr'))).get();
      out[name] = { shape: whole.shape, data: Array.from(whole.data) };
    } catch (err) {
      out[name] = { code: err.code, kind: err.details && err.details.kind, raw: !floe.isFloeError(err) };
    }
    out[name].ms = performance.now() - started;
  }
  return { out, ds: globalThis.__ds };
`;

/**
 * The body of `async (floe, base)`: a 64 MiB read of fill values starts the decode pool, then each
 * 8 MiB array is read whole until its chunks went to a decode worker (once one is ready), with the SHA-256 of
 * the values and the number of requests posted with bytes.
 */
const READ_BIG = `
  let requests = 0;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, transfer) {
    if (message && message.bytes) requests++;
    return post.call(this, message, transfer);
  };
  await (await floe.openArray(floe.openStore(base + '/starter.zarr'))).get();
  const out = {};
  for (const name of ['big-gzip', 'big-bz2', 'big-blosc-snappy']) {
    const array = await floe.openArray(floe.openStore(base + '/' + name + '.zarr'));
    const before = requests;
    const digests = new Set();
    for (let attempt = 0; attempt < 8 && requests === before; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 300));
      const whole = await array.get();
      const bytes = new Uint8Array(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength);
      digests.add(Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join(''));
    }
    out[name] = { requests: requests - before, digests: [...digests] };
  }
  return out;
`;

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-browser-deflate-'));
const data = path.join(scratch, 'data');
let pages: PageHost | undefined;
let browser: Browser | undefined;

/** A copy of the small array `from` whose chunk 0.0 is `chunk(original chunk 0.0)`. */
function damaged(from: string, to: string, chunk: (stored: Buffer) => Uint8Array): void {
  cpSync(path.join(data, `${from}.zarr`), path.join(data, `${to}.zarr`), { recursive: true });
  const file = path.join(data, `${to}.zarr`, '0.0');
  writeFileSync(file, chunk(readFileSync(file)));
}

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(data);
  writeFileSync(path.join(scratch, 'writer.py'), WRITER);
  execFileSync(PYTHON, [path.join(scratch, 'writer.py'), data], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  damaged('gzip', 'gzip-members', (stored) => {
    const plain = zlib.gunzipSync(stored);
    return Buffer.concat([zlib.gzipSync(plain.subarray(0, 3000)), zlib.gzipSync(plain.subarray(3000))]);
  });
  // ~48 KB -> 48 MiB: under the chunk's encoded-size bound (8000 bytes + 1/8 + 64 KiB), so it is the
  // decoded-size bound (8000 bytes) that refuses it.
  damaged('gzip', 'gzip-bomb', () => zlib.gzipSync(Buffer.alloc(48 << 20), { level: 9 }));
  damaged('gzip', 'gzip-truncated', (stored) => stored.subarray(0, stored.length - 10));
  damaged('zlib', 'zlib-junk', (stored) => Buffer.concat([stored, Buffer.from([1, 2, 3, 4])]));
  symlinkSync(path.join(ROOT, 'dist/browser'), path.join(scratch, 'floe'));
  // Imported first, so it runs before the worker's modules (which pick their stream as they load).
  const worker = `import './count-streams.js';\n${readFileSync(path.join(ROOT, 'dist/browser/decode-worker.js'), 'utf8')}`;
  pages = await servePages(scratch, { '/floe/decode-worker.js': worker, '/floe/count-streams.js': COUNT_STREAMS });
  browser = await launchChromium();
}, 90_000);

afterAll(() => closeBrowserTest(browser, pages, scratch));

/** Runs `body` as `async (floe, base)` on a new page whose DecompressionStream is counted. */
async function inPage(body: string) {
  const { page, problems } = await openPage(browser!, `${pages!.origin}/`);
  await page.evaluate(COUNT_STREAMS);
  const result = await page.evaluate(
    ({ body, base }) => new Function('base', `return import('/floe/floe.js').then((floe) => (async () => {${body}})());`)(base) as Promise<unknown>,
    { body, base: `${pages!.origin}/data` },
  );
  return { page, problems, result };
}

/** What Node's read of a small array gives, in the page's shape. */
async function inNode(name: string): Promise<unknown> {
  try {
    const whole = await (await openArray(openStore(path.join(data, `${name}.zarr`)))).get();
    return { shape: whole.shape, data: Array.from(whole.data as Float32Array) };
  } catch (err) {
    return isFloeError(err) ? { code: err.code, kind: (err.details as { kind?: string }).kind, raw: false } : { raw: true };
  }
}

describe.skipIf(!haveChromium)('gzip and zlib through DecompressionStream, codecs in the decode worker (Chromium)', () => {
  it('reads numcodecs GZip and Zlib arrays on the page through DecompressionStream; damaged chunks give the typed errors', async () => {
    const expected = Array.from(new Float32Array(readFileSync(path.join(data, 'values.f4')).buffer.slice(0)));
    const { page, problems, result } = await inPage(READ_SMALL);
    const { out, ds } = result as { out: Record<string, Record<string, unknown>>; ds: { gzip: number; deflate: number } };
    const strip = (r: Record<string, unknown> | undefined) => (r ? Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'ms')) : r);
    for (const name of ['gzip', 'zlib', 'gzip-members']) expect(strip(out[name]), name).toEqual({ shape: [120, 90], data: expected });
    // 9 chunks each for gzip and zlib, 9 for the members' array (one falls back to fflate).
    expect(ds.gzip).toBeGreaterThanOrEqual(18);
    expect(ds.deflate).toBeGreaterThanOrEqual(9);
    expect(strip(out['gzip-bomb'])).toEqual({ code: 'LIMIT_EXCEEDED', kind: 'decoded-bytes', raw: false });
    expect(out['gzip-bomb']!.ms as number).toBeLessThan(3000); // 48 MiB never inflated
    expect(strip(out['gzip-truncated'])).toEqual({ code: 'CORRUPT_OBJECT', raw: false });
    expect(strip(out['zlib-junk'])).toEqual({ code: 'CORRUPT_OBJECT', raw: false });
    for (const name of ['gzip', 'zlib', 'gzip-members', 'gzip-bomb', 'gzip-truncated']) expect(strip(out[name]), `${name} as in Node`).toEqual(await inNode(name));
    expect(problems.filter((line) => !line.startsWith('Failed to load resource: the server responded with a status of 404'))).toEqual([]);
    await page.close();
  }, 60_000);

  it('8 MiB gzip, bz2 and Blosc-snappy reads decode in decode-worker.js (gzip through its DecompressionStream): Python\'s values', async () => {
    const digest = createHash('sha256').update(readFileSync(path.join(data, 'big.f4'))).digest('hex');
    const { page, problems, result } = await inPage(READ_BIG);
    const out = result as Record<string, { requests: number; digests: string[] }>;
    for (const name of ['big-gzip', 'big-bz2', 'big-blosc-snappy']) {
      expect(out[name]!.digests, name).toEqual([digest]);
      expect(out[name]!.requests, `${name} chunks sent to a worker`).toBeGreaterThan(0);
    }
    const workers = page.workers();
    expect(new Set(workers.map((w) => new URL(w.url()).pathname))).toEqual(new Set(['/floe/decode-worker.js']));
    const inWorkers = await Promise.all(workers.map((w) => w.evaluate(() => (globalThis as unknown as { __ds: { gzip: number } }).__ds.gzip)));
    expect(inWorkers.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(problems.filter((line) => !line.startsWith('Failed to load resource: the server responded with a status of 404'))).toEqual([]);
    await page.close();
  }, 90_000);
});
