// Runs a memory-hungry case in a child process under an RSS watchdog, so a regression (a bomb
// inflated in full) fails the test instead of exhausting the machine. A V8 heap limit alone would
// not do: Buffers and native zstd/lzma memory live outside the heap. The watchdog polls the child's
// /proc/<pid>/status (VmRSS, and VmHWM, the kernel's high-water mark) and kills the child by its pid
// once either passes the bound, or once the time limit passes. watchRss does the same for a
// process started elsewhere (a server under test): sampled on an interval, killed by PID.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface WatchdogOptions {
  /** Kill the child once its resident set passes this many bytes. */
  readonly maxRssBytes: number;
  /** Kill the child after this long. Default 60 s. */
  readonly timeoutMs?: number;
  /** How often /proc is read. Default 5 ms. */
  readonly pollMs?: number;
  /** Node flags before the script; default `--import tsx` (scripts may be TypeScript). */
  readonly execArgv?: readonly string[];
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface WatchdogResult {
  /** The child's exit code; null when a signal ended it. */
  readonly exitCode: number | null;
  /** The highest RSS seen (VmHWM where /proc has it), in bytes. */
  readonly peakRssBytes: number;
  /** Why the watchdog killed the child, or false when it ended by itself. */
  readonly killed: false | 'rss' | 'timeout';
  readonly stdout: string;
  readonly stderr: string;
}

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
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
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

/** Runs `node <execArgv> <script> <args>` and watches its memory until it exits or is killed. */
export function runWithRssWatchdog(script: string, args: readonly string[], options: WatchdogOptions): Promise<WatchdogResult> {
  const child = spawn(process.execPath, [...(options.execArgv ?? ['--import', 'tsx']), script, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const watch = pid === undefined ? undefined : watchRss(pid, { intervalMs: options.pollMs ?? 5, killAboveBytes: options.maxRssBytes });
  let timedOut = false;
  const deadline = setTimeout(() => {
    if (pid === undefined || watch?.killed()) return;
    timedOut = true;
    process.kill(pid, 'SIGKILL');
  }, options.timeoutMs ?? 60_000);
  const finish = (): { peak: number; killed: WatchdogResult['killed'] } => {
    clearTimeout(deadline);
    watch?.stop();
    return { peak: watch?.peak() ?? 0, killed: watch?.killed() ? 'rss' : timedOut ? 'timeout' : false };
  };
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      finish();
      reject(err);
    });
    child.once('close', (code) => {
      const { peak, killed } = finish();
      resolve({ exitCode: code, peakRssBytes: peak, killed, stdout, stderr });
    });
  });
}
