// Another process's resident memory from /proc/<pid>/status (Linux): VmRSS now and VmHWM, the
// kernel's own peak since the process started, so a spike between two samples is not missed.
// A watch samples on an interval and kills the process by PID past a bound, so a regression
// fails the test instead of exhausting the machine.
import { readFileSync } from 'node:fs';

export interface RssReading {
  /** Resident bytes now. */
  readonly rss: number;
  /** Peak resident bytes since the process started. */
  readonly peak: number;
}

/** The process's RSS and peak RSS, or undefined once it has exited. */
export function readRss(pid: number): RssReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

export interface RssWatch {
  /** The highest VmHWM seen (bytes). */
  readonly peak: () => number;
  readonly samples: () => number;
  /** True when the watch killed the process for passing `killAboveBytes`. */
  readonly killed: () => boolean;
  stop(): void;
}

/** Samples every `intervalMs`; past `killAboveBytes` the process gets SIGKILL. */
export function watchRss(pid: number, options: { readonly intervalMs: number; readonly killAboveBytes: number }): RssWatch {
  let peak = 0;
  let samples = 0;
  let killed = false;
  const sample = () => {
    const reading = readRss(pid);
    if (!reading) return;
    samples++;
    peak = Math.max(peak, reading.peak, reading.rss);
    if (peak > options.killAboveBytes && !killed) {
      killed = true;
      process.kill(pid, 'SIGKILL');
    }
  };
  sample();
  const timer = setInterval(sample, options.intervalMs);
  return {
    peak: () => peak,
    samples: () => samples,
    killed: () => killed,
    stop: () => {
      clearInterval(timer);
      sample();
    },
  };
}
