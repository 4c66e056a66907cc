// A 2-D field as an RGB heat map with a colour bar: the field scaled to a readable size (nearest
// neighbour: every cell stays a crisp block, and large fields are sampled, not smoothed), row 0 at
// the top like NumPy/matplotlib's imshow; on the right a vertical bar from the maximum (top) to
// the minimum (bottom) with three labels.
import { drawText, GLYPH_HEIGHT, textWidth } from './digits-font.ts';
import { floeError } from '../../errors.ts';
import { checkedAt, zipEvery } from '../../engine/indexing.ts';
import { MISSING, viridis, type Rgb } from './colormap.ts';

export interface HeatmapLayout {
  readonly width: number;
  readonly height: number;
  /** Where the field is drawn. */
  readonly field: { x: number; y: number; width: number; height: number };
  readonly bar: { x: number; y: number; width: number; height: number };
}

export interface Heatmap {
  readonly layout: HeatmapLayout;
  /** RGB, row-major, 3 bytes per pixel. */
  readonly pixels: Uint8Array;
  readonly min: number;
  readonly max: number;
}

const MARGIN = 12;
const GAP = 16;
const BAR_WIDTH = 20;
const FONT_SCALE = 2;

export function layoutFor(rows: number, cols: number, labelChars: number): HeatmapLayout {
  const longest = Math.max(rows, cols);
  // Small fields are enlarged to about 512 px, large ones sampled down to 1024 px at most.
  const scale = longest < 256 ? 512 / longest : Math.min(1, 1024 / longest);
  const fieldW = Math.max(1, Math.round(cols * scale));
  const fieldH = Math.max(GLYPH_HEIGHT * FONT_SCALE * 3, Math.round(rows * scale));
  const barX = MARGIN + fieldW + GAP;
  const labelW = textWidth('0'.repeat(labelChars), FONT_SCALE);
  return {
    width: barX + BAR_WIDTH + 8 + labelW + MARGIN,
    height: fieldH + 2 * MARGIN,
    field: { x: MARGIN, y: MARGIN, width: fieldW, height: fieldH },
    bar: { x: barX, y: MARGIN, width: BAR_WIDTH, height: fieldH },
  };
}

/** A short label for a bar value: up to 4 significant digits, exponent form when large or tiny. */
export function barLabel(v: number): string {
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs >= 1e6 || abs < 1e-3) return v.toExponential(2).replace('e+', 'e');
  return String(Number(v.toPrecision(4)));
}

export function renderHeatmap(values: ArrayLike<number>, rows: number, cols: number, range?: { min?: number; max?: number }): Heatmap {
  if (values.length < rows * cols) throw floeError('INVALID_ARGUMENT', `a ${rows}x${cols} heatmap needs ${rows * cols} values, got ${values.length}`);
  const value = (i: number): number => checkedAt(values, i, 'INVALID_ARGUMENT', 'heatmap value index out of range');
  let [min, max] = [Infinity, -Infinity];
  for (let i = 0; i < rows * cols; i++) {
    const v = value(i);
    if (Number.isFinite(v)) [min, max] = [Math.min(min, v), Math.max(max, v)];
  }
  if (range?.min !== undefined) min = range.min;
  if (range?.max !== undefined) max = range.max;
  if (!Number.isFinite(min)) [min, max] = [0, 1]; // all missing: an all-grey field
  const span = max > min ? max - min : 1;
  const labels = [barLabel(max), barLabel((min + max) / 2), barLabel(min)];
  const layout = layoutFor(rows, cols, Math.max(...labels.map((l) => l.length)));
  const pixels = new Uint8Array(layout.width * layout.height * 3).fill(255);
  const put = (x: number, y: number, c: Rgb) => pixels.set(c, (y * layout.width + x) * 3);

  const { field, bar } = layout;
  for (let py = 0; py < field.height; py++) {
    const r = Math.min(rows - 1, Math.floor((py * rows) / field.height));
    for (let px = 0; px < field.width; px++) {
      const c = Math.min(cols - 1, Math.floor((px * cols) / field.width));
      const v = value(r * cols + c);
      put(field.x + px, field.y + py, Number.isNaN(v) ? MISSING : viridis((v - min) / span));
    }
  }
  for (let py = 0; py < bar.height; py++) {
    const colour = viridis(1 - py / Math.max(1, bar.height - 1));
    for (let px = 0; px < bar.width; px++) put(bar.x + px, bar.y + py, colour);
  }
  const textH = GLYPH_HEIGHT * FONT_SCALE;
  const labelX = bar.x + bar.width + 8;
  const at = [bar.y, bar.y + Math.round((bar.height - textH) / 2), bar.y + bar.height - textH];
  zipEvery(labels, at, (text, top) => (drawText(text, FONT_SCALE, (x, y) => put(labelX + x, top + y, [0, 0, 0])), true));
  return { layout, pixels, min, max };
}
