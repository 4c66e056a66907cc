// A 1-D selection as a line plot: x along the dimension's coordinate (dates for CF time; points
// at their coordinate values when those are strictly monotonic, else evenly spaced), y the values
// on nice ticks titled with the units. Missing values break the line; all missing says "no data".
// Pure (no Node APIs): the layout gives every point's pixel, for tests and callers.
import { floeError } from '../errors.ts';
import { buildAxis, type Axis, type AxisSpec } from './axis.ts';
import {
  drawNoData, drawTitle, drawXAxis, drawYAxis, horizontalFits, MARGIN, TEXT_SCALE, titleBlock, verticalFits, X_AXIS_HEIGHT, yAxisWidth, type TitleBlock,
} from './chart.ts';
import { missingAt, type Rgb } from './colormap.ts';
import { resolveRange, type RequestedRange, type ValueRange } from './colour-range.ts';
import { textWidth } from './font.ts';
import { BLACK, Raster, type Rect } from './raster.ts';
import { niceStep, numericTicks } from './ticks.ts';

export interface LinePlotInput {
  readonly values: ArrayLike<number>;
  readonly x: AxisSpec;
  readonly title?: readonly string[];
  /** The y axis's title: the array's name and units. */
  readonly yTitle: string;
  readonly range?: RequestedRange;
}

export interface LinePlotLayout {
  readonly width: number;
  readonly height: number;
  readonly title: TitleBlock;
  readonly plot: Rect;
  readonly xAxis: Axis;
  readonly yAxis: Axis;
  /** The y range the plot spans (bottom to top); undefined without data. */
  readonly yRange: ValueRange | undefined;
  /** Each value's pixel; undefined for a missing value. */
  readonly points: readonly ({ readonly x: number; readonly y: number } | undefined)[];
  readonly noData: boolean;
}

export interface LinePlot {
  readonly layout: LinePlotLayout;
  readonly pixels: Uint8Array;
}

/** The line's colour: a strong blue that stands out on white and grey. */
export const LINE_COLOUR: Rgb = [31, 100, 180];
const PLOT_WIDTH = 640;
const PLOT_HEIGHT = 320;
const PAD = 8;

/** Without requested bounds the y axis widens to the nice ticks around the data. */
function yRangeFor(values: ArrayLike<number>, requested: RequestedRange): ValueRange | undefined {
  const range = resolveRange(values, requested, 'sequential');
  if (!range) return undefined;
  const step = niceStep(range.max - range.min, 6);
  return {
    min: requested.min ?? Math.floor(range.min / step) * step,
    max: requested.max ?? Math.ceil(range.max / step) * step,
  };
}

/** x pixel of each point inside [x0, x0 + width]: by coordinate value when strictly monotonic, else evenly. */
function xPositions(spec: AxisSpec, n: number, x0: number, width: number): number[] {
  const values = spec.values;
  const numeric = values !== undefined && values.length === n && !(Array.isArray(values) && values.some((v) => typeof v !== 'number'));
  if (numeric && n >= 2) {
    const v = Array.from(values as ArrayLike<number>);
    const [first, last] = [v[0] ?? 0, v[n - 1] ?? 0];
    const monotonic = v.every((x, i) => i === 0 || (last > first ? x > (v[i - 1] ?? 0) : x < (v[i - 1] ?? 0)));
    if (monotonic && Number.isFinite(first) && Number.isFinite(last)) return v.map((x) => x0 + ((x - first) / (last - first)) * width);
  }
  return Array.from({ length: n }, (_, i) => (n === 1 ? x0 + width / 2 : x0 + (i / (n - 1)) * width));
}

