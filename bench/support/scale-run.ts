// Shared by the scale benches (bench/scale-*.ts): each size runs in a fresh child process so its
// peak memory is its own, measured as Linux's VmHWM reset just before the measured steps (see
// bench/support/full-read-probe.ts for why not resourceUsage().maxRSS); the parent prints the
// load average beside every figure and says how each cost grows with size.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const MiB = 1024 * 1024;

/** Peak RSS (bytes) since the last {@link resetPeakRss}; maxRSS where /proc is missing. */
export function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {}
  return process.resourceUsage().maxRSS * 1024;
}

/** Starts a new peak: VmHWM becomes the current RSS (Linux `clear_refs` 5). */
export function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {}
}

export const mib = (bytes: number): string => (bytes / MiB).toFixed(0);
export const loadAverage = (): string => os.loadavg().map((l) => l.toFixed(1)).join(' ');
export const fmtMs = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** One measured step in a child: wall time, CPU time (this process), peak RSS during it. */
export interface StepFigure {
  ms: number;
  cpuMs: number;
  peakBytes: number;
  /** RSS just before the step. */
  rssBeforeBytes: number;
  /** The 1-minute load average when the step ended. */
  load: number;
}

/** Runs `step` with the peak reset before it; returns its figure and value. */
export async function measured<T>(step: () => Promise<T>): Promise<{ figure: StepFigure; value: T }> {
  resetPeakRss();
  const rssBeforeBytes = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await step();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { value, figure: { ms, cpuMs: (cpu.user + cpu.system) / 1000, peakBytes: peakRss(), rssBeforeBytes, load: os.loadavg()[0] ?? 0 } };
}

/** The last JSON line a child printed. */
export function lastJsonLine<T>(stdout: string): T | undefined {
  const line = stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  return line === undefined ? undefined : (JSON.parse(line) as T);
}

export interface ChildOptions {
  /** Node flags, e.g. --max-old-space-size. */
  nodeArgs?: readonly string[];
  timeoutMs?: number;
}

/**
 * Runs `script` (a TypeScript bench) in a fresh process with `args` and returns its last JSON line.
 * Its stderr is passed through (progress); a failure throws with the end of it.
 */
export function runChild<T>(script: string, args: readonly string[], options: ChildOptions = {}): T {
  const result = spawnSync(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', '--no-warnings', script, ...args], {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60 * 60_000,
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reply = lastJsonLine<T>(result.stdout ?? '');
  if (result.status !== 0 || reply === undefined) {
    const why = result.error ? result.error.message : result.signal ? `signal ${result.signal}` : `exit ${result.status}`;
    throw new Error(`child ${script} ${args.join(' ')} failed (${why}): ${(result.stdout ?? '').slice(-2000)}`);
  }
  return reply;
}

/** Least-squares line y = a + b x and its sum of squared residuals. */
function fitLine(xs: readonly number[], ys: readonly number[]): { a: number; b: number; sse: number } {
  const mean = (v: readonly number[]) => v.reduce((p, q) => p + q, 0) / v.length;
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let den = 0;
  for (const [i, x] of xs.entries()) {
    num += (x - mx) * ((ys[i] ?? my) - my);
    den += (x - mx) ** 2;
  }
  const b = den === 0 ? 0 : num / den;
  const a = my - b * mx;
  const sse = xs.reduce((sum, x, i) => sum + ((ys[i] ?? my) - (a + b * x)) ** 2, 0);
  return { a, b, sse };
}

/**
 * How a cost grows with size, from ≥ 3 sizes (spread over decades, smallest first). Constant when
 * the cost at the largest size is under 1.5x the cost at the smallest, or grew by under 0.1 ms
 * (a loaded machine's scheduling noise on one step); otherwise whichever of a + b·size (linear) and a + b·ln(size)
 * (log) fits the points with the smaller squared error, with its slope: per `unit` for linear, per
 * tenfold size for log. Three points on a loaded machine can mislead: the slope is printed so a
 * reader can judge, and the costs themselves stand beside it.
 */
export function growth(sizes: readonly number[], costs: readonly number[], unit = 'unit', costUnit = 'ms'): string {
  if (sizes.length < 3 || sizes.length !== costs.length) return 'n/a (fewer than 3 sizes)';
  const first = costs[0] ?? 0;
  const last = costs[costs.length - 1] ?? 0;
  const noise = costUnit === 'ms' ? 0.1 : 0;
  if (last < 1.5 * first || last - first < noise) return `constant (${costs.map(fmtMs).join(' → ')} ${costUnit})`;
  const linear = fitLine(sizes, costs);
  const log = fitLine(sizes.map(Math.log), costs);
  if (linear.sse <= log.sse) return `linear (+${fmtPerUnit(linear.b)} ${costUnit} per ${unit})`;
  return `log (+${fmtMs(log.b * Math.LN10)} ${costUnit} per 10x)`;
}

const fmtPerUnit = (x: number): string => (Math.abs(x) >= 0.01 ? x.toPrecision(3) : x.toExponential(2));

/** Prints a markdown table. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly ('l' | 'r')[] = []): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (align[i] === 'l' ? '---' : '---:')).join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}
