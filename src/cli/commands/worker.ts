// `floe worker`: a worker of distributed writes (floe/distributed's runWorker) that runs the
// tasks of `floe import --distributed` until stopped. The first SIGTERM (or Ctrl-C) stops taking
// jobs and lets the task running finish (exit 0); a second one aborts it (exit 130) and its job
// returns to the queue when its lock expires.
import { floeError } from '../../errors.ts';
import { sleepAbortably } from '../../engine/abort.ts';
import { systemClock } from '../../engine/storage/clock.ts';
import type { Session } from '../../txn/session.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { runImportTask } from '../distributed-import.ts';
import { openRepository } from '../repository-location.ts';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Where Redis is: `--redis URL`, else $FLOE_REDIS_URL, else redis://127.0.0.1:6379. A password in
 * `--redis` is refused (command lines are visible to every user of the machine and kept in shell
 * histories): a Redis with a password is given by FLOE_REDIS_URL.
 */
export function redisUrl(ctx: CommandContext): string {
  const given = ctx.string('redis');
  if (given !== undefined) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new UsageError(`--redis takes a redis:// or rediss:// URL, got ${JSON.stringify(given)}`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new UsageError(`--redis takes a redis:// or rediss:// URL, got ${JSON.stringify(given)}`);
    if (url.password !== '') throw new UsageError('--redis must not hold a password (a command line is visible to every user of the machine); put the URL with its password in FLOE_REDIS_URL instead');
    return given;
  }
  return ctx.io.env.FLOE_REDIS_URL || DEFAULT_REDIS_URL;
}

/** The queue's name from `--queue` (BullMQ forbids `:` in it). */
export function queueName(ctx: CommandContext): string {
  const name = ctx.string('queue');
  if (name === undefined || name === '') throw new UsageError('--queue NAME is required (the queue of the distributed writes)');
  if (name.includes(':')) throw new UsageError(`a queue's name cannot hold ':' (BullMQ's key separator), got ${JSON.stringify(name)}`);
  return name;
}

/**
 * FOR TESTS ONLY: FLOE_TEST_TASK_DELAY_MS=N makes each task wait N ms (abortably, on the task's
 * signal) after copying its objects and before its fork is stored, so that a test can signal a
 * worker while a task is surely running (FsStorage reads synchronously: no slow source stands in).
 * Not a user setting: it only slows tasks down.
 */
export const TEST_TASK_DELAY_ENV = 'FLOE_TEST_TASK_DELAY_MS';

function importHandler(ctx: CommandContext): typeof runImportTask {
  const raw = ctx.io.env[TEST_TASK_DELAY_ENV];
  const ms = raw === undefined || raw === '' ? 0 : Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new UsageError(`${TEST_TASK_DELAY_ENV} takes a whole number of milliseconds, got ${JSON.stringify(raw)}`);
  if (ms === 0) return runImportTask;
  return async (task: unknown, fork: Session, context: { signal: AbortSignal }) => {
    await runImportTask(task, fork, context);
    await sleepAbortably(systemClock, ms, context.signal, 'floe worker');
  };
}

/** A whole number of milliseconds from an option, at least `min`. */
function millis(ctx: CommandContext, name: string, min: number): number | undefined {
  const n = ctx.number(name);
  if (n !== undefined && (!Number.isSafeInteger(n) || n < min)) throw new UsageError(`--${name} takes a whole number >= ${min}, got ${n}`);
  return n;
}