export function renderLinePlot(input: LinePlotInput): LinePlot {
  const n = input.values.length;
  if (n === 0) throw floeError('INVALID_ARGUMENT', 'a line plot needs at least one value');
  const yRange = yRangeFor(input.values, input.range ?? {});
  const title = titleBlock(input.title ?? [], MARGIN, MARGIN);
  const inner = { width: PLOT_WIDTH - 2 * PAD, height: PLOT_HEIGHT - 2 * PAD };
  // Axes at the origin first; the y axis's label width then fixes where the plot starts.
  const xs0 = xPositions(input.x, n, PAD, inner.width);
  const xAt0 = buildAxis(input.x, (i) => xs0[i] ?? 0, [PAD, PAD + inner.width], horizontalFits);
  const yValue = (v: number, top: number) => (yRange ? top + PAD + (1 - (v - yRange.min) / (yRange.max - yRange.min)) * inner.height : top);
  const yAt0: Axis = {
    title: input.yTitle,
    ticks: yRange ? numericTicks(yRange.min, yRange.max, 7).map((t) => ({ value: t.value, label: t.label, position: yValue(t.value, 0) })).reverse() : [],
  };
  const yAxisFitted = verticalFits(yAt0.ticks) ? yAt0 : { title: yAt0.title, ticks: yAt0.ticks.filter((_, i) => i % 2 === 0) };
  const plot: Rect = { x: MARGIN + yAxisWidth(yAxisFitted), y: MARGIN + title.height + (title.height > 0 ? 8 : 0), width: PLOT_WIDTH, height: PLOT_HEIGHT };
  const xAxis: Axis = { title: xAt0.title, ticks: xAt0.ticks.map((t) => ({ ...t, position: t.position + plot.x })) };
  const yAxis: Axis = { title: yAxisFitted.title, ticks: yAxisFitted.ticks.map((t) => ({ ...t, position: t.position + plot.y })) };
  const points = Array.from({ length: n }, (_, i) => {
    const v = input.values[i] ?? NaN;
    return Number.isFinite(v) && yRange ? { x: plot.x + (xs0[i] ?? 0), y: yValue(v, plot.y) } : undefined;
  });
  const lastX = xAxis.ticks[xAxis.ticks.length - 1];
  const overhang = lastX ? lastX.position + textWidth(lastX.label, TEXT_SCALE) / 2 : 0;
  const width = Math.ceil(Math.max(plot.x + plot.width, overhang, title.width + MARGIN) + MARGIN);
  const height = plot.y + plot.height + 1 + X_AXIS_HEIGHT + MARGIN;
  const layout: LinePlotLayout = { width, height, title, plot, xAxis, yAxis, yRange, points, noData: yRange === undefined };
  return { layout, pixels: draw(layout) };
}

function draw(layout: LinePlotLayout): Uint8Array {
  const raster = new Raster(layout.width, layout.height);
  const { plot, points } = layout;
  if (layout.noData) {
    for (let y = plot.y; y < plot.y + plot.height; y++) for (let x = plot.x; x < plot.x + plot.width; x++) raster.set(x, y, missingAt(x, y));
  }
  // Light grid lines at the y ticks help read values off the line.
  for (const t of layout.yAxis.ticks) raster.fill({ x: plot.x, y: Math.round(t.position), width: plot.width, height: 1 }, [228, 228, 228]);
  raster.frame(plot, BLACK);
  // Segments join neighbours that both have values; a lone value between gaps is a dot.
  points.forEach((p, i) => {
    if (!p) return;
    const next = points[i + 1];
    if (next) raster.line(p.x, p.y, next.x, next.y, LINE_COLOUR, 2);
    const alone = !points[i - 1] && !next;
    if (alone || points.length <= 60) raster.fill({ x: Math.round(p.x) - 2, y: Math.round(p.y) - 2, width: 5, height: 5 }, LINE_COLOUR);
  });
  drawTitle(raster, layout.title);
  drawXAxis(raster, layout.xAxis, plot);
  drawYAxis(raster, layout.yAxis, plot);
  if (layout.noData) drawNoData(raster, plot);
  return raster.pixels;
}
