// Issue 34: the viewer page `floe serve` answers at /ui/, in Debian's Chromium (playwright-core),
// over a repository written here with known values. Its plot is checked against the data, never
// against a picture the page drew before: pixels at the centres of known cells have the colour
// map's colour for those values (computed here from src/plot's colour map and the data's range),
// the missing block is hatched no-data grey, the colour bar's ends are the data's range, and the
// ticks name coordinate values at those values' positions. Repository text holding
// `<img src=x onerror=…>` (an attribute, a node name, a commit message) shows literally and runs
// nothing; with a token the data routes refuse without it while the page's files are served.
// FLOE_UPDATE_SCREENSHOT=1 writes docs/viewer.png (the screenshot docs/web.md shows).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositoryServer, type RepositoryServer } from '../../src/cli/serve/repository-server.ts';
import { VIEWER_CSP } from '../../src/cli/serve/viewer-assets.ts';
import { Repository, Storage, ZarrArray, ZarrGroup } from '../../src/index.ts';
import { colormapByName, MISSING, MISSING_HATCH, type Rgb } from '../../src/plot/colormap.ts';
import type { HeatmapLayout } from '../../src/plot/heatmap.ts';
import type { LinePlotLayout } from '../../src/plot/line-plot.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 's3cret-token';
const XSS_NAME = '<img src=x onerror=window.__xss=1>';
const XSS_ATTR = '<img src=x onerror="window.__xss=2">';
const XSS_MESSAGE = '<script>window.__xss=3</script> first data';
const [ROWS, COLS] = [6, 8];
const LAT = Float64Array.from({ length: ROWS }, (_, i) => -50 + 20 * i);
const LON = Float64Array.from({ length: COLS }, (_, i) => 45 * i);
/** Rows 0-1, columns 0-2 are missing (NaN); the rest rise across the field, 200 to 300 K-ish. */
const FIELD = Float32Array.from({ length: ROWS * COLS }, (_, i) => (Math.floor(i / COLS) < 2 && i % COLS < 3 ? NaN : 200 + 2 * i + (i % 3)));
const SERIES = Float64Array.from({ length: 10 }, (_, i) => Math.sin(i) * 10);
/** Days 50-59 on calendars JS Dates cannot show: 360_day's 2000-02-30 and noleap's 2000-03-01 (a leap year elsewhere). */
const DAYS = Float64Array.from({ length: 10 }, (_, i) => 50 + i);
const CALENDARS = [{ calendar: '360_day', units: 'days since 2000-01-01' }, { calendar: 'noleap', units: 'days since 2000-01-01' }];
const PYTHON = '/usr/bin/python3';

/** cftime's ISO text of each stored number on a calendar (the oracle for tick labels). */
function cftimeIso(calendar: string, units: string, values: readonly number[]): string[] {
  const script = 'import json, sys, cftime\nr = json.load(sys.stdin)\nprint(json.dumps([d.isoformat() for d in cftime.num2date(r["values"], r["units"], calendar=r["calendar"])]))';
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify({ calendar, units, values }), encoding: 'utf8', timeout: 60_000 })) as string[];
}

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && (process.env.CI === 'true' || process.env.FLOE_REQUIRE_BROWSER === '1')) {
  throw new Error(`${CHROMIUM} is missing: install it with \`bash scripts/install-services.sh\` (Debian's chromium)`);
}

let dir = '';
let browser: Browser | undefined;
let server: RepositoryServer | undefined;
let base = '';

