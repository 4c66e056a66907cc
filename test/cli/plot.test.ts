// `floe plot` and its renderer (src/plot): what the picture says, checked against values
// computed here, not against images the renderer made. Colours are matplotlib's published
// viridis stops; positions come from the layout's field rectangle and the coordinate arithmetic.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode } from 'fast-png';
import { afterAll, describe, expect, it } from 'vitest';
import { renderHeatmap, type HeatmapInput } from '../../src/plot/heatmap.ts';
import { colormapByName } from '../../src/plot/colormap.ts';
import { FONT_CHARACTERS, glyph } from '../../src/plot/font.ts';
import { LINE_COLOUR, renderLinePlot } from '../../src/plot/line-plot.ts';
import { Raster, rgbToRgba } from '../../src/plot/raster.ts';
import { isFloeError } from '../../src/errors.ts';
import { floe, removeTempDirs, sampleRepository, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

// matplotlib's viridis at 0, 0.5 and 1 (its _viridis_data rows 0, 128 and 255, as 8-bit).
const VIRIDIS_0 = [68, 1, 84];
const VIRIDIS_HALF = [33, 145, 140];
const VIRIDIS_1 = [253, 231, 37];
const NO_DATA = [[205, 205, 205], [160, 160, 160]];

const pixelOf = (pixels: Uint8Array, width: number, x: number, y: number) => {
  const i = (Math.round(y) * width + Math.round(x)) * 3;
  return Array.from(pixels.subarray(i, i + 3));
};

/** The centre of cell (r, c) of a rows x cols field drawn in `field`, computed from the rectangle alone. */
const cellCentre = (field: { x: number; y: number; width: number; height: number }, rows: number, cols: number, r: number, c: number) => ({
  x: field.x + ((c + 0.5) * field.width) / cols,
  y: field.y + ((r + 0.5) * field.height) / rows,
});

/** The element at i, or a test failure (no non-null assertions on indexing). */
function at<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no element ${i} of ${items.length}`);
  return item;
}

const indices = (n: number) => Array.from({ length: n }, (_, i) => i);

function heatmapInput(values: number[], rows: number, cols: number, extra: Partial<HeatmapInput> = {}): HeatmapInput {
  return { values: Float64Array.from(values), rows, cols, y: { name: 'y', indices: indices(rows) }, x: { name: 'x', indices: indices(cols) }, ...extra };
}

describe('plot font', () => {
  it('has a distinct glyph for every printable ASCII character', () => {
    const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i));
    expect([...FONT_CHARACTERS].sort()).toEqual([...printable].sort());
    const shapes = printable.map((ch) => glyph(ch).map((row) => row.map((on) => (on ? '#' : '.')).join('')).join('/'));
    expect(new Set(shapes).size).toBe(printable.length);
    for (const [i, ch] of printable.entries()) {
      expect(glyph(ch)).toHaveLength(9);
      for (const row of glyph(ch)) expect(row).toHaveLength(5);
      if (ch !== ' ') expect(shapes[i], ch).toContain('#');
    }
  });

  it('draws a T as a bar on a stem, and text outside ASCII as a box', () => {
    const r = new Raster(20, 12);
    r.text('T', 0, 0, 1, [0, 0, 0]);
    for (let x = 0; x < 5; x++) expect(r.at(x, 0), `top bar x=${x}`).toEqual([0, 0, 0]);
    for (let y = 1; y < 7; y++) {
      expect(r.at(2, y), `stem y=${y}`).toEqual([0, 0, 0]);
      expect(r.at(0, y)).toEqual([255, 255, 255]);
    }
    expect(glyph('°')).toEqual(glyph('\u00e9'));
    expect(glyph('°')[0]).toEqual([true, true, true, true, true]);
  });
});

describe('colour maps', () => {
  it('are found by name, reversed with _r, and an unknown name is an INVALID_ARGUMENT listing the names', () => {
    expect(colormapByName('viridis').colour(0)).toEqual(VIRIDIS_0);
    expect(colormapByName('Viridis').colour(1)).toEqual(VIRIDIS_1);
    expect(colormapByName('viridis_r').colour(0)).toEqual(VIRIDIS_1);
    expect(colormapByName('coolwarm').kind).toBe('diverging');
    expect(colormapByName('greys').colour(0)).toEqual([255, 255, 255]);
    let caught: unknown;
    try {
      colormapByName('jet');
    } catch (err) {
      caught = err;
    }
    expect(isFloeError(caught, 'INVALID_ARGUMENT')).toBe(true);
    expect((caught as Error).message).toContain('viridis');
  });
});

describe('heat map', () => {
  it('colours each cell by its value on the colour map', () => {
    // 0, 4 and 8 on a 0..8 range are the map's bottom, middle and top.
    const values = [0, 4, 8, 4, 8, 0];
    const map = renderHeatmap(heatmapInput(values, 2, 3, { range: { min: 0, max: 8 } }));
    const { field } = map.layout;
    const expected = [VIRIDIS_0, VIRIDIS_HALF, VIRIDIS_1, VIRIDIS_HALF, VIRIDIS_1, VIRIDIS_0];
    for (const [k, colour] of expected.entries()) {
      const { x, y } = cellCentre(field, 2, 3, Math.floor(k / 3), k % 3);
      expect(pixelOf(map.pixels, map.layout.width, x, y), `cell ${k}`).toEqual(colour);
    }
  });

  it('clamps values outside vmin..vmax to the ends', () => {
    const map = renderHeatmap(heatmapInput([-100, 100], 1, 2, { range: { min: 0, max: 1 } }));
    const { field } = map.layout;
    expect(pixelOf(map.pixels, map.layout.width, cellCentre(field, 1, 2, 0, 0).x, cellCentre(field, 1, 2, 0, 0).y)).toEqual(VIRIDIS_0);
    expect(pixelOf(map.pixels, map.layout.width, cellCentre(field, 1, 2, 0, 1).x, cellCentre(field, 1, 2, 0, 1).y)).toEqual(VIRIDIS_1);
  });

  it('has a colour bar whose ends are vmin and vmax', () => {
    const map = renderHeatmap(heatmapInput([255, 300, 280, 260], 2, 2, { range: { min: 250, max: 310 }, units: 'K' }));
    const bar = map.layout.colourbar!;
    expect([bar.min, bar.max, bar.units]).toEqual([250, 310, 'K']);
    const [top, bottom] = [at(bar.ticks, 0), at(bar.ticks, bar.ticks.length - 1)];
    expect([top.label, top.position]).toEqual(['310', bar.rect.y]);
    expect([bottom.label, bottom.position]).toEqual(['250', bar.rect.y + bar.rect.height - 1]);
    const w = map.layout.width;
    expect(pixelOf(map.pixels, w, bar.rect.x + 5, bar.rect.y)).toEqual(VIRIDIS_1);
    expect(pixelOf(map.pixels, w, bar.rect.x + 5, bar.rect.y + bar.rect.height - 1)).toEqual(VIRIDIS_0);
    // Interior ticks sit where their value lies on the bar's linear scale.
    for (const t of bar.ticks.slice(1, -1)) {
      expect(t.position).toBeCloseTo(bar.rect.y + ((310 - Number(t.value)) / 60) * (bar.rect.height - 1), 6);
    }
  });

  it('hatches missing values grey and draws an all-missing field as no data, without a colour bar', () => {
    const some = renderHeatmap(heatmapInput([NaN, 1, 2, 3], 2, 2));
    const c = cellCentre(some.layout.field, 2, 2, 0, 0);
    expect(NO_DATA).toContainEqual(pixelOf(some.pixels, some.layout.width, c.x, c.y));
    expect(some.layout.noData).toBe(false);

    const none = renderHeatmap(heatmapInput([NaN, NaN, NaN, NaN], 2, 2, { units: 'K' }));
    expect(none.layout.noData).toBe(true);
    expect(none.layout.colourbar).toBeUndefined();
    expect(none.range).toBeUndefined();
    const { field, width } = none.layout;
    // The corners of the field (the "no data" label sits in the middle) are all hatch.
    for (const [x, y] of [[field.x + 2, field.y + 2], [field.x + field.width - 3, field.y + 3], [field.x + 4, field.y + field.height - 3]] as const) {
      expect(NO_DATA).toContainEqual(pixelOf(none.pixels, width, x, y));
    }
    const seen = new Set<string>();
    for (let x = field.x; x < field.x + 12; x++) seen.add(pixelOf(none.pixels, width, x, field.y + 1).join());
    expect(seen).toEqual(new Set(NO_DATA.map((c) => c.join())));
  });

  it('refuses vmin above vmax, and a single bound on the wrong side of the data, as INVALID_ARGUMENT', () => {
    for (const range of [{ min: 5, max: 1 }, { min: 2, max: 2 }, { min: 10 }, { max: -1 }]) {
      let caught: unknown;
      try {
        renderHeatmap(heatmapInput([0, 1, 2, 3], 2, 2, { range }));
      } catch (err) {
        caught = err;
      }
      expect(isFloeError(caught, 'INVALID_ARGUMENT'), JSON.stringify(range)).toBe(true);
    }
  });

  it('puts a diverging map\'s middle at zero when the data cross it', () => {
    const map = renderHeatmap(heatmapInput([-1, 3], 1, 2, { colormap: colormapByName('bwr') }));
    expect(map.range).toEqual({ min: -3, max: 3 });
  });

  it('places numeric tick labels where their coordinate values lie', () => {
    const lon = Float64Array.from({ length: 36 }, (_, i) => -175 + 10 * i);
    const lat = Float64Array.from({ length: 18 }, (_, i) => 85 - 10 * i); // descending, north at the top
    const map = renderHeatmap(heatmapInput(new Array<number>(18 * 36).fill(1), 18, 36, {
      x: { name: 'lon', units: 'degrees_east', values: lon, indices: indices(36) },
      y: { name: 'lat', units: 'degrees_north', values: lat, indices: indices(18) },
    }));
    const { field, xAxis, yAxis, width } = map.layout;
    expect(xAxis.title).toBe('lon (degrees_east)');
    expect(xAxis.ticks.length).toBeGreaterThanOrEqual(3);
    for (const t of xAxis.ticks) {
      const v = Number(t.label);
      expect(v).toBe(t.value);
      // Cell i's centre holds -175 + 10 i: a value v lies (v + 175) / 10 cells in, plus half a cell.
      expect(t.position).toBeCloseTo(field.x + (((v + 175) / 10 + 0.5) * field.width) / 36, 6);
      // The tick mark is drawn there, just below the field.
      expect(pixelOf(map.pixels, width, t.position, field.y + field.height + 3)).toEqual([0, 0, 0]);
    }
    expect(xAxis.ticks.map((t) => t.label)).toContain('0');
    for (const t of yAxis.ticks) {
      const v = Number(t.label);
      expect(t.position).toBeCloseTo(field.y + (((85 - v) / 10 + 0.5) * field.height) / 18, 6);
    }
  });

  it('labels a CF time axis with dates at the days they name', () => {
    const days = Float64Array.from({ length: 365 }, (_, i) => i);
    const map = renderHeatmap(heatmapInput(new Array<number>(365 * 4).fill(1), 365, 4, {
      y: { name: 'time', units: 'days since 2024-01-01', values: days, indices: indices(365), time: { unitMs: 86_400_000, epochMs: Date.UTC(2024, 0, 1) } },
    }));
    const { field, yAxis } = map.layout;
    expect(yAxis.title).toBe('time');
    expect(yAxis.ticks.length).toBeGreaterThanOrEqual(3);
    for (const t of yAxis.ticks) {
      expect(t.label).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
      const day = (Date.parse(t.label.length === 7 ? `${t.label}-01T00:00:00Z` : `${t.label}T00:00:00Z`) - Date.UTC(2024, 0, 1)) / 86_400_000;
      expect(t.value).toBe(day);
      expect(t.position).toBeCloseTo(field.y + ((day + 0.5) * field.height) / 365, 6);
    }
  });

  it('labels chosen cells with their own values when the coordinate is not sorted', () => {
    const station = Float64Array.of(7, 3, 9, 1);
    const map = renderHeatmap(heatmapInput([1, 2, 3, 4], 1, 4, { x: { name: 'station', values: station, indices: indices(4) } }));
    const { field, xAxis } = map.layout;
    for (const t of xAxis.ticks) {
      const cell = Array.from(station).indexOf(Number(t.label));
      expect(cell).toBeGreaterThanOrEqual(0);
      expect(t.position).toBeCloseTo(field.x + ((cell + 0.5) * field.width) / 4, 6);
    }
  });
});

describe('line plot', () => {
  it('draws each value where the axes say it is, and breaks the line at a missing value', () => {
    const plot = renderLinePlot({ values: Float64Array.of(1, 2, NaN, 4, 5), x: { name: 'step', values: Float64Array.of(0, 1, 2, 3, 4), indices: indices(5) }, yTitle: 'v (m)' });
    const { points, xAxis, yAxis, width, yRange } = plot.layout;
    expect(yRange).toEqual({ min: 1, max: 5 });
    expect(points[2]).toBeUndefined();
    const tickAt = (ticks: readonly { value: number | string; position: number }[], v: number) => ticks.find((t) => t.value === v)?.position;
    for (const [i, v] of [[0, 1], [1, 2], [3, 4], [4, 5]] as const) {
      const p = at(points, i)!;
      expect(p.x).toBeCloseTo(tickAt(xAxis.ticks, i)!, 6);
      expect(p.y).toBeCloseTo(tickAt(yAxis.ticks, v)!, 6);
      expect(pixelOf(plot.pixels, width, p.x, p.y)).toEqual([...LINE_COLOUR]);
    }
    // Halfway between the values around the gap, where a line would pass, there is none.
    const [a, b] = [at(points, 1)!, at(points, 3)!];
    expect(pixelOf(plot.pixels, width, (a.x + b.x) / 2, (a.y + b.y) / 2)).not.toEqual([...LINE_COLOUR]);
    // Between two present values the line is drawn.
    const [c, d] = [at(points, 3)!, at(points, 4)!];
    expect(pixelOf(plot.pixels, width, (c.x + d.x) / 2, (c.y + d.y) / 2)).toEqual([...LINE_COLOUR]);
  });

  it('draws all-missing values as no data', () => {
    const plot = renderLinePlot({ values: Float64Array.of(NaN, NaN), x: { name: 'i', indices: [0, 1] }, yTitle: 'v' });
    expect(plot.layout.noData).toBe(true);
    expect(plot.layout.yAxis.ticks).toEqual([]);
    const { plot: rect, width } = plot.layout;
    expect(NO_DATA).toContainEqual(pixelOf(plot.pixels, width, rect.x + 3, rect.y + 3));
  });
});

describe('pixels for a canvas', () => {
  it('turns RGB into opaque RGBA, pixel for pixel', () => {
    const r = new Raster(3, 1);
    r.set(0, 0, [1, 2, 3]);
    r.set(2, 0, [250, 0, 128]);
    expect(Array.from(rgbToRgba(r.pixels))).toEqual([1, 2, 3, 255, 255, 255, 255, 255, 250, 0, 128, 255]);
    const map = renderHeatmap(heatmapInput([0, NaN, 1, 0.5], 2, 2));
    const rgba = rgbToRgba(map.pixels);
    expect(rgba.length).toBe(map.layout.width * map.layout.height * 4);
    const centre = cellCentre(map.layout.field, 2, 2, 1, 0);
    const i = (Math.round(centre.y) * map.layout.width + Math.round(centre.x)) * 4;
    expect(Array.from(rgba.subarray(i, i + 4))).toEqual([...VIRIDIS_1, 255]);
  });
});

describe('floe plot', () => {
  it('writes a titled heat map of a 2-D slice, coloured by value', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const out = path.join(dir, 'day1.png');
    const r = await floe(['plot', 'v1:/weather/temperature[1]', '-o', out, '--repo', repoPath, '--json', '--vmin', '270', '--vmax', '272'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { kind: string; width: number; height: number; min: number; max: number; noData: boolean };
    expect(report).toMatchObject({ kind: 'heatmap', min: 270, max: 272, noData: false });
    const png = decode(readFileSync(out));
    expect([png.width, png.height]).toEqual([report.width, report.height]);
    expect(png.width).toBeGreaterThan(400);
    // fieldValue(1, y, x) = 271 + y/10 + x/100: cell (0, 0) is 271.0, the middle of 270..272.
    const data = png.data as Uint8Array;
    const row = (y: number) => Array.from({ length: png.width }, (_, x) => Array.from(data.subarray((y * png.width + x) * png.channels, (y * png.width + x) * png.channels + 3)).join());
    const hits = Array.from({ length: png.height }, (_, y) => row(y).filter((c) => c === VIRIDIS_HALF.join()).length);
    expect(Math.max(...hits)).toBeGreaterThan(5);
  });

  it('draws a 1-D selection as a line plot', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const r = await floe(['plot', 'v1:/weather/temperature[:, 2, 3]', '-o', 'series.png', '--repo', repoPath], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^wrote series\.png: 6 values as \d+ x \d+ px, y from /);
    expect(decode(readFileSync(path.join(dir, 'series.png'))).width).toBeGreaterThan(400);
  });

  it('refuses 0-D and 3-D selections with a hint, vmin above vmax and unknown colour maps', async () => {
    const dir = tempDir();
    const { repoPath } = await sampleRepository(dir);
    const three = await floe(['plot', 'main:/weather/temperature', '--repo', repoPath], { cwd: dir });
    expect(three.code).toBe(2);
    expect(three.stderr).toContain('plot draws 2');
    const inverted = await floe(['plot', 'main:/weather/temperature[0]', '--vmin', '300', '--vmax', '250', '--repo', repoPath], { cwd: dir });
    expect(inverted.code).toBe(1);
    expect(inverted.stderr).toMatch(/^floe plot: INVALID_ARGUMENT: vmin \(300\) must be less than vmax \(250\)/);
    const cmap = await floe(['plot', 'main:/weather/temperature[0]', '--cmap', 'rainbow', '--repo', repoPath], { cwd: dir });
    expect(cmap.code).toBe(1);
    expect(cmap.stderr).toContain('INVALID_ARGUMENT: no colour map "rainbow"');
  });
});
