// The demo's dataset: a year of daily near-surface temperature on a global grid with CF-style
// coordinates. Full size is 0.5 degrees (365 x 360 x 720 float32, 378 MB); `small` is 5 degrees
// for tests. The field is synthetic but shaped like the real thing: cold poles, a seasonal cycle
// that flips between hemispheres, travelling waves and a little weather noise. Values depend
// only on (t, y, x), so any writer can produce any box and a reader can check what it reads.
import { floeError } from '../errors.ts';

export interface DemoGrid {
  readonly time: number;
  readonly lat: number;
  readonly lon: number;
  /** Degrees between grid points. */
  readonly step: number;
  /** 73 days x half the globe each way: 5 x 2 x 2 = 20 shards. */
  readonly shard: readonly [number, number, number];
  readonly inner: readonly [number, number, number];
}

export const DEMO_GRIDS = {
  full: { time: 365, lat: 360, lon: 720, step: 0.5, shard: [73, 180, 360], inner: [1, 90, 90] },
  small: { time: 365, lat: 36, lon: 72, step: 5, shard: [73, 18, 36], inner: [1, 18, 36] },
} as const satisfies Record<string, DemoGrid>;

export const TIME_UNITS = 'days since 2024-01-01 00:00:00';

export const latitudes = (g: DemoGrid): Float64Array => Float64Array.from({ length: g.lat }, (_, i) => 90 - g.step / 2 - i * g.step);
export const longitudes = (g: DemoGrid): Float64Array => Float64Array.from({ length: g.lon }, (_, i) => -180 + g.step / 2 + i * g.step);
export const days = (g: DemoGrid): Float64Array => Float64Array.from({ length: g.time }, (_, i) => i);

/** A box of the grid: [from, to) per dimension (time, lat, lon). */
export type Box = readonly [readonly [number, number], readonly [number, number], readonly [number, number]];

export const boxSize = (box: Box): number => box.reduce((n, [a, b]) => n * (b - a), 1);

/** Per-row and per-column tables so the inner loop is a few multiply-adds, not trigonometry. */
class FieldTables {
  /** Per latitude row: mean, seasonal swing (northern summer warm, southern cold), wave amplitude. */
  readonly rows: readonly { readonly mean: number; readonly season: number; readonly waveAmp: number }[];
  /** Per longitude column: sin and cos of the wavenumber-3 phase. */
  readonly sinLon: Float64Array;
  readonly cosLon: Float64Array;
  constructor(readonly grid: DemoGrid) {
    this.rows = Array.from(latitudes(grid), (d) => {
      const p = (d * Math.PI) / 180;
      return { mean: 300 - 48 * Math.sin(p) ** 2, season: 14 * Math.sin(p), waveAmp: 4 * Math.cos(p) ** 2 + 1 };
    });
    const lambda = Array.from(longitudes(grid), (d) => (3 * d * Math.PI) / 180); // wavenumber 3
    this.sinLon = Float64Array.from(lambda, Math.sin);
    this.cosLon = Float64Array.from(lambda, Math.cos);
  }
}

const tablesByGrid = new WeakMap<DemoGrid, FieldTables>();

/** Deterministic noise in [-0.5, 0.5) from the element's position (an integer hash). */
function noise(i: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 8) / 16777216 - 0.5;
}

/** Fills `out` (C order, the box's shape) with the field inside `box`. */
export function fillBox(grid: DemoGrid, box: Box, out: Float32Array): void {
  let tb = tablesByGrid.get(grid);
  if (!tb) tablesByGrid.set(grid, (tb = new FieldTables(grid)));
  const [[t0, t1], [y0, y1], [x0, x1]] = box;
  if (!(0 <= y0 && y0 <= y1 && y1 <= grid.lat && 0 <= x0 && x0 <= x1 && x1 <= grid.lon)) {
    throw floeError('INVALID_ARGUMENT', `demo box lat ${y0}..${y1}, lon ${x0}..${x1} is outside the ${grid.lat}x${grid.lon} grid`);
  }
  const rows = tb.rows.slice(y0, y1);
  const { sinLon, cosLon } = tb;
  let k = 0;
  for (let t = t0; t < t1; t++) {
    const yearPhase = Math.cos((2 * Math.PI * (t - 200)) / 365);
    const wave = (2 * Math.PI * t) / 9; // waves travel east with a period of 9 days
    const [sw, cw] = [Math.sin(wave), Math.cos(wave)];
    let y = y0;
    for (const row of rows) {
      const rowMean = row.mean + row.season * yearPhase;
      const amp = row.waveAmp;
      const seed = (t * grid.lat + y++) * grid.lon;
      for (let x = x0; x < x1; x++, k++) {
        // sin(lambda - wave) = sin(lambda)cos(wave) - cos(lambda)sin(wave). In range: x < x1 <= grid.lon,
        // the tables' length (checked above); a for-of or a per-element check costs the fill 10-25%.
        const v = rowMean + amp * (sinLon[x]! * cw - cosLon[x]! * sw) + noise(seed + x);
        out[k] = Math.round(v * 100) / 100; // hundredths of a kelvin, like a packed product
      }
    }
  }
}