async function writeRepository(at: string): Promise<Repository> {
  const repo = await Repository.create(Storage.newLocalFilesystem(at));
  const session = await repo.writableSession('main');
  const store = session.store;
  await ZarrGroup.create(store, '/', { attributes: { title: 'viewer test' } });
  await ZarrGroup.create(store, '/obs', { attributes: { note: XSS_ATTR } });
  const array = async (p: string, values: Float64Array | Float32Array, dims: string[], shape: number[], attributes: Record<string, string>) => {
    const a = await ZarrArray.create(store, p, { shape, chunkShape: shape.map((n) => Math.ceil(n / 2)), dataType: values instanceof Float32Array ? 'float32' : 'float64', fillValue: 'NaN', dimensionNames: dims, attributes });
    await a.set(undefined, values);
  };
  await array('/obs/lat', LAT, ['lat'], [ROWS], { units: 'degrees_north' });
  await array('/obs/lon', LON, ['lon'], [COLS], { units: 'degrees_east' });
  await array('/obs/field', FIELD, ['lat', 'lon'], [ROWS, COLS], { units: 'K', long_name: 'test field' });
  await array('/obs/time', Float64Array.from({ length: 10 }, (_, i) => i), ['time'], [10], { units: 'days since 2024-01-01', calendar: 'standard' });
  await array('/obs/series', SERIES, ['time'], [10], { units: 'm' });
  for (const c of CALENDARS) {
    await ZarrGroup.create(store, `/${c.calendar}`);
    await array(`/${c.calendar}/time`, DAYS, ['time'], [DAYS.length], { units: c.units, calendar: c.calendar });
    await array(`/${c.calendar}/series`, SERIES.subarray(0, DAYS.length).map((v, i) => v + i), ['time'], [DAYS.length], { units: 'm' });
  }
  await array(`/obs/${XSS_NAME}`, Float64Array.of(1, 2, 3), ['x'], [3], { description: XSS_ATTR });
  await session.commit(XSS_MESSAGE);
  const second = await repo.writableSession('main');
  await (await ZarrArray.open(second.store, '/obs/series')).set([0], 5);
  await second.commit('one value of the series');
  return repo;
}

beforeAll(async () => {
  if (!haveChromium) return;
  dir = mkdtempSync(path.join(tmpdir(), 'floe-viewer-'));
  // The page as `npm run build` makes it, from the sources under test.
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-viewer.mjs'), path.join(dir, 'viewer')], { stdio: 'inherit' });
  const repo = await writeRepository(path.join(dir, 'repo.icechunk'));
  server = createRepositoryServer(repo, { token: TOKEN, viewerDir: path.join(dir, 'viewer') });
  base = await server.listen(0, '127.0.0.1');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'], timeout: 60_000 });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page that records console errors, failed scripts and whether any injected script ran. */
async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));
  return { page, problems };
}

/** Presses Tab until the focused element is a link whose text is `text` (the keyboard's way there). */
async function tabTo(page: Page, text: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((t) => document.activeElement?.tagName === 'A' && document.activeElement.textContent === t, text)) return;
  }
  throw new Error(`no focusable link "${text}" reached with Tab`);
}

/**
 * Runs `action` (a key, a click, history) and waits, by condition and never by time, until the page
 * has drawn what it asked for: the view is no longer busy and a plot not on the page before, whose
 * label holds `label`, is shown. Plots already there are marked first, so a plot with the same label
 * (going back to an earlier selection) or a draw still in flight cannot satisfy the wait.
 */
async function redrawn(page: Page, label: string, action: () => Promise<unknown>): Promise<void> {
  await page.evaluate(() => document.querySelectorAll('main canvas').forEach((c) => c.setAttribute('data-stale', '')));
  await action();
  await page.locator(`main:not([aria-busy]) canvas:not([data-stale])[aria-label*="${label}"]`).waitFor({ timeout: 30_000 });
}

const xssRan = (page: Page) => page.evaluate(() => (window as unknown as { __xss?: number }).__xss ?? null);
const layoutOf = async <T>(page: Page): Promise<T> => JSON.parse((await page.locator('main canvas').getAttribute('data-layout')) ?? 'null') as T;
const pixel = (page: Page, x: number, y: number): Promise<Rgb> =>
  page.evaluate(([px, py]) => {
    const d = document.querySelector<HTMLCanvasElement>('main canvas')!.getContext('2d')!.getImageData(px!, py!, 1, 1).data;
    return [d[0]!, d[1]!, d[2]!] as const;
  }, [Math.floor(x), Math.floor(y)]);

