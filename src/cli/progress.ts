// Progress for long work (import, export, gc, the demo's writes). On a terminal: one bar redrawn
// in place with rate and ETA. Otherwise (logs, CI, pipes): a plain line every few seconds and one
// at the end, so a log shows progress without thousands of carriage returns.
import { formatBytes } from './node-summary.ts';
import type { OutputStream } from './io.ts';

export interface ProgressOptions {
  readonly label: string;
  /** Total units of work when known; without it there is no percentage or ETA. */
  readonly total?: number;
  readonly unit: 'bytes' | 'items';
  readonly stream: OutputStream;
  readonly now: () => number;
  /** Minimum time between redraws: default 100 ms on a terminal, 2 s otherwise. */
  readonly intervalMs?: number;
  readonly barWidth?: number;
  /** More to show after the amount, on each redraw (a distributed import's tasks done). */
  readonly detail?: () => string;
}

export class Progress {
  private done = 0;
  private readonly started: number;
  private lastDraw = -Infinity;
  private finished = false;

  constructor(private readonly options: ProgressOptions) {
    this.started = options.now();
  }

  private get tty(): boolean {
    return this.options.stream.isTTY === true;
  }

  add(units: number): void {
    this.done += units;
    const now = this.options.now();
    if (now - this.lastDraw >= (this.options.intervalMs ?? (this.tty ? 100 : 2000))) {
      this.lastDraw = now;
      this.draw(now);
    }
  }

  /** Ends the bar with a summary line: what was done, how long it took, at what rate. */
  finish(note = ''): void {
    if (this.finished) return;
    this.finished = true;
    const seconds = (this.options.now() - this.started) / 1000;
    const line = `${this.options.label}: ${this.amount(this.done)} in ${seconds.toFixed(1)} s (${this.rate(seconds)})${note ? `, ${note}` : ''}`;
    this.options.stream.write(this.tty ? `\r${line}\x1b[K\n` : `${line}\n`);
  }

  private draw(now: number): void {
    const seconds = (now - this.started) / 1000;
    const { total } = this.options;
    const fraction = total ? Math.min(1, this.done / total) : undefined;
    const eta = fraction !== undefined && this.done > 0 && seconds > 0 ? ((total! - this.done) / (this.done / seconds)) : undefined;
    const parts = [
      fraction !== undefined ? `${(fraction * 100).toFixed(0).padStart(3)}%` : '',
      total ? `${this.amount(this.done)} of ${this.amount(total)}` : this.amount(this.done),
      this.options.detail?.() ?? '',
      this.rate(seconds),
      eta !== undefined ? `ETA ${formatDuration(eta)}` : '',
    ].filter((p) => p !== '');
    if (this.tty) {
      const width = this.options.barWidth ?? 24;
      const bar = fraction !== undefined ? `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '-')}] ` : '';
      this.options.stream.write(`\r${this.options.label} ${bar}${parts.join('  ')}\x1b[K`);
    } else {
      this.options.stream.write(`${this.options.label}: ${parts.join(', ')}\n`);
    }
  }

  private amount(n: number): string {
    return this.options.unit === 'bytes' ? formatBytes(n) : `${n} item${n === 1 ? '' : 's'}`;
  }

  private rate(seconds: number): string {
    const perSecond = seconds > 0 ? this.done / seconds : 0;
    return this.options.unit === 'bytes' ? `${formatBytes(Math.round(perSecond))}/s` : `${perSecond.toFixed(perSecond < 10 ? 1 : 0)}/s`;
  }
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
