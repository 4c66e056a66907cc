// Runs a memory-hungry case in a child process under an RSS watchdog, so a regression (a bomb
// inflated in full) fails the test instead of exhausting the machine. A V8 heap limit alone would
// not do: Buffers and native zstd/lzma memory live outside the heap. The watchdog polls the child's
// /proc/<pid>/status (VmRSS, and VmHWM, the kernel's high-water mark) and kills the child by its pid
// once either passes the bound, or once the time limit passes.
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

/** VmRSS and VmHWM of a live process in bytes; zeros once it has gone. */
function readRss(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
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
  let peak = 0;
  let killed: WatchdogResult['killed'] = false;
  const kill = (why: 'rss' | 'timeout'): void => {
    if (killed || pid === undefined) return;
    killed = why;
    process.kill(pid, 'SIGKILL');
  };
  const poll = setInterval(() => {
    if (pid === undefined) return;
    const { rss, hwm } = readRss(pid);
    peak = Math.max(peak, rss, hwm);
    if (peak > options.maxRssBytes) kill('rss');
  }, options.pollMs ?? 5);
  const deadline = setTimeout(() => kill('timeout'), options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearInterval(poll);
      clearTimeout(deadline);
      reject(err);
    });
    child.once('close', (code) => {
      clearInterval(poll);
      clearTimeout(deadline);
      resolve({ exitCode: code, peakRssBytes: peak, killed, stdout, stderr });
    });
  });
}
