// Issue 31, stage 1, in a real browser: the platform seam (src/platform/host.ts) and the zstd
// decoder the browser build will use (@bokuweb/zstd-wasm's web glue driven by
// src/format/codecs/zstd-wasm-driver.ts, .wasm fetched from the page's origin), bundled by esbuild
// for the browser platform (which refuses Node builtins) and run in Debian's Chromium through
// playwright-core. The page's answers are compared with Node's, value by value: frames Node's
// native zstd wrote (plain and with a dictionary, as Icechunk's virtual chunk locations are), and
// the byte helpers on the same inputs. Everything runs on loopback and is stopped by the test.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadZstdBackend } from '../../src/format/codecs/zstd-backend.ts';
import * as host from '../../src/platform/host.ts';
import { chromiumInstalled, launchChromium } from '../support/chromium.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB_DIST = path.join(ROOT, 'node_modules/@bokuweb/zstd-wasm/dist/web');
const WASM = path.join(WEB_DIST, 'zstd.wasm');

// The package's exports name only its async entry points; its web glue is taken by path here.
const ENTRY = `
  import { Module } from ${JSON.stringify(path.join(WEB_DIST, 'zstd.js'))};
  import { wasmBackendOver } from './src/format/codecs/zstd-wasm-driver.ts';
  import * as host from './src/platform/host.ts';
  globalThis.floeCheck = async (input) => {
    const wasm = new Uint8Array(await (await fetch('/zstd.wasm')).arrayBuffer());
    const zstd = wasmBackendOver(Module, () => wasm, 'web');
    const unb64 = host.fromBase64;
    const plain = zstd.decompressUnsized(unb64(input.plain), 1 << 24);
    const dictionary = unb64(input.dictionary);
    const withDict = new Uint8Array(input.withDictLength);
    const n = zstd.decompressInto(unb64(input.withDict), withDict, dictionary);
    return {
      globals: [typeof globalThis.Buffer, typeof globalThis.process, typeof globalThis.require, typeof globalThis.SharedArrayBuffer, self.crossOriginIsolated].join(),
      plain: host.toBase64(plain),
      withDict: host.toBase64(withDict.subarray(0, n)),
      utf8: input.texts.map((t) => host.utf8Length(t)),
      wellFormed: input.texts.map((t) => host.isWellFormedText(t)),
      swapped: host.toBase64((() => { const e = new Uint8Array(plain.subarray(0, plain.length & ~7)); host.swapBytesInPlace(e, 8); return e; })()),
      random: host.randomBytes(12).length,
      yielded: await host.yieldToHost().then(() => true),
      runtime: host.runtimeName(),
    };
  };
`;

// In CI the browser tests are mandatory (.ci/run installs chromium): a missing one fails, never skips.
const haveChromium = chromiumInstalled();
let browser: Browser | undefined;
let server: Server | undefined;
let origin = '';

beforeAll(async () => {
  if (!haveChromium) return;
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent',
  });
  const script = out.outputFiles[0]?.text ?? '';
  const wasm = readFileSync(WASM);
  server = createServer((req, res) => {
    const [type, body] = req.url === '/zstd.wasm' ? ['application/wasm', wasm]
      : req.url === '/floe.js' ? ['text/javascript', script]
      : req.url === '/' ? ['text/html', '<!doctype html><link rel="icon" href="data:,"><script src="/floe.js"></script>'] : ['text/plain', ''];
    res.writeHead(body === '' ? 404 : 200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe.skipIf(!haveChromium)('the platform seam and the zstd driver in Chromium', () => {
  it('decode what Node wrote (plain and with a dictionary) and give the byte helpers\' answers, with no Node global and no console error', async () => {
    const native = loadZstdBackend('napi');
    const data = new Uint8Array(new Float32Array(Array.from({ length: 50_000 }, (_, i) => Math.sin(i / 300) * 100)).buffer);
    const dictionary = new TextEncoder().encode('s3://bucket/prefix/data/file_0000.nc'.repeat(8));
    const location = new TextEncoder().encode('s3://bucket/prefix/data/file_0042.nc');
    const texts = ['abc', 'é€😀', 'lone \ud800 surrogate', '\udc00'];
    const input = {
      plain: host.toBase64(native.compress(data, 3, true)),
      withDict: host.toBase64(native.compress(location, 3, false, dictionary)),
      withDictLength: location.length,
      dictionary: host.toBase64(dictionary),
      texts,
    };
    const page = await browser!.newPage();
    const problems: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(origin + '/', { timeout: 30_000 });
    const result = await page.evaluate((arg) => (globalThis as unknown as { floeCheck: (a: unknown) => Promise<Record<string, unknown>> }).floeCheck(arg), input);
    const swapped = new Uint8Array(data.subarray(0, data.length & ~7));
    host.swapBytesInPlace(swapped, 8);
    expect(result).toEqual({
      // No COOP/COEP headers here, as on most static hosts: no SharedArrayBuffer (stage 2's decode pool must do without).
      globals: 'undefined,undefined,undefined,undefined,false',
      plain: host.toBase64(data),
      withDict: host.toBase64(location),
      utf8: texts.map((t) => host.utf8Length(t)),
      wellFormed: [true, true, false, false],
      swapped: host.toBase64(swapped),
      random: 12,
      yielded: true,
      runtime: 'this runtime',
    });
    expect(problems).toEqual([]);
    expect(browser!.version()).toMatch(/^\d+\./);
    await page.close();
  });
});
