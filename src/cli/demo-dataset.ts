// The demo's dataset: a year of daily near-surface temperature on a global grid with CF-style
// coordinates. Full size is 0.5 degrees (365 x 360 x 720 float32, 378 MB); `small` is 5 degrees
// for tests. The field is synthetic but shaped like the real thing: cold poles, a seasonal cycle
// that flips between hemispheres, travelling waves and a little weather noise. Values depend
// only on (t, y, x), so any writer can produce any box and a reader can check what it reads.

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
  readonly mean: Float64Array;
  readonly season: Float64Array;
  readonly waveAmp: Float64Array;
  readonly sinLon: Float64Array;
  readonly cosLon: Float64Array;
  constructor(readonly grid: DemoGrid) {
    const phi = Array.from(latitudes(grid), (d) => (d * Math.PI) / 180);
    this.mean = Float64Array.from(phi, (p) => 300 - 48 * Math.sin(p) ** 2);
    this.season = Float64Array.from(phi, (p) => 14 * Math.sin(p)); // northern summer warm, southern cold
    this.waveAmp = Float64Array.from(phi, (p) => 4 * Math.cos(p) ** 2 + 1);
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
  let k = 0;
  for (let t = t0; t < t1; t++) {
    const yearPhase = Math.cos((2 * Math.PI * (t - 200)) / 365);
    const wave = (2 * Math.PI * t) / 9; // waves travel east with a period of 9 days
    const [sw, cw] = [Math.sin(wave), Math.cos(wave)];
    for (let y = y0; y < y1; y++) {
      const rowMean = tb.mean[y]! + tb.season[y]! * yearPhase;
      const amp = tb.waveAmp[y]!;
      const seed = (t * grid.lat + y) * grid.lon;
      for (let x = x0; x < x1; x++, k++) {
        // sin(lambda - wave) = sin(lambda)cos(wave) - cos(lambda)sin(wave)
        const v = rowMean + amp * (tb.sinLon[x]! * cw - tb.cosLon[x]! * sw) + noise(seed + x);
        out[k] = Math.round(v * 100) / 100; // hundredths of a kelvin, like a packed product
      }
    }
  }
}
