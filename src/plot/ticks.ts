// Tick values a reader expects: multiples of 1, 2 or 5 times a power of ten for numbers, and
// calendar steps (hours, days, weeks, months, years) for dates, at most `maxTicks` of them inside
// [lo, hi]. Pure: no Node APIs.
import { dateLabel, type DatePrecision } from './label-text.ts';

export interface Tick {
  readonly value: number;
  readonly label: string;
}

/** The smallest step of 1, 2 or 5 x 10^k that puts at most `maxTicks` ticks on a span. */
export function niceStep(span: number, maxTicks: number): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const rough = span / Math.max(1, maxTicks - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}

/** Text for a tick value on a grid of `step`: as many decimals as the step needs, exponents when huge or tiny. */
export function tickLabel(value: number, step: number): string {
  if (value === 0 || Object.is(value, -0)) return '0';
  const magnitude = Math.max(Math.abs(value), step);
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    const digits = Math.max(0, Math.floor(Math.log10(Math.abs(value))) - Math.floor(Math.log10(step)));
    return value.toExponential(Math.min(6, digits)).replace('e+', 'e');
  }
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const text = value.toFixed(Math.min(10, decimals));
  return text === '-0' ? '0' : text;
}

/** Multiples of a nice step inside [lo, hi] (a tiny tolerance keeps the ends). */
export function numericTicks(lo: number, hi: number, maxTicks: number): Tick[] {
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return [];
  if (a === b) return [{ value: a, label: tickLabel(a, Math.abs(a) || 1) }];
  const step = niceStep(b - a, maxTicks);
  const eps = step * 1e-9;
  const first = Math.ceil((a - eps) / step);
  const last = Math.floor((b + eps) / step);
  const ticks: Tick[] = [];
  for (let k = first; k <= last && ticks.length <= maxTicks + 1; k++) {
    const value = Number((k * step).toPrecision(12)); // 0.1 * 3 reads as 0.3, not 0.30000000000000004
    ticks.push({ value, label: tickLabel(value, step) });
  }
  return ticks;
}

interface DateStep {
  readonly unit: 'hour' | 'day' | 'month' | 'year';
  readonly count: number;
  readonly precision: DatePrecision | 'month' | 'year';
}

const DATE_STEPS: readonly DateStep[] = [
  ...[1, 2, 3, 6, 12].map((count) => ({ unit: 'hour' as const, count, precision: 'minute' as const })),
  ...[1, 2, 7, 14].map((count) => ({ unit: 'day' as const, count, precision: 'day' as const })),
  ...[1, 2, 3, 6].map((count) => ({ unit: 'month' as const, count, precision: 'month' as const })),
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map((count) => ({ unit: 'year' as const, count, precision: 'year' as const })),
];

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The instants of one calendar step inside [lo, hi] (ms since 1970, UTC), up to `limit` of them. */
function stepInstants(step: DateStep, lo: number, hi: number, limit: number): number[] {
  const out: number[] = [];
  if (step.unit === 'hour' || step.unit === 'day') {
    const size = (step.unit === 'hour' ? HOUR : DAY) * step.count;
    for (let t = Math.ceil(lo / size) * size; t <= hi && out.length <= limit; t += size) out.push(t);
    return out;
  }
  const start = new Date(lo);
  const months = step.unit === 'month' ? step.count : 12 * step.count;
  let index = start.getUTCFullYear() * 12 + start.getUTCMonth();
  index = Math.ceil(index / months) * months;
  for (let guard = 0; out.length <= limit && guard < 100_000; guard++, index += months) {
    const t = Date.UTC(Math.floor(index / 12), index % 12, 1);
    if (t > hi) break;
    if (t >= lo) out.push(t);
  }
  return out;
}

function dateStepLabel(t: number, precision: DateStep['precision']): string {
  const iso = dateLabel(new Date(t), 'day');
  if (precision === 'year') return iso.slice(0, -6);
  if (precision === 'month') return iso.slice(0, -3);
  return dateLabel(new Date(t), precision);
}

/** Calendar ticks inside [lo, hi] (ms, UTC): the finest step with at most `maxTicks` (and at least two when any step gives two). */
export function dateTicks(lo: number, hi: number, maxTicks: number): Tick[] {
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return [];
  for (const step of DATE_STEPS) {
    const instants = stepInstants(step, a, b, maxTicks);
    if (instants.length <= maxTicks) return instants.map((t) => ({ value: t, label: dateStepLabel(t, step.precision) }));
  }
  return [];
}