describe('the viewer page of floe serve', () => {
  it('serves its files without the token, with a strict CSP, while every data route still refuses without it', async () => {
    if (!haveChromium) return;
    for (const file of ['', 'viewer.js', 'viewer.css']) {
      const answer = await fetch(`${base}/ui/${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-security-policy')).toBe(VIEWER_CSP);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(VIEWER_CSP).not.toMatch(/unsafe-inline|'unsafe-eval'/);
    // The page's largest script (viewer.js itself is a few imports of the core chunks).
    const chunks = path.join(ROOT, 'dist/viewer/chunks');
    const script = `chunks/${readdirSync(chunks).sort((a, b) => statSync(path.join(chunks, b)).size - statSync(path.join(chunks, a)).size)[0]}`;
    const plain = await fetch(`${base}/ui/${script}`, { headers: { 'accept-encoding': 'identity' } });
    const zipped = await fetch(`${base}/ui/${script}`, { headers: { 'accept-encoding': 'gzip, deflate' } });
    expect([plain.headers.get('content-encoding'), zipped.headers.get('content-encoding')]).toEqual([null, 'gzip']);
    expect(await zipped.text()).toBe(await plain.text()); // fetch undoes the gzip
    expect(Number(zipped.headers.get('content-length'))).toBeLessThan(Number(plain.headers.get('content-length')) / 2);
    for (const route of ['/', '/.icechunk/repo', '/main/zarr.json', '/main/obs/field/zarr.json', '/ui/zarr.json', '/.icechunk/?list-type=2']) {
      expect((await fetch(base + route)).status, route).toBe(401);
    }
    expect((await fetch(`${base}/.icechunk/repo`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const forBrowsers = await fetch(`${base}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(forBrowsers.status).toBe(200);
    expect(await forBrowsers.text()).toContain('href="/ui/"');
  });

  it('loads with no console error, drops the token from the address, and goes branch -> array -> slice by keyboard', async () => {
    if (!haveChromium) return;
    const { page, problems } = await openPage();
    await page.goto(`${base}/ui/#token=${TOKEN}`);
    await page.locator('main h1', { hasText: 'Branches' }).waitFor({ timeout: 30_000 });
    expect(page.url()).not.toContain(TOKEN);
    expect(page.url()).toMatch(/\/ui\/#view=refs$/);
    await tabTo(page, 'main');
    await page.keyboard.press('Enter');
    await page.locator('main h1', { hasText: 'Log of' }).waitFor();
    expect(await page.locator('main tbody tr').count()).toBe(3); // the repository's first snapshot, then two commits
    await expect.poll(() => page.locator('main').innerText()).toContain(XSS_MESSAGE);
    await tabTo(page, 'tree'); // the newest snapshot's tree: the log's first row
    await page.keyboard.press('Enter');
    await page.locator('main h1', { hasText: 'Tree of' }).waitFor();
    await tabTo(page, 'field');
    await redrawn(page, '/obs/field[:, :]', () => page.keyboard.press('Enter'));
    expect(decodeURIComponent(page.url())).toMatch(/#view=slice&ref=[0-9A-Z]{20}&path=\/obs\/field&sel=\[:, :\]$/);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('CANVAS');
    // Zoom in: re-queried, named in the address; the new plot is focused (the old one stays until the re-query is drawn).
    await redrawn(page, '[2:5, 2:6]', () => page.keyboard.press('+'));
    expect(decodeURIComponent(page.url())).toContain('sel=[2:5, 2:6]');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toContain('[2:5, 2:6]');
    await redrawn(page, '[2:5, 3:7]', () => page.keyboard.press('ArrowRight'));
    expect(decodeURIComponent(page.url())).toContain('sel=[2:5, 3:7]');
    await redrawn(page, '[2:5, 2:6]', () => page.goBack());
    expect(decodeURIComponent(page.url())).toContain('sel=[2:5, 2:6]');
    // A query in the DSL's text form, typed into the selection field, shows as the selection it makes.
    const field = page.locator('main:not([aria-busy]) input[name=sel]');
    await field.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('.from("/obs/field").where("lat", "between", [-10, 30]).whereIndex("lon", 1, 8, 2)');
    await expect.poll(() => field.inputValue()).toMatch(/^\.from\(.*whereIndex\("lon", 1, 8, 2\)$/); // the field typed into is still the page's
    await redrawn(page, '[2:5, 1:9:2]', () => page.keyboard.press('Enter'));
    expect(decodeURIComponent(page.url())).toMatch(/&path=\/obs\/field&sel=\[2:5, 1:9:2\]/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws the heat map the data says: cell colours, no-data hatching, colour bar ends and ticks', async () => {
    if (!haveChromium) return;
    const { page, problems } = await openPage();
    await page.goto(`${base}/ui/#token=${TOKEN}`);
    await page.locator('main h1').first().waitFor({ timeout: 30_000 });
    await page.evaluate(() => { location.hash = '#view=slice&ref=main&path=%2Fobs%2Ffield&sel=%5B%3A%2C%20%3A%5D'; });
    await page.locator('main canvas').waitFor({ timeout: 30_000 });
    const layout = await layoutOf<HeatmapLayout>(page);
    const finite = Array.from(FIELD).filter(Number.isFinite);
    const [min, max] = [Math.min(...finite), Math.max(...finite)];
    expect([layout.colourbar?.min, layout.colourbar?.max]).toEqual([min, max]);
    const viridis = colormapByName('viridis');
    const { field } = layout;
    for (let r = 0; r < ROWS; r++) {
      for (let c = 0; c < COLS; c++) {
        const v = FIELD[r * COLS + c]!;
        const [x, y] = [field.x + ((c + 0.5) * field.width) / COLS, field.y + ((r + 0.5) * field.height) / ROWS];
        const got = await pixel(page, x, y);
        if (Number.isNaN(v)) expect([MISSING, MISSING_HATCH], `cell ${r},${c}`).toContainEqual(got);
        else expect(got, `cell ${r},${c} = ${v}`).toEqual(viridis.colour((v - min) / (max - min)));
      }
    }
    // The bar's top row is the maximum's colour, its bottom row the minimum's.
    const bar = layout.colourbar!.rect;
    expect(await pixel(page, bar.x + bar.width / 2, bar.y)).toEqual(viridis.colour(1));
    expect(await pixel(page, bar.x + bar.width / 2, bar.y + bar.height - 1)).toEqual(viridis.colour(0));
    // Ticks name coordinate values where those values lie (evenly spaced coordinates: linear in the cell index).
    const cellW = field.width / COLS;
    expect(layout.xAxis.ticks.length).toBeGreaterThan(1);
    for (const t of layout.xAxis.ticks) {
      expect(Number(t.label)).toBe(t.value);
      expect(t.position).toBeCloseTo(field.x + ((Number(t.value) - LON[0]!) / 45 + 0.5) * cellW, 6);
      expect(await pixel(page, Math.round(t.position), field.y + field.height + 2)).toEqual([0, 0, 0]); // the tick mark is drawn there
    }
    const cellH = field.height / ROWS;
    for (const t of layout.yAxis.ticks) expect(t.position).toBeCloseTo(field.y + ((Number(t.value) - LAT[0]!) / 20 + 0.5) * cellH, 6);
    expect(layout.xAxis.title).toContain('degrees_east');
    await expect.poll(() => page.locator('#plot-summary').innerText()).toContain('K');
    // The CSV download holds the data with its coordinate labels, missing values empty.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('field_-,-.csv'); // [:, :]
    const csv = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe('lat,lon,field');
    expect(csv.length).toBe(1 + ROWS * COLS);
    expect(csv[1]).toBe('-50,0,'); // row 0, column 0: missing
    expect(csv[ROWS * COLS]).toBe(`50,315,${FIELD[ROWS * COLS - 1]}`);
    if (process.env.FLOE_UPDATE_SCREENSHOT === '1') await page.screenshot({ path: path.join(ROOT, 'docs/viewer.png') });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws a 1-D selection as a line with dates on its time axis', async () => {
    if (!haveChromium) return;
    const { page, problems } = await openPage();
    await page.goto(`${base}/ui/#token=${TOKEN}&view=slice&ref=main&path=%2Fobs%2Fseries&sel=%5B%3A%5D`);
    await page.locator('main canvas').waitFor({ timeout: 30_000 });
    const layout = await layoutOf<LinePlotLayout>(page);
    const values = [5, ...Array.from(SERIES).slice(1)];
    expect(layout.points.length).toBe(values.length);
    const day = 86_400_000;
    for (const t of layout.xAxis.ticks) {
      const date = new Date(Date.UTC(2024, 0, 1) + Number(t.value) * day).toISOString().slice(0, 10);
      expect(t.label.startsWith(date) || date.startsWith(t.label), `${t.label} at ${String(t.value)}`).toBe(true);
    }
    // Points lie in value order along y: the largest value highest (smallest y).
    const ys = layout.points.map((p) => p!.y);
    const order = (a: readonly number[]) => a.map((_, i) => i).sort((i, j) => a[i]! - a[j]!);
    expect(order(ys).reverse()).toEqual(order(values));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('labels time axes on the 360_day and noleap calendars with the dates cftime gives, each at its position; refuses split runs with a link', async () => {
    if (!haveChromium) return;
    const { page, problems } = await openPage();
    await page.goto(`${base}/ui/#token=${TOKEN}`);
    await page.locator('main h1').first().waitFor({ timeout: 30_000 });
    for (const { calendar, units } of CALENDARS) {
      await page.evaluate((c) => { location.hash = `#view=slice&ref=main&path=${encodeURIComponent(`/${c}/series`)}&sel=${encodeURIComponent('[:]')}`; }, calendar);
      const canvas = page.locator(`main canvas[aria-label*="/${calendar}/series"]`);
      await canvas.waitFor({ timeout: 30_000 });
      const layout = await layoutOf<LinePlotLayout>(page);
      expect(layout.xAxis.title).toContain(calendar);
      const ticks = layout.xAxis.ticks;
      expect(ticks.length, calendar).toBeGreaterThan(1);
      const iso = cftimeIso(calendar, units, ticks.map((t) => Number(t.value)));
      const [p0, p1] = [layout.points[0]!.x, layout.points[1]!.x];
      for (const [k, t] of ticks.entries()) {
        expect(t.label, `${calendar} tick at ${String(t.value)}`).toMatch(/^\d{4}-\d{2}/); // a date, not the stored number
        expect(iso[k]!.startsWith(t.label), `${calendar}: ${t.label} at ${String(t.value)} is ${iso[k]}`).toBe(true);
        expect(t.position).toBeCloseTo(p0 + (Number(t.value) - DAYS[0]!) * (p1 - p0), 6);
      }
    }
    // Day 59 is 30 February on 360_day: the labels name it (cftime agrees, checked above).
    expect(cftimeIso('360_day', 'days since 2000-01-01', [59])[0]).toBe('2000-02-30T00:00:00');
    // A query splitting a dimension into runs is refused by name, with a link to the range covering them.
    await page.evaluate(() => { location.hash = `#view=slice&ref=main&sel=${encodeURIComponent('.from("/obs/field").where("lat", "in", [-50, -30, 50])')}`; });
    await page.locator('main p.error', { hasText: '2 separate runs of lat (indices 0:2, 5)' }).waitFor({ timeout: 30_000 });
    await redrawn(page, '/obs/field[0:6, :]', () => page.locator('main a', { hasText: 'Show /obs/field[0:6, :]' }).click());
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows repository text literally and runs none of it: an attribute, a node name, a commit message', async () => {
    if (!haveChromium) return;
    const { page, problems } = await openPage();
    await page.goto(`${base}/ui/#token=${TOKEN}&view=tree&ref=main&path=%2F`);
    await page.locator('main h1', { hasText: 'Tree of' }).waitFor({ timeout: 30_000 });
    const text = await page.locator('main').innerText();
    expect(text).toContain(XSS_NAME);
    expect(text).toContain(XSS_ATTR.replace(/"/g, '\\"')); // attributes are shown as JSON
    expect(await page.locator('main img, main script').count()).toBe(0);
    await page.locator('main a', { hasText: XSS_NAME }).click();
    await page.locator('main canvas').waitFor({ timeout: 30_000 });
    await page.evaluate(() => { location.hash = '#view=log&ref=main'; });
    await page.locator('main h1', { hasText: 'Log of' }).waitFor();
    expect(await page.locator('main').innerText()).toContain(XSS_MESSAGE);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await xssRan(page)).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });
});
