// What a command may touch of the outside world, injected so tests run commands in-process and
// read exactly what a user would see. `bin/floe.mjs` passes the real process streams.
import type { Clock } from '../engine/storage/clock.ts';

/** The part of a writable stream commands use; `isTTY` decides progress bars vs. plain lines. */
export interface OutputStream {
  /** Like a Node stream's: `false` asks the writer to wait for 'drain' before writing more. */
  write(text: string): unknown;
  /** A Node stream's 'drain' event; commands that stream large output wait on it (see writeAll). */
  once?(event: 'drain', listener: () => void): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Relative paths (the repository, import sources, output files) resolve against this. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Cancels the command: its storage, repository and query calls reject with ABORTED, and `serve`
   * stops. The real CLI wires it to SIGINT/SIGTERM.
   */
  readonly signal?: AbortSignal;
  /** Milliseconds, for timings and progress rates; injectable so tests control time. */
  readonly now?: () => number;
  /** Wall time for cutoffs (`gc`, `expire`) and the repositories commands open. Default: the system clock. */
  readonly clock?: Clock;
}

/** Collects output in memory: for tests, and for commands that build text before printing. */
export class BufferStream implements OutputStream {
  private readonly parts: string[] = [];
  constructor(
    readonly isTTY = false,
    readonly columns = 80,
  ) {}
  write(text: string): boolean {
    this.parts.push(text);
    return true;
  }
  get text(): string {
    return this.parts.join('');
  }
}

export function processIo(): CliIo {
  // On Node 20 (which Floe supports) the AWS SDK prints nine lines about its own future releases
  // to stderr on every S3 command; stderr is for progress and one-line errors.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const controller = new AbortController();
  // Once: a second Ctrl-C gets Node's default (exit at once) if the first one's clean stop hangs.
  process.once('SIGINT', () => controller.abort(new Error('interrupted (SIGINT)')));
  process.once('SIGTERM', () => controller.abort(new Error('terminated (SIGTERM)')));
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env, signal: controller.signal };
}

/**
 * Writes `text`, then, when the stream says its buffer is full, waits until it drains: streamed
 * output (`floe cat --json` of millions of values) then holds one piece in memory, not all of it.
 */
export async function writeAll(stream: OutputStream, text: string): Promise<void> {
  if (stream.write(text) === false && stream.once) await new Promise<void>((resolve) => stream.once?.('drain', resolve));
}
