// A REGRESSION GUARD, not a correctness oracle: the SHA-256 of plots Floe's own code drew, pinned
// in test/fixtures/plots/hashes.json, so that moving or refactoring the plotting code cannot
// change a single byte of what `floe plot` writes without this test saying so. The recorded
// hashes were written by Floe's CLI and renderer themselves (see test/fixtures/PROVENANCE.md,
// `plots/`), so they say "unchanged", never "right": whether a plot is right is what
// test/cli/plot.test.ts checks, against values computed independently of the renderer.
//
// Two levels: whole `floe plot` runs over a repository built here (the PNG file's bytes: data
// read, titles, axes, colour bar, encoding), in-process and once through bin/floe.mjs on the
// built dist/; and the renderer's functions (RGB pixels and the layout's JSON: what a web page
// puts on a canvas and reads tick positions from).
//
// A deliberate change to the pictures: run with FLOE_PLOT_HASHES=write, look at the new PNGs,
// then update test/fixtures/SHA256SUMS and the `plots` row of PROVENANCE.md in the same commit,
// saying why. A change to what `floe plot` reads (CF decoding, say) moves the cli/ hashes alone.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZarrArray } from '../../src/engine/array.ts';
import { ZarrGroup } from '../../src/engine/group.ts';
import { COLORMAP_NAMES, colormapByName } from '../../src/plot/colormap.ts';
import { FONT_CHARACTERS } from '../../src/plot/font.ts';
import { renderHeatmap, type HeatmapInput } from '../../src/plot/heatmap.ts';
import { renderLinePlot, type LinePlotInput } from '../../src/plot/line-plot.ts';
import { Raster } from '../../src/plot/raster.ts';
import { Repository, Storage } from '../../src/txn/index.ts';
import { fixturePath } from '../support/fixtures.ts';
import { floe, removeTempDirs, spawnFloe, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const HASHES_FILE = fixturePath('plots', 'hashes.json');
const writing = process.env.FLOE_PLOT_HASHES === 'write';
const recorded = JSON.parse(readFileSync(HASHES_FILE, 'utf8')) as Record<string, string>;
const found: Record<string, string> = {};

afterAll(() => {
  if (writing) writeFileSync(HASHES_FILE, `${JSON.stringify(found, Object.keys(found).sort(), 2)}\n`);
});

const sha256 = (...parts: (string | Uint8Array)[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

/** Records (write mode) or compares one hash. */
function check(name: string, hash: string): void {
  found[name] = hash;
  if (!writing) expect(hash, `${name} changed (see this file's header)`).toBe(recorded[name]);
}

const indices = (n: number) => Array.from({ length: n }, (_, i) => i);
const NT = 8;
const NY = 12;
const NX = 24;
const STATIONS = [3, 1, 4, 10, 5];
const HOURS = 12;

/** Sea surface temperature: smooth in lat/lon, warming with time; land is NaN, the last day all NaN. */
function sst(t: number, y: number, x: number): number {
  if (t === NT - 1) return NaN;
  if (y < 4 && x >= 5 && x < 10) return NaN;
  if (t === 2 && y === 6 && x === 12) return NaN;
  return 28 - Math.abs(-55 + 10 * y) / 3 + Math.sin(x / 4) * 2 + t * 0.25;
}

async function buildRepository(dir: string): Promise<string> {
  const repoPath = path.join(dir, 'plots.icechunk');
  const repo = await Repository.create(Storage.newLocalFilesystem(repoPath));
  const session = await repo.writableSession('main');
  const store = session.store;
  await ZarrGroup.create(store, '/', {});
  for (const g of ['/ocean', '/tall', '/storm']) await ZarrGroup.create(store, g, {});
  const array = async (p: string, shape: number[], dataType: 'float32' | 'float64', dims: string[], attributes: Record<string, string>, values: Float32Array | Float64Array) => {
    const a = await ZarrArray.create(store, p, { shape, chunkShape: shape, dataType, fillValue: 'NaN', dimensionNames: dims, attributes });
    await a.set(undefined, values);
  };
  await array('/ocean/time', [NT], 'float64', ['time'], { units: 'days since 2020-01-01' }, Float64Array.from(indices(NT)));
  await array('/ocean/lat', [NY], 'float32', ['lat'], { units: 'degrees_north' }, Float32Array.from(indices(NY), (i) => -55 + 10 * i));
  await array('/ocean/lon', [NX], 'float64', ['lon'], { units: 'degrees_east' }, Float64Array.from(indices(NX), (i) => i * 15));
  const field = new Float32Array(NT * NY * NX);
  for (let t = 0; t < NT; t++) for (let y = 0; y < NY; y++) for (let x = 0; x < NX; x++) field[(t * NY + y) * NX + x] = sst(t, y, x);
  await array('/ocean/sst', [NT, NY, NX], 'float32', ['time', 'lat', 'lon'], { units: 'degC', long_name: 'sea surface temperature' }, field);
  const anomaly = Float64Array.from(field, (v, i) => (Number.isFinite(v) ? v - 20 + (i % 7) / 10 : 0.5 * Math.cos(i)));
  await array('/ocean/anomaly', [NT, NY, NX], 'float64', ['time', 'lat', 'lon'], { units: 'K' }, anomaly);
  await array('/tall/band', [1200, 30], 'float32', ['row', 'col'], {}, Float32Array.from({ length: 1200 * 30 }, (_, i) => Math.sqrt(i % 997) - (i % 30)));
  await array('/storm/time', [HOURS], 'float64', ['time'], { units: 'hours since 2021-03-01 00:00:00' }, Float64Array.from(indices(HOURS), (i) => i * 6));
  await array('/storm/station', [STATIONS.length], 'float64', ['station'], {}, Float64Array.from(STATIONS));
  await array('/storm/wind', [HOURS, STATIONS.length], 'float64', ['time', 'station'], { units: 'm s-1', standard_name: 'wind_speed' },
    Float64Array.from({ length: HOURS * STATIONS.length }, (_, i) => 5 + 20 * Math.abs(Math.sin(i / 3))));
  await session.commit('plot fixtures');
  return repoPath;
}

/** `floe plot` runs: the name of each PNG and its arguments after the target. */
const CLI_CASES: readonly (readonly [string, string, ...string[]])[] = [
  ['heatmap-lat-lon-land', 'main:/ocean/sst[0]'],
  ['heatmap-magma-vmin-vmax', 'main:/ocean/sst[3]', '--cmap', 'magma', '--vmin', '5', '--vmax', '25'],
  ['heatmap-time-lon-greys-r', 'main:/ocean/sst[:, 6, :]', '--cmap', 'greys_r'],
  ['heatmap-strided', 'main:/ocean/sst[1, ::2, 3:20:3]'],
  ['heatmap-all-missing', 'main:/ocean/sst[7]'],
  ['heatmap-coolwarm', 'main:/ocean/anomaly[1]', '--cmap', 'coolwarm'],
  ['heatmap-bwr-r-vmin', 'main:/ocean/anomaly[2]', '--cmap', 'bwr_r', '--vmin=-4'],
  ['heatmap-sampled-no-coords', 'main:/tall/band'],
  ['heatmap-hours-unsorted-stations', 'main:/storm/wind', '--cmap', 'viridis_r'],
  ['line-days-gap', 'main:/ocean/sst[:, 6, 12]'],
  ['line-days-range', 'main:/ocean/sst[:, 6, 12]', '--vmin', '0', '--vmax', '40'],
  ['line-lon', 'main:/ocean/anomaly[1, 4, :]'],
  ['line-many-points', 'main:/tall/band[:, 3]'],
  ['line-hours', 'main:/storm/wind[:, 0]'],
  ['line-all-missing', 'main:/ocean/sst[7, 3, :]'],
];

describe('floe plot writes the same PNG bytes as when the hashes were recorded', () => {
  let dir = '';
  let repoPath = '';
  beforeAll(async () => {
    dir = tempDir('floe-plot-hashes-');
    repoPath = await buildRepository(dir);
  });

  it.each(CLI_CASES)('%s', async (name, target, ...options) => {
    const out = path.join(dir, `${name}.png`);
    const r = await floe(['plot', target, '-o', out, '--repo', repoPath, ...options], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    check(`cli/${name}.png`, sha256(readFileSync(out)));
  });

  it('the installed binary (bin/floe.mjs on the built dist/) writes the same bytes', async () => {
    const r = await spawnFloe(['plot', 'main:/ocean/sst[:, 6, :]', '-o', 'bin.png', '--repo', repoPath, '--cmap', 'greys_r'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const name = 'cli/heatmap-time-lon-greys-r.png';
    expect(sha256(readFileSync(path.join(dir, 'bin.png')))).toBe(found[name] ?? recorded[name]);
  });
});

/** Renderer calls: pixels and layout hashed apart, so a failure says which changed. */
const HEATMAPS: Readonly<Record<string, HeatmapInput>> = {
  'string-and-unsorted-coordinates': {
    values: Float64Array.from({ length: 3 * 4 }, (_, i) => i * i), rows: 3, cols: 4,
    y: { name: 'site', values: ['north', 'mid', 'south'], indices: [0, 1, 2] },
    x: { name: 'depth', units: 'm', values: Float64Array.of(30, 10, 20, 5), indices: [0, 1, 2, 3] },
    title: ['strings', 'and unsorted numbers'], units: 'mg l-1',
  },
  'one-row-stretched': { values: Float64Array.from({ length: 300 }, (_, i) => Math.log1p(i)), rows: 1, cols: 300, y: { name: 'y', indices: [0] }, x: { name: 'x', indices: indices(300) } },
  'constant-field': { values: new Float64Array(6).fill(7), rows: 2, cols: 3, y: { name: 'y', indices: [0, 1] }, x: { name: 'x', indices: [0, 1, 2] }, units: 'kg' },
  'descending-float32-time': {
    values: Float64Array.from({ length: 5 * 6 }, (_, i) => (i % 4 === 0 ? NaN : 1e-4 * i)), rows: 5, cols: 6,
    y: { name: 'level', units: 'hPa', values: Float32Array.of(1000, 850.5, 700.25, 500.1, 250), indices: indices(5), float32: true },
    x: { name: 'time', values: Float64Array.of(0, 0.25, 0.5, 0.75, 1, 1.25), indices: indices(6), time: { unitMs: 86_400_000, epochMs: Date.UTC(1999, 11, 31) } },
    colormap: colormapByName('magma_r'), range: { max: 0.002 },
  },
};

const LINES: Readonly<Record<string, LinePlotInput>> = {
  'single-value': { values: Float64Array.of(3), x: { name: 'x', indices: [0] }, yTitle: 'v' },
  'descending-coordinate': { values: Float64Array.of(1, 4, NaN, 2, 8, 5), x: { name: 'depth', units: 'm', values: Float64Array.of(50, 40, 30, 20, 10, 0), indices: indices(6) }, yTitle: 'oxygen (umol kg-1)', title: ['profile'] },
  'huge-values': { values: Float64Array.from({ length: 90 }, (_, i) => 1e7 * Math.sin(i / 9)), x: { name: 'i', indices: indices(90) }, yTitle: 'flux', range: { min: -2e7 } },
  'all-missing': { values: Float64Array.of(NaN, NaN, NaN), x: { name: 'i', indices: [0, 1, 2] }, yTitle: 'v' },
};

const layoutHash = (layout: unknown) => sha256(JSON.stringify(layout));
const pixelHash = (width: number, height: number, pixels: Uint8Array) => sha256(`${width}x${height}\n`, pixels);

describe('the renderer draws the same pixels and layouts as when the hashes were recorded', () => {
  it.each(Object.entries(HEATMAPS))('heat map %s', (name, input) => {
    const { layout, pixels } = renderHeatmap(input);
    check(`heatmap/${name}/pixels`, pixelHash(layout.width, layout.height, pixels));
    check(`heatmap/${name}/layout`, layoutHash(layout));
  });

  it.each(Object.entries(LINES))('line plot %s', (name, input) => {
    const { layout, pixels } = renderLinePlot(input);
    check(`line/${name}/pixels`, pixelHash(layout.width, layout.height, pixels));
    check(`line/${name}/layout`, layoutHash(layout));
  });

  it('colour maps: every map and its reverse at 257 points', () => {
    for (const name of COLORMAP_NAMES.flatMap((n) => [n, `${n}_r`])) {
      const map = colormapByName(name);
      const colours = Uint8Array.from(Array.from({ length: 257 }, (_, i) => map.colour(i / 256)).flat());
      check(`colormap/${name}`, sha256(map.kind, colours));
    }
  });

  it('the font: every character at three sizes, across and turned', () => {
    const text = FONT_CHARACTERS.join('');
    const raster = new Raster(1800, 420);
    [1, 2, 3].forEach((scale, i) => raster.text(text, 2, 2 + i * 32, scale, [0, 0, 0]));
    raster.text(text.slice(0, 40), 4, 130, 2, [200, 30, 30], true);
    raster.line(100, 400, 1700, 140, [0, 90, 0], 3);
    check('font/all-characters', pixelHash(raster.width, raster.height, raster.pixels));
  });
});

describe('the recorded hashes', () => {
  it('name exactly the cases above (none left over from a case that was removed)', () => {
    if (!writing) expect(Object.keys(found).sort()).toEqual(Object.keys(recorded).sort());
  });
});
