// An RGB pixel buffer with the few drawing operations plots need: rectangles, lines and text.
// Pure (typed arrays only, no Node APIs), so a web page can put the pixels on a canvas (rgbToRgba).
import { drawText } from './font.ts';
import type { Rgb } from './colormap.ts';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];
export const DARK_GREY: Rgb = [80, 80, 80];

export class Raster {
  /** RGB, row-major, 3 bytes per pixel. */
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    background: Rgb = WHITE,
  ) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fill({ x: 0, y: 0, width, height }, background);
  }

  /** Sets one pixel; points outside the raster are ignored (text and lines may overhang). */
  set(x: number, y: number, colour: Rgb): void {
    const [px, py] = [Math.round(x), Math.round(y)];
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return;
    this.pixels.set(colour, (py * this.width + px) * 3);
  }

  /** The colour at one pixel (tests and callers reading back). */
  at(x: number, y: number): Rgb {
    const i = (Math.round(y) * this.width + Math.round(x)) * 3;
    return [this.pixels[i] ?? 0, this.pixels[i + 1] ?? 0, this.pixels[i + 2] ?? 0];
  }

  fill(rect: Rect, colour: Rgb): void {
    for (let y = Math.max(0, rect.y); y < Math.min(this.height, rect.y + rect.height); y++) {
      for (let x = Math.max(0, rect.x); x < Math.min(this.width, rect.x + rect.width); x++) this.pixels.set(colour, (y * this.width + x) * 3);
    }
  }

  /** A one-pixel outline just outside `rect`, so the rectangle's own pixels stay as drawn. */
  frame(rect: Rect, colour: Rgb): void {
    this.fill({ x: rect.x - 1, y: rect.y - 1, width: rect.width + 2, height: 1 }, colour);
    this.fill({ x: rect.x - 1, y: rect.y + rect.height, width: rect.width + 2, height: 1 }, colour);
    this.fill({ x: rect.x - 1, y: rect.y, width: 1, height: rect.height }, colour);
    this.fill({ x: rect.x + rect.width, y: rect.y, width: 1, height: rect.height }, colour);
  }

  /** A straight line (Bresenham), `thickness` pixels wide as a square brush. */
  line(x0: number, y0: number, x1: number, y1: number, colour: Rgb, thickness = 1): void {
    let [x, y] = [Math.round(x0), Math.round(y0)];
    const [xe, ye] = [Math.round(x1), Math.round(y1)];
    const [dx, dy] = [Math.abs(xe - x), -Math.abs(ye - y)];
    const [sx, sy] = [x < xe ? 1 : -1, y < ye ? 1 : -1];
    let err = dx + dy;
    const lo = -Math.floor((thickness - 1) / 2);
    // Bounded: each step moves x or y one pixel closer to the end point.
    for (let steps = 0; steps <= dx - dy; steps++) {
      for (let by = lo; by < lo + thickness; by++) for (let bx = lo; bx < lo + thickness; bx++) this.set(x + bx, y + by, colour);
      if (x === xe && y === ye) break;
      const e2 = 2 * err;
      if (e2 >= dy) (err += dy), (x += sx);
      if (e2 <= dx) (err += dx), (y += sy);
    }
  }

  text(text: string, x: number, y: number, scale: number, colour: Rgb, vertical = false): void {
    drawText(text, scale, (dx, dy) => this.set(x + dx, y + dy, colour), vertical);
  }
}

/** RGB pixels (3 bytes each) as opaque RGBA, what a canvas's ImageData holds (a page draws plots with it). */
export function rgbToRgba(rgb: Uint8Array): Uint8ClampedArray {
  const n = Math.floor(rgb.length / 3);
  const rgba = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    rgba[4 * i] = rgb[3 * i] ?? 0;
    rgba[4 * i + 1] = rgb[3 * i + 1] ?? 0;
    rgba[4 * i + 2] = rgb[3 * i + 2] ?? 0;
    rgba[4 * i + 3] = 255;
  }
  return rgba;
}
