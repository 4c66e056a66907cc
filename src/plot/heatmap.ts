// A 2-D field as an RGB heat map a reader can take to a slide: a title block, the field (row 0 at
// the top like NumPy/matplotlib's imshow; small fields enlarged with crisp cells, large ones
// sampled), x and y axes with ticks in coordinate units (dates for CF time), and a colour bar
// from vmin (bottom) to vmax (top) labelled with its ends and nice values between, titled with
// the units. Missing values are hatched grey; an all-missing field says "no data" and has no
// colour bar. Pure (no Node APIs): the layout says where everything went, for tests and callers.
import { floeError } from '../errors.ts';
import { buildAxis, type Axis, type AxisSpec, type AxisTick } from './axis.ts';
import {
  drawNoData, drawTitle, drawXAxis, drawYAxis, horizontalFits, LABEL_GAP, LINE_HEIGHT, MARGIN, TEXT_SCALE, TICK_LENGTH,
  titleBlock, verticalFits, X_AXIS_HEIGHT, yAxisWidth, type TitleBlock,
} from './chart.ts';
import { colormapByName, missingAt, type Colormap, type Rgb } from './colormap.ts';
import { resolveRange, type RequestedRange, type ValueRange } from './colour-range.ts';
import { textWidth } from './font.ts';
import { BLACK, Raster, type Rect } from './raster.ts';
import { numericTicks } from './ticks.ts';

export interface HeatmapInput {
  /** rows x cols values, C order. */
  readonly values: ArrayLike<number>;
  readonly rows: number;
  readonly cols: number;
  /** The rows' dimension (drawn down the y axis) and the columns' (along x). */
  readonly y: AxisSpec;
  readonly x: AxisSpec;
  /** Title, then subtitle lines. */
  readonly title?: readonly string[];
  /** The array's units: the colour bar's title. */
  readonly units?: string | undefined;
  readonly colormap?: Colormap;
  readonly range?: RequestedRange;
}

export interface Colourbar {
  readonly rect: Rect;
  readonly min: number;
  readonly max: number;
  readonly units: string | undefined;
  /** position: the y pixel of the value; the first tick is max (top), the last min (bottom). */
  readonly ticks: readonly AxisTick[];
}

export interface HeatmapLayout {
  readonly width: number;
  readonly height: number;
  readonly title: TitleBlock;
  /** Where the field is drawn: cell (r, c) covers [x + c*w/cols, x + (c+1)*w/cols) and likewise down. */
  readonly field: Rect;
  readonly xAxis: Axis;
  readonly yAxis: Axis;
  /** Undefined when nothing is finite (no data). */
  readonly colourbar: Colourbar | undefined;
  readonly noData: boolean;
}

export interface Heatmap {
  readonly layout: HeatmapLayout;
  /** RGB, row-major, 3 bytes per pixel. */
  readonly pixels: Uint8Array;
  readonly range: ValueRange | undefined;
}

const BAR_WIDTH = 20;
const BAR_GAP = 24;
/** Neither side of the field is drawn narrower than this (a long thin selection is stretched), so both axes get ticks. */
const MIN_FIELD = 192;

/** Small fields are enlarged to about 512 px on their long side, large ones sampled down to 1024 px. */
export function fieldSize(rows: number, cols: number): { width: number; height: number } {
  const longest = Math.max(rows, cols, 1);
  const scale = longest < 256 ? 512 / longest : Math.min(1, 1024 / longest);
  return { width: Math.max(MIN_FIELD, Math.round(cols * scale)), height: Math.max(MIN_FIELD, Math.round(rows * scale)) };
}

/** A colour bar's label: up to 4 significant digits, exponent form when large or tiny. */
export function barLabel(v: number): string {
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs >= 1e6 || abs < 1e-3) return v.toExponential(2).replace('e+', 'e');
  return String(Number(v.toPrecision(4)));
}

function colourbarTicks(range: ValueRange, rect: Rect): AxisTick[] {
  const y = (v: number) => rect.y + (1 - (v - range.min) / (range.max - range.min)) * (rect.height - 1);
  const ends = [{ value: range.max, label: barLabel(range.max), position: y(range.max) }, { value: range.min, label: barLabel(range.min), position: y(range.min) }];
  const room = LINE_HEIGHT + 8;
  const inner = numericTicks(range.min, range.max, Math.max(2, Math.floor(rect.height / (LINE_HEIGHT + 12))))
    .map((t) => ({ value: t.value, label: t.label, position: y(t.value) }))
    .filter((t) => ends.every((e) => Math.abs(e.position - t.position) >= room))
    .reverse();
  const [top, bottom] = ends as [AxisTick, AxisTick];
  return [top, ...inner, bottom];
}

