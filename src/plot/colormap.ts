// Colour maps by name. Sequential maps for quantities (viridis, the default: perceptually uniform,
// readable in greyscale and by most colour-blind readers; magma; greys) and diverging maps for
// anomalies and differences (coolwarm, bwr), each as anchor colours with linear interpolation.
// A `_r` suffix reverses any map. Pure: no Node APIs.
import { floeError } from '../errors.ts';

export type Rgb = readonly [number, number, number];

export interface Colormap {
  readonly name: string;
  /** Diverging maps have a neutral middle; plots then centre the default range on zero. */
  readonly kind: 'sequential' | 'diverging';
  /** The colour of `t` in [0, 1] (clamped; NaN counts as 0). */
  colour(t: number): Rgb;
}

/** matplotlib's viridis (CC0) at nine evenly spaced stops. */
const VIRIDIS: readonly Rgb[] = [
  [68, 1, 84], [72, 36, 117], [59, 82, 139], [44, 114, 142], [33, 145, 140],
  [40, 174, 128], [94, 201, 98], [173, 220, 48], [253, 231, 37],
];
/** After matplotlib's magma (CC0): black through purple and orange to pale yellow. */
const MAGMA: readonly Rgb[] = [
  [0, 0, 4], [28, 16, 68], [79, 18, 123], [129, 37, 129], [181, 54, 122],
  [229, 80, 100], [251, 135, 97], [254, 194, 135], [252, 253, 191],
];
const GREYS: readonly Rgb[] = [[255, 255, 255], [0, 0, 0]];
/** After Moreland's cool-warm: blue through a light grey to red, equal lightness steps either side. */
const COOLWARM: readonly Rgb[] = [
  [59, 76, 192], [98, 130, 234], [141, 176, 254], [184, 208, 249], [221, 221, 221],
  [245, 196, 173], [244, 154, 123], [222, 96, 77], [180, 4, 38],
];
const BWR: readonly Rgb[] = [[0, 0, 255], [255, 255, 255], [255, 0, 0]];

const MAPS: Readonly<Record<string, { stops: readonly Rgb[]; kind: Colormap['kind'] }>> = {
  viridis: { stops: VIRIDIS, kind: 'sequential' },
  magma: { stops: MAGMA, kind: 'sequential' },
  greys: { stops: GREYS, kind: 'sequential' },
  coolwarm: { stops: COOLWARM, kind: 'diverging' },
  bwr: { stops: BWR, kind: 'diverging' },
};

export const COLORMAP_NAMES: readonly string[] = Object.keys(MAPS);

/** Missing values (NaN, usually the fill value) are hatched in two greys so no map confuses them. */
export const MISSING: Rgb = [205, 205, 205];
export const MISSING_HATCH: Rgb = [160, 160, 160];

/** The no-data colour at a pixel: diagonal stripes, one darker pixel pair in every six. */
export function missingAt(x: number, y: number): Rgb {
  return (((x + y) % 6) + 6) % 6 < 2 ? MISSING_HATCH : MISSING;
}

function interpolate(stops: readonly Rgb[], t: number): Rgb {
  const clamped = Number.isNaN(t) ? 0 : Math.min(1, Math.max(0, t));
  const x = clamped * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  // i is clamped to [0, stops.length - 2], so both stops exist (every map has two or more).
  const [a, b] = [stops[i], stops[i + 1]];
  if (a === undefined || b === undefined) throw floeError('INVALID_ARGUMENT', `colour map stop ${i} of ${stops.length} is missing`);
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

/** The colour of `t` in [0, 1] on viridis. */
export const viridis = (t: number): Rgb => interpolate(VIRIDIS, t);

/** A map by name (case-insensitive; `_r` reverses); INVALID_ARGUMENT listing the names otherwise. */
export function colormapByName(name: string): Colormap {
  const lower = name.trim().toLowerCase();
  const reversed = lower.endsWith('_r');
  const base = reversed ? lower.slice(0, -2) : lower;
  const map = Object.hasOwn(MAPS, base) ? MAPS[base] : undefined;
  if (!map) {
    throw floeError('INVALID_ARGUMENT', `no colour map ${JSON.stringify(name)}; sequential: viridis, magma, greys; diverging: coolwarm, bwr (add _r to reverse one)`);
  }
  return { name: lower, kind: map.kind, colour: (t) => interpolate(map.stops, reversed ? 1 - t : t) };
}
