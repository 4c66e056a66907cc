// An axis over the cells (heat map) or points (line plot) of one dimension: where each
// coordinate value lies in pixels and which ticks to label. A strictly monotonic numeric
// coordinate gets ticks at nice values (calendar dates for CF time) placed by interpolating
// between the cells' positions; any other coordinate (unsorted, strings, none) labels chosen
// cells with their own values (or positions). Pure: no Node APIs.
import { coordinateLabels } from './label-text.ts';
import { niceStep, numericTicks, dateTicks, type Tick } from './ticks.ts';
import type { TimeScale } from './time-scale.ts';

/** One dimension of a plot: its name and the labels of the cells drawn, in drawing order. */
export interface AxisSpec {
  readonly name: string;
  /** The coordinate array's `units` attribute. */
  readonly units?: string | undefined;
  /** Coordinate values of the drawn cells; undefined when the dimension has no coordinate array. */
  readonly values?: ArrayLike<number> | readonly string[] | undefined;
  /** Positions of the drawn cells in the array (labels when there are no values). */
  readonly indices: readonly number[];
  /** CF time: values are counts of units since an epoch, labelled as dates. */
  readonly time?: TimeScale | undefined;
  /** float32 coordinates print in float32's shortest form. */
  readonly float32?: boolean | undefined;
  /**
   * Dates on a calendar this layer does not know (CF's noleap, 360_day, julian, ...): the
   * caller's tick and label functions over coordinate values. Takes precedence over `time`.
   */
  readonly calendar?: AxisCalendar | undefined;
}

/** A date axis on a calendar the caller knows: its name (shown in the axis title), ticks and labels in coordinate values. */
export interface AxisCalendar {
  readonly name: string;
  /** Calendar ticks (value in coordinate units, label) inside [lo, hi], at most `maxTicks`. */
  ticks(lo: number, hi: number, maxTicks: number): Tick[];
  /** The labels of coordinate values, as the cells show them. */
  labels(values: ArrayLike<number>): string[];
}

export interface AxisTick {
  /** The coordinate value the tick names (in the coordinate's own units), or the position without one. */
  readonly value: number | string;
  readonly label: string;
  /** Pixel along the axis (x for a horizontal axis, y for a vertical one). */
  readonly position: number;
}

export interface Axis {
  readonly title: string;
  readonly ticks: readonly AxisTick[];
}

/**
 * `centre(i)` is the pixel of cell i; `extent` the pixels the axis covers (the first and last
 * cells' outer edges for a heat map, their centres for a line). `fits(ticks)` says whether labels
 * are far enough apart; the tick count shrinks until they are.
 */
export function buildAxis(spec: AxisSpec, centre: (i: number) => number, extent: readonly [number, number], fits: (ticks: readonly AxisTick[]) => boolean): Axis {
  const title = spec.calendar ? `${spec.name} (${spec.calendar.name})` : spec.time ? spec.name : spec.units ? `${spec.name} (${spec.units})` : spec.name;
  for (let maxTicks = 12; maxTicks >= 2; maxTicks--) {
    const ticks = axisTicks(spec, centre, extent, maxTicks);
    if (fits(ticks)) return { title, ticks };
  }
  const first = axisTicks(spec, centre, extent, 1);
  return { title, ticks: first.slice(0, 1) };
}

function axisTicks(spec: AxisSpec, centre: (i: number) => number, extent: readonly [number, number], maxTicks: number): AxisTick[] {
  const n = spec.indices.length;
  const numeric = numericValues(spec);
  if (numeric && n >= 2 && strictlyMonotonic(numeric)) {
    const ticks = valueTicks(spec, numeric, centre, extent, maxTicks);
    if (ticks.length >= Math.min(2, maxTicks)) return ticks;
  }
  return cellTicks(spec, centre, maxTicks);
}

function numericValues(spec: AxisSpec): Float64Array | undefined {
  const values = spec.values;
  if (values === undefined || values.length !== spec.indices.length) return undefined;
  if (Array.isArray(values) && values.some((v) => typeof v !== 'number')) return undefined;
  const out = Float64Array.from(values as ArrayLike<number>);
  return out.every(Number.isFinite) ? out : undefined;
}

