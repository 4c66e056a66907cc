// Debian's Chromium driven by playwright-core for the browser tests (issue 31): the executable and
// the flags a root CI user needs, a loopback server for a page and the browser build's files, and a
// page that records console errors and uncaught exceptions. In CI (or with FLOE_REQUIRE_BROWSER=1)
// a missing chromium fails the run, never skips it.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is installed; throws in CI when it is not (the browser tests are mandatory there). */
export function chromiumInstalled(): boolean {
  const present = existsSync(CHROMIUM);
  if (!present && (process.env.CI === 'true' || process.env.FLOE_REQUIRE_BROWSER === '1')) {
    throw new Error(`${CHROMIUM} is missing: install it with \`bash scripts/install-services.sh\` (Debian's chromium)`);
  }
  return present;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'], timeout: 60_000 });
}

/** The headers that make a page cross-origin isolated (SharedArrayBuffer): servePages(dir, {}, CROSS_ORIGIN_ISOLATION). */
export const CROSS_ORIGIN_ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } as const;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };

export interface PageHost {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Paths requested so far, in order (e.g. `/floe.js`). */
  readonly requested: string[];
  close(): Promise<void>;
}

/**
 * Serves `pages` (path -> HTML or JS text) and the files under `dir` (GET only) on loopback; `/` is
 * an empty page unless `pages` has one; `headers` go on every answer (CORS, for a CDN's part).
 */
export async function servePages(dir: string, pages: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<PageHost> {
  const requested: string[] = [];
  const all: Record<string, string> = { '/': '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>floe</title>', ...pages };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requested.push(url.pathname);
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end(); // what a browser asks every site for
    const page = all[url.pathname];
    if (page !== undefined) {
      res.writeHead(200, { ...headers, 'content-type': TYPES[path.extname(url.pathname)] ?? 'text/html; charset=utf-8' }).end(page);
      return;
    }
    const file = path.join(dir, ...url.pathname.split('/').filter((part) => part !== '' && part !== '..'));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requested,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A new page at `url` whose console errors and uncaught exceptions land in `problems`. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(url, { timeout: 30_000 });
  return { page, problems };
}

/** Ends what a browser test started: the browser, the page host, then its scratch directory. */
export async function closeBrowserTest(browser: Browser | undefined, host: PageHost | undefined, dir: string): Promise<void> {
  await browser?.close();
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
}