export function layoutHeatmap(input: HeatmapInput, range: ValueRange | undefined): HeatmapLayout {
  const { rows, cols } = input;
  const size = fieldSize(rows, cols);
  const [cellW, cellH] = [size.width / Math.max(1, cols), size.height / Math.max(1, rows)];
  // Axes are built at the origin, then moved once the space their labels take is known.
  const xAt0 = buildAxis(input.x, (i) => (i + 0.5) * cellW, [0, size.width], horizontalFits);
  const yAt0 = buildAxis(input.y, (i) => (i + 0.5) * cellH, [0, size.height], verticalFits);
  const title = titleBlock(input.title ?? [], MARGIN, MARGIN);
  const field: Rect = { x: MARGIN + yAxisWidth(yAt0), y: MARGIN + title.height + (title.height > 0 ? 8 : 0), width: size.width, height: size.height };
  const shift = (axis: Axis, by: number): Axis => ({ title: axis.title, ticks: axis.ticks.map((t) => ({ ...t, position: t.position + by })) });
  const [xAxis, yAxis] = [shift(xAt0, field.x), shift(yAt0, field.y)];
  let right = field.x + field.width;
  let colourbar: Colourbar | undefined;
  if (range) {
    const rect = { x: right + BAR_GAP, y: field.y, width: BAR_WIDTH, height: field.height };
    const ticks = colourbarTicks(range, rect);
    colourbar = { rect, min: range.min, max: range.max, units: input.units, ticks };
    right = rect.x + rect.width + TICK_LENGTH + LABEL_GAP + Math.max(...ticks.map((t) => textWidth(t.label, TEXT_SCALE))) + (input.units ? 10 + LINE_HEIGHT : 0);
  }
  const lastX = xAxis.ticks[xAxis.ticks.length - 1];
  const overhang = lastX ? lastX.position + textWidth(lastX.label, TEXT_SCALE) / 2 : 0;
  const width = Math.ceil(Math.max(right, overhang, title.width + MARGIN) + MARGIN);
  const height = field.y + field.height + 1 + X_AXIS_HEIGHT + MARGIN;
  return { width, height, title, field, xAxis, yAxis, colourbar, noData: range === undefined };
}

export function renderHeatmap(input: HeatmapInput): Heatmap {
  const { values, rows, cols } = input;
  if (!(Number.isInteger(rows) && Number.isInteger(cols) && rows > 0 && cols > 0)) throw floeError('INVALID_ARGUMENT', `a heat map needs at least one row and one column, got ${rows} x ${cols}`);
  if (values.length < rows * cols) throw floeError('INVALID_ARGUMENT', `a ${rows}x${cols} heatmap needs ${rows * cols} values, got ${values.length}`);
  const colormap = input.colormap ?? colormapByName('viridis');
  const range = resolveRange(values, input.range ?? {}, colormap.kind);
  const layout = layoutHeatmap(input, range);
  const raster = new Raster(layout.width, layout.height);
  const value = (i: number): number => {
    const v = values[i]; // i < rows * cols <= values.length; only a sparse array has a hole there
    if (v === undefined) throw floeError('INVALID_ARGUMENT', `heat map value ${i} of ${values.length} is missing`);
    return v;
  };
  const { field } = layout;
  const colourOf = (v: number, x: number, y: number): Rgb =>
    !range || !Number.isFinite(v) ? missingAt(x, y) : colormap.colour((v - range.min) / (range.max - range.min));
  for (let py = 0; py < field.height; py++) {
    const r = Math.min(rows - 1, Math.floor((py * rows) / field.height));
    for (let px = 0; px < field.width; px++) {
      const c = Math.min(cols - 1, Math.floor((px * cols) / field.width));
      raster.set(field.x + px, field.y + py, colourOf(value(r * cols + c), field.x + px, field.y + py));
    }
  }
  raster.frame(field, BLACK);
  drawTitle(raster, layout.title);
  drawXAxis(raster, layout.xAxis, field);
  drawYAxis(raster, layout.yAxis, field);
  if (layout.colourbar) drawColourbar(raster, layout.colourbar, colormap);
  else drawNoData(raster, field);
  return { layout, pixels: raster.pixels, range };
}

function drawColourbar(raster: Raster, bar: Colourbar, colormap: Colormap): void {
  const { rect } = bar;
  for (let py = 0; py < rect.height; py++) {
    raster.fill({ x: rect.x, y: rect.y + py, width: rect.width, height: 1 }, colormap.colour(1 - py / Math.max(1, rect.height - 1)));
  }
  raster.frame(rect, BLACK);
  const x = rect.x + rect.width + 1;
  for (const t of bar.ticks) {
    raster.fill({ x, y: Math.round(t.position), width: TICK_LENGTH, height: 1 }, BLACK);
    raster.text(t.label, x + TICK_LENGTH + LABEL_GAP, Math.round(t.position - (7 * TEXT_SCALE) / 2), TEXT_SCALE, BLACK);
  }
  if (bar.units) {
    const labelsRight = x + TICK_LENGTH + LABEL_GAP + Math.max(...bar.ticks.map((t) => textWidth(t.label, TEXT_SCALE)));
    const w = textWidth(bar.units, TEXT_SCALE);
    raster.text(bar.units, labelsRight + 10, Math.round(rect.y + (rect.height - w) / 2), TEXT_SCALE, BLACK, true);
  }
}
