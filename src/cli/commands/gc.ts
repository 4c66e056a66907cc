// `floe gc`: deletes objects no branch, tag or kept snapshot reaches, if they are older than a
// grace period (so chunks a writer is uploading right now survive). Runs in budgeted steps so it
// can show progress.
import { floeError } from '../../errors.ts';
import { GC_KINDS, GC_MINIMUM_GRACE_MS } from '../../txn/maintenance/index.ts';
import type { CommandSpec } from '../command.ts';
import { formatBytes } from '../node-summary.ts';
import { Progress } from '../progress.ts';
import { openRepositoryToWrite } from '../repository-location.ts';
import { parseCutoff } from '../time-cutoff.ts';

const STEP_OBJECTS = 2000;

export const gcCommand: CommandSpec = {
  usage: '[--older-than AGE|DATE] [--dry-run] [--force]',
  details: [
    '--older-than   only delete objects written before this (default 1h: writers in flight keep their chunks)',
    '--dry-run      count what would be deleted, delete nothing',
    '--force        accept --older-than below 1h (only when no writer can be active)',
  ].join('\n'),
  examples: ['floe gc', 'floe gc --older-than 2d --dry-run --json', 'floe gc --older-than 0 --force'],
  options: { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, force: { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(0);
    const cutoff = parseCutoff(ctx.string('older-than') ?? '1h', ctx.clock.nowMs());
    const dryRun = ctx.flags['dry-run'] === true;
    const force = ctx.flags['force'] === true;
    if (!force) refuseShortGrace(ctx.clock.nowMs() - cutoff.getTime());
    const repo = await openRepositoryToWrite(ctx, 'floe gc');
    const request = ctx.request;
    const gc = await repo.garbageCollector(cutoff, { dryRun, allowShortGrace: force, ...request });
    const progress = new Progress({ label: dryRun ? 'gc (dry run)' : 'gc', unit: 'items', stream: ctx.io.stderr, now: () => ctx.now() });
    let step = await gc.run({ maxObjects: STEP_OBJECTS }, request);
    progress.add(step.summary.scanned);
    while (!step.done) {
      const before = step.summary.scanned;
      step = await gc.run({ maxObjects: STEP_OBJECTS }, request);
      progress.add(step.summary.scanned - before);
    }
    const summary = step.summary;
    progress.finish('objects examined');
    const { wouldDelete, ...rest } = summary;
    if (ctx.json) return ctx.printJson({ olderThan: cutoff, dryRun, ...rest, ...(wouldDelete ? { wouldDelete } : {}) });
    const verb = dryRun ? 'would delete' : 'deleted';
    const parts = GC_KINDS.map((k) => `${summary.deleted[k].objects} ${k} (${formatBytes(summary.deleted[k].bytes)})`);
    ctx.print(`${verb} ${parts.join(', ')}; examined ${summary.scanned} objects older than ${cutoff.toISOString()}`);
    if (!summary.backupsSwept) ctx.print('repo-info backups were kept: the ops log chain is broken');
  },
};

/** The API's refusal, told in CLI terms: which flag overrides it. */
function refuseShortGrace(graceMs: number): void {
  if (graceMs < 0 || graceMs >= GC_MINIMUM_GRACE_MS) return; // a future cutoff: the repository's own refusal says so
  throw floeError(
    'INVALID_ARGUMENT',
    `--older-than gives a grace period of ${graceMs / 1000} s, below the minimum of ${GC_MINIMUM_GRACE_MS / 3_600_000}h: ` +
      'a commit in flight has written chunks that no snapshot references yet, and gc would delete them. ' +
      'Use --older-than 1h or more, or add --force if no writer can be active',
  );
}
