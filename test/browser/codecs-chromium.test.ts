// Issue 31 follow-up, in Chromium: the codecs whose packages are CommonJS under Node (bz2 by
// seek-bzip, Blosc's snappy streams by snappy-wasm) load in the browser build as chunks on first
// use. python3-zarr 2.13 / numcodecs write Zarr v2 arrays compressed with bz2, Blosc-snappy and
// LZMA (xz); a page reads them through dist/browser/floe.js over HTTP, Node reads them from disk
// through src/, and both are compared with the values Python wrote, value by value. LZMA (the
// native @napi-rs/lzma under Node) is still refused in the browser: UNSUPPORTED, reason
// 'browser-build'. No console error but the browser's own lines for metadata probes' 404s.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArray, openStore } from '../../src/engine/api.ts';
import { chromiumInstalled, closeBrowserTest, launchChromium, openPage, servePages, type PageHost } from '../support/chromium.ts';
import { PYTHON } from '../support/python-zarr.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const haveChromium = chromiumInstalled();

const WRITER = `
import sys, numpy as np, zarr, numcodecs
out = sys.argv[1]
a = (np.sin(np.arange(120 * 90, dtype='<f8') / 37.0) * 1000).astype('<f4').reshape(120, 90)
a[::7, ::5] = np.arange(a[::7, ::5].size, dtype='<f4').reshape(a[::7, ::5].shape)
for name, comp in [('bz2', numcodecs.BZ2(level=5)),
                   ('blosc-snappy', numcodecs.Blosc(cname='snappy', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
                   ('lzma', numcodecs.LZMA())]:
    z = zarr.open(f'{out}/{name}.zarr', mode='w', shape=a.shape, chunks=(50, 40), dtype='<f4', compressor=comp)
    z[:] = a
a.tofile(f'{out}/values.f4')
`;

/** The body of `async (floe, base)` the page runs: each array's values, or the typed error. */
const READ = `
  const out = {};
  for (const name of ['bz2', 'blosc-snappy', 'lzma']) {
    try {
      const array = await floe.openArray(floe.openStore(base + '/' + name + '.zarr'));
      const whole = await array.get();
      out[name] = { shape: whole.shape, data: Array.from(whole.data) };
    } catch (err) {
      out[name] = { code: err.code, reason: err.details && err.details.reason, message: String(err.message) };
    }
  }
  return out;
`;

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-browser-codecs-'));
const data = path.join(scratch, 'data');
let pages: PageHost | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(data);
  writeFileSync(path.join(scratch, 'writer.py'), WRITER);
  execFileSync(PYTHON, [path.join(scratch, 'writer.py'), data], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  symlinkSync(path.join(ROOT, 'dist/browser'), path.join(scratch, 'floe'));
  pages = await servePages(scratch);
  browser = await launchChromium();
}, 90_000);

afterAll(() => closeBrowserTest(browser, pages, scratch));

describe.skipIf(!haveChromium)('codecs loaded on first use in the browser build (Chromium)', () => {
  it('reads bz2 and Blosc-snappy arrays Python wrote as Node does, and refuses LZMA with UNSUPPORTED browser-build', async () => {
    const expected = Array.from(new Float32Array(readFileSync(path.join(data, 'values.f4')).buffer.slice(0)));
    const { page, problems } = await openPage(browser!, `${pages!.origin}/`);
    const result = (await page.evaluate(
      ({ body, base }) => new Function('base', `return import('/floe/floe.js').then((floe) => (async () => {${body}})());`)(base) as Promise<Record<string, unknown>>,
      { body: READ, base: `${pages!.origin}/data` },
    ));
    for (const name of ['bz2', 'blosc-snappy']) {
      const node = await (await openArray(openStore(path.join(data, `${name}.zarr`)))).get();
      expect(Array.from(node.data as Float32Array), `${name} in Node`).toEqual(expected);
      expect(result[name], `${name} in Chromium`).toEqual({ shape: [120, 90], data: expected });
    }
    expect(result.lzma).toMatchObject({ code: 'UNSUPPORTED', reason: 'browser-build' });
    // Opening a Zarr v2 array probes for metadata it does not have (.zattrs, zarr.json): the
    // browser logs its own line for each 404; nothing else may reach the console.
    expect(problems.filter((line) => !line.startsWith('Failed to load resource: the server responded with a status of 404'))).toEqual([]);
    await page.close();
  }, 60_000);
});
