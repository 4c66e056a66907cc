// What heat maps and line plots share: text sizes, the title block, and drawing an axis's ticks,
// labels and title beside a plot rectangle. Pure: no Node APIs.
import type { Axis, AxisTick } from './axis.ts';
import { textHeight, textWidth } from './font.ts';
import { BLACK, DARK_GREY, type Raster, type Rect } from './raster.ts';

/** Text is drawn at twice the font's size: readable on a slide. */
export const TEXT_SCALE = 2;
export const LINE_HEIGHT = textHeight(TEXT_SCALE);
export const MARGIN = 16;
export const TICK_LENGTH = 5;
export const LABEL_GAP = 4;

export interface TitleBlock {
  readonly lines: readonly { readonly text: string; readonly x: number; readonly y: number }[];
  readonly height: number;
  readonly width: number;
}

/** The title (bold) and subtitle lines, top left at (x, y). */
export function titleBlock(lines: readonly string[], x: number, y: number): TitleBlock {
  const shown = lines.filter((l) => l !== '');
  return {
    lines: shown.map((text, i) => ({ text, x, y: y + i * (LINE_HEIGHT + 4) })),
    height: shown.length === 0 ? 0 : shown.length * (LINE_HEIGHT + 4),
    width: Math.max(0, ...shown.map((t) => textWidth(t, TEXT_SCALE) + 1)),
  };
}

export function drawTitle(raster: Raster, block: TitleBlock): void {
  block.lines.forEach((line, i) => {
    raster.text(line.text, line.x, line.y, TEXT_SCALE, i === 0 ? BLACK : DARK_GREY);
    if (i === 0) raster.text(line.text, line.x + 1, line.y, TEXT_SCALE, BLACK); // bold: drawn twice, one pixel apart
  });
}

/** Labels of a horizontal axis are far enough apart when their boxes leave 12 px between them. */
export const horizontalFits = (ticks: readonly AxisTick[]): boolean =>
  ticks.every((t, i) => {
    const next = ticks[i + 1];
    return !next || Math.abs(next.position - t.position) >= (textWidth(t.label, TEXT_SCALE) + textWidth(next.label, TEXT_SCALE)) / 2 + 12;
  });

/** Labels of a vertical axis need a line's height and some air. */
export const verticalFits = (ticks: readonly AxisTick[]): boolean =>
  ticks.every((t, i) => {
    const next = ticks[i + 1];
    return !next || Math.abs(next.position - t.position) >= LINE_HEIGHT + 8;
  });

/** Height below a plot that a horizontal axis takes: ticks, labels, a gap and its title. */
export const X_AXIS_HEIGHT = TICK_LENGTH + LABEL_GAP + LINE_HEIGHT + 8 + LINE_HEIGHT;

export function yLabelWidth(axis: Axis): number {
  return Math.max(0, ...axis.ticks.map((t) => textWidth(t.label, TEXT_SCALE)));
}

/** Width left of a plot that a vertical axis takes: its title (turned), labels and ticks. */
export const yAxisWidth = (axis: Axis): number => LINE_HEIGHT + 10 + yLabelWidth(axis) + LABEL_GAP + TICK_LENGTH;

export function drawXAxis(raster: Raster, axis: Axis, plot: Rect): void {
  const base = plot.y + plot.height + 1;
  for (const t of axis.ticks) {
    raster.fill({ x: Math.round(t.position), y: base, width: 1, height: TICK_LENGTH }, BLACK);
    raster.text(t.label, Math.round(t.position - textWidth(t.label, TEXT_SCALE) / 2), base + TICK_LENGTH + LABEL_GAP, TEXT_SCALE, BLACK);
  }
  const titleY = base + TICK_LENGTH + LABEL_GAP + LINE_HEIGHT + 8;
  raster.text(axis.title, Math.round(plot.x + (plot.width - textWidth(axis.title, TEXT_SCALE)) / 2), titleY, TEXT_SCALE, BLACK);
}

export function drawYAxis(raster: Raster, axis: Axis, plot: Rect): void {
  const right = plot.x - 1;
  const labelRight = right - TICK_LENGTH - LABEL_GAP;
  for (const t of axis.ticks) {
    raster.fill({ x: right - TICK_LENGTH, y: Math.round(t.position), width: TICK_LENGTH, height: 1 }, BLACK);
    // Centred on the tick by the capitals' height (descenders hang below).
    raster.text(t.label, labelRight - textWidth(t.label, TEXT_SCALE), Math.round(t.position - (7 * TEXT_SCALE) / 2), TEXT_SCALE, BLACK);
  }
  const titleWidth = textWidth(axis.title, TEXT_SCALE);
  const x = labelRight - yLabelWidth(axis) - 10 - LINE_HEIGHT;
  raster.text(axis.title, x, Math.round(plot.y + (plot.height - titleWidth) / 2), TEXT_SCALE, BLACK, true);
}

/** "no data" centred in a rectangle (an all-missing selection). */
export function drawNoData(raster: Raster, rect: Rect, text = 'no data (all values missing)'): void {
  const w = textWidth(text, TEXT_SCALE);
  const box = { x: Math.round(rect.x + (rect.width - w) / 2) - 6, y: Math.round(rect.y + (rect.height - LINE_HEIGHT) / 2) - 6, width: w + 12, height: LINE_HEIGHT + 12 };
  raster.fill(box, [255, 255, 255]);
  raster.frame(box, BLACK);
  raster.text(text, box.x + 6, box.y + 6, TEXT_SCALE, BLACK);
}