export const workerCommand: CommandSpec = {
  usage: '--queue NAME [--redis URL] [--concurrency N] [--lock-ms MS] [--stalled-ms MS]',
  details: [
    'Runs the tasks of `floe import --distributed` enqueued on the queue, until stopped: the first SIGTERM (or Ctrl-C)',
    'finishes the task running and exits 0; a second aborts it (exit 130; its job runs again elsewhere once its lock expires).',
    '--queue NAME         the BullMQ queue (the same as the import\'s --queue; one queue serves one repository)',
    '--redis URL          redis:// or rediss:// URL without a password (default: $FLOE_REDIS_URL, else redis://127.0.0.1:6379);',
    '                     a password goes in FLOE_REDIS_URL only: a password in --redis is refused',
    '--concurrency N      tasks run at once (default 1)',
    '--lock-ms MS         the job lock (default 30000): a killed worker\'s task runs again after about this long',
    '--stalled-ms MS      how often to look for tasks of dead workers (default 15000)',
    'Needs the optional packages bullmq and ioredis. The repository must be one every worker reaches: on several',
    'machines, s3://bucket/prefix (the source stores must be at the same path on every machine). Logs a line per task',
    'on stderr; with --json, one JSON object per event on stdout.',
  ].join('\n'),
  examples: ['floe worker --repo ./climate.icechunk --queue ingest --concurrency 2', 'FLOE_REDIS_URL=redis://:secret@queue-host:6379 floe worker --repo s3://bucket/era5.icechunk --queue ingest'],
  options: {
    queue: { type: 'string' }, redis: { type: 'string' }, concurrency: { type: 'string' },
    'lock-ms': { type: 'string' }, 'stalled-ms': { type: 'string' },
  },
  async run(ctx) {
    ctx.atMost(0);
    const queue = { name: queueName(ctx), redis: redisUrl(ctx) };
    const concurrency = millis(ctx, 'concurrency', 1);
    const lockDurationMs = millis(ctx, 'lock-ms', 100);
    const stalledIntervalMs = millis(ctx, 'stalled-ms', 50);
    const settings = { ...(lockDurationMs !== undefined ? { lockDurationMs } : {}), ...(stalledIntervalMs !== undefined ? { stalledIntervalMs } : {}) };
    const stop = ctx.io.signal;
    if (stop?.aborted) throw floeError('ABORTED', 'floe worker was stopped before it started', { details: { timedOut: false } });
    // Not the command's signal: a stop lets the task running finish (see below).
    const handler = importHandler(ctx);
    const repository = await openRepository(ctx, ctx.repoPath, {});
    const { runWorker } = await import('../../distributed/index.ts');
    // --json: one object per line (JSON Lines), each written as the event happens.
    const event = (fields: Record<string, unknown>, text: string) => (ctx.json ? ctx.io.stdout.write(`${JSON.stringify(fields)}\n`) : ctx.note(`floe worker: ${text}`));
    const worker = await runWorker({
      queue, repository, handler, settings, name: `floe-worker-${process.pid}`,
      ...(concurrency !== undefined ? { concurrency } : {}),
      onEvent(e) {
        const error = e.error instanceof Error ? e.error.message : e.error === undefined ? undefined : String(e.error);
        const what = e.kind === 'task-start' ? 'started' : e.kind === 'task-written' ? 'written' : e.kind === 'fork-stored' ? 'done' : `failed: ${error}`;
        event({ event: e.kind, writeId: e.writeId, task: e.task, ...(e.fork ? { fork: e.fork } : {}), ...(error ? { error } : {}) }, `task ${e.task} of ${e.writeId} ${what}`);
      },
    });
    let forced = false;
    // Counted from the start, and listened to until the command returns: processIo's listeners
    // are once-only, and a moment with no listener would let a second signal kill the process.
    let signals = 0;
    let force = () => {};
    const onSignal = () => {
      signals += 1;
      if (signals === 2) force();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    event({ event: 'ready', queue: queue.name, pid: process.pid }, `ready on queue ${queue.name} (pid ${process.pid}); SIGTERM to stop after the task running`);
    try {
      await new Promise<void>((resolve) => {
        if (!stop) return; // no way to be stopped (in-process use without a signal): runs forever
        stop.addEventListener('abort', () => {
          force = () => {
            forced = true;
            event({ event: 'aborting' }, 'aborting the task running');
            // The aborted handler ends its task at once; BullMQ's own close may wait on Redis: give it 5 s.
            void Promise.race([worker.close({ force: true }), new Promise((r) => setTimeout(r, 5_000).unref())]).then(() => resolve());
          };
          event({ event: 'stopping' }, 'stopping: finishing the task running (signal again to abort it)');
          void worker.close().then(() => {
            force = () => {}; // the task has finished: nothing left to abort
            resolve();
          });
        }, { once: true });
      });
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    event({ event: 'stopped', forced }, forced ? 'stopped (the task running was aborted)' : 'stopped');
    if (forced) throw floeError('ABORTED', 'floe worker: the task running was aborted by a second signal; its job runs again once its lock expires', { details: { timedOut: false } });
  },
};
