// Issue 31, stage 2: the browser build (scripts/build-browser.mjs) of src/browser.ts. esbuild
// bundles it for the browser platform (which refuses Node builtins); here the bundle's files are
// checked to import nothing from outside it and nothing named `node:`, and the bundle is loaded
// in Debian's Chromium from a loopback origin: it exports what src/browser.ts exports, writes and
// reads a repository in memory storage (zstd through the inlined WASM build), and refuses a local
// directory with the typed error, with no console error.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBrowser } from '../../scripts/build-browser.mjs';
import * as browserEntry from '../../src/browser.ts';
import { chromiumInstalled, closeBrowserTest, launchChromium, openPage, servePages, type PageHost } from '../support/chromium.ts';

const haveChromium = chromiumInstalled();

// Run in the page as written (a string: the test runner would rewrite a function's import()).
const MEMORY_ROUND_TRIP = `(async () => {
  const floe = await import('/floe.js');
  const repo = await floe.Repository.create(floe.Storage.newInMemory());
  const session = await repo.writableSession('main');
  const codecs = [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: true } }];
  const array = await floe.ZarrArray.create(session.store, '/a', { shape: [100], chunkShape: [30], dataType: 'float32', fillValue: 0, codecs });
  await array.set(undefined, Float32Array.from({ length: 100 }, (_, i) => i * 0.5));
  await session.commit('first');
  const read = await repo.readonlySession({ branch: 'main' });
  const back = await (await floe.ZarrArray.open(read.store, '/a')).get([floe.slice(10, 14)]);
  let refused;
  try {
    floe.Storage.newLocalFilesystem('/tmp/repo');
  } catch (err) {
    refused = [floe.isFloeError(err), err.code, err.details?.reason];
  }
  return { exports: Object.keys(floe).sort(), data: Array.from(back.data), refused };
})()`;
const out = mkdtempSync(path.join(tmpdir(), 'floe-browser-build-'));
let browser: Browser | undefined;
let host: PageHost | undefined;
let metafile: Metafile | undefined;

beforeAll(async () => {
  metafile = (await buildBrowser(out)).metafile;
  if (!haveChromium) return;
  host = await servePages(out);
  browser = await launchChromium();
}, 120_000);

afterAll(() => closeBrowserTest(browser, host, out));

describe('the browser build', () => {
  it('is ES modules under dist/browser that import only each other: no `node:` module, no package left outside', () => {
    const outputs = Object.entries(metafile!.outputs);
    expect(outputs.map(([file]) => path.basename(file))).toContain('floe.js');
    const outside = outputs.flatMap(([file, output]) => output.imports.filter((i) => i.external || i.path.startsWith('node:')).map((i) => `${file}: ${i.path}`));
    expect(outside).toEqual([]);
    // The entry's static imports are chunks it loads with it; everything else loads on first use.
    expect(outputs.every(([, output]) => output.imports.every((i) => /(^|\/)chunks\/[\w.-]+\.js$/.test(i.path)))).toBe(true);
    expect(readFileSync(path.join(out, 'floe.js'), 'utf8')).not.toMatch(/\bimport\s*\(?\s*["']node:|\bfrom\s*["']node:/);
  });

  it.skipIf(!haveChromium)('loads in Chromium: the entry\'s exports, a repository written and read in memory, UNSUPPORTED for a local directory', async () => {
    const { page, problems } = await openPage(browser!, `${host!.origin}/`);
    const result = await page.evaluate(MEMORY_ROUND_TRIP) as unknown;
    expect(result).toEqual({
      exports: Object.keys(browserEntry).sort(),
      data: [5, 5.5, 6, 6.5],
      refused: [true, 'UNSUPPORTED', 'browser-build'],
    });
    expect(problems).toEqual([]);
    await page.close();
  });
});
