// `floe` as an OS process: the real streams, an exit that comes only after every byte written to
// stdout and stderr has left the process (a pipe takes 64 KiB at a time, and process.exit would
// drop the rest), and a quiet end when the reader of our output goes away (`floe log | head`).
import { processIo } from './io.ts';
import { run } from './main.ts';

export async function main(argv: readonly string[]): Promise<never> {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', onOutputError);
  const code = await run(argv, processIo());
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Exit explicitly: worker pools and idle sockets must not keep a finished command alive.
  process.exit(code);
}

/** Resolves once everything written before it has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function onOutputError(err: NodeJS.ErrnoException): void {
  // EPIPE: whoever read our output has all it wanted; that is not a failure of the command.
  if (err.code === 'EPIPE') process.exit(0);
  process.exitCode = 1;
}