function strictlyMonotonic(v: Float64Array): boolean {
  let up = true;
  let down = true;
  for (let i = 1; i < v.length; i++) {
    const [a, b] = [v[i - 1] ?? 0, v[i] ?? 0];
    if (!(b > a)) up = false;
    if (!(b < a)) down = false;
  }
  return up || down;
}

/**
 * Pixel of a coordinate value: linear between the two cells it falls between, extended past the
 * ends with the end segments' slopes (so a heat map's outer half cells get ticks too).
 */
export function positionOf(values: Float64Array, centre: (i: number) => number, v: number): number {
  const n = values.length;
  const ascending = (values[n - 1] ?? 0) > (values[0] ?? 0);
  // Binary search for the segment [k, k + 1] holding v (clamped to the end segments).
  let [lo, hi] = [0, n - 1];
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const m = values[mid] ?? 0;
    if (ascending ? v >= m : v <= m) lo = mid;
    else hi = mid;
  }
  const [a, b] = [values[lo] ?? 0, values[hi] ?? 0];
  return centre(lo) + ((v - a) / (b - a)) * (centre(hi) - centre(lo));
}

function valueTicks(spec: AxisSpec, values: Float64Array, centre: (i: number) => number, extent: readonly [number, number], maxTicks: number): AxisTick[] {
  // The coordinate values at the axis's two pixel ends, by the same interpolation.
  const valueAt = (pixel: number) => {
    const [p0, p1] = [centre(0), centre(1)];
    const [pn1, pn] = [centre(values.length - 2), centre(values.length - 1)];
    const [v0, v1, vn1, vn] = [values[0] ?? 0, values[1] ?? 0, values[values.length - 2] ?? 0, values[values.length - 1] ?? 0];
    const nearStart = Math.abs(pixel - p0) <= Math.abs(pixel - pn);
    return nearStart ? v0 + ((pixel - p0) / (p1 - p0)) * (v1 - v0) : vn + ((pixel - pn) / (pn - pn1)) * (vn - vn1);
  };
  const [ea, eb] = [valueAt(extent[0]), valueAt(extent[1])];
  const [lo, hi] = ea <= eb ? [ea, eb] : [eb, ea];
  const time = spec.time;
  const ticks: Tick[] = spec.calendar ? spec.calendar.ticks(lo, hi, maxTicks) : time
    ? dateTicks(time.epochMs + lo * time.unitMs, time.epochMs + hi * time.unitMs, maxTicks).map((t) => ({ value: (t.value - time.epochMs) / time.unitMs, label: t.label }))
    : numericTicks(lo, hi, maxTicks);
  return ticks.map((t) => ({ value: t.value, label: t.label, position: positionOf(values, centre, t.value) }));
}

/** Every k-th cell (k a nice step), labelled with its own coordinate value or its position. */
function cellTicks(spec: AxisSpec, centre: (i: number) => number, maxTicks: number): AxisTick[] {
  const n = spec.indices.length;
  if (n === 0) return [];
  const values = spec.values !== undefined && spec.values.length === n ? spec.values : undefined;
  const dated = spec.calendar !== undefined && values !== undefined && !Array.isArray(values);
  const labels = dated ? spec.calendar!.labels(values as ArrayLike<number>) : values ? coordinateLabels(values, spec.time, spec.float32 ?? false) : spec.indices.map(String);
  const step = Math.max(1, Math.ceil(niceStep(n - 1, maxTicks)));
  const ticks: AxisTick[] = [];
  for (let i = 0; i < n && ticks.length < maxTicks; i += step) {
    const raw = spec.values !== undefined && spec.values.length === n ? (spec.values as ArrayLike<number | string>)[i] : spec.indices[i];
    ticks.push({ value: raw ?? i, label: labels[i] ?? String(i), position: centre(i) });
  }
  return ticks;
}
