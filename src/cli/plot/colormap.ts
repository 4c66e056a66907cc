// Viridis (matplotlib's default map: perceptually uniform, readable in greyscale and by most
// colour-blind readers), as nine anchor colours with linear interpolation between them.
import { checkedAt } from '../../engine/indexing.ts';

export type Rgb = readonly [number, number, number];

const VIRIDIS: readonly Rgb[] = [
  [68, 1, 84], [72, 36, 117], [59, 82, 139], [44, 114, 142], [33, 145, 140],
  [40, 174, 128], [94, 201, 98], [173, 220, 48], [253, 231, 37],
];

/** Missing values (NaN, the fill value of most float arrays) are drawn in light grey. */
export const MISSING: Rgb = [200, 200, 200];

/** The colour of `t` in [0, 1] (clamped). */
export function viridis(t: number): Rgb {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  // i is clamped to [0, VIRIDIS.length - 2], so both stops exist.
  const a = checkedAt(VIRIDIS, i, 'INVALID_ARGUMENT', 'colormap stop');
  const b = checkedAt(VIRIDIS, i + 1, 'INVALID_ARGUMENT', 'colormap stop');
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}
