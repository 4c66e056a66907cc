// `floe expire`: drops snapshots older than a cutoff from the history (their objects are then
// garbage for `floe gc`). Branch tips and tag targets stay unless asked to delete those refs.
// `--dry-run` plans the same expiry on the current history and prints it; nothing is written.
import { idToString } from '../../format/icechunk/ids.ts';
import type { SnapshotInfo } from '../../format/icechunk/repo-info.ts';
import type { ExpireResult, Repository } from '../../txn/index.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { openRepositoryToWrite } from '../repository-location.ts';
import { parseCutoff } from '../time-cutoff.ts';

export const expireCommand: CommandSpec = {
  usage: '--older-than AGE|DATE [--dry-run] [--delete-expired-branches] [--delete-expired-tags]',
  details: [
    'AGE is 30d, 12h, 15m, 45s or 0 (now); DATE is ISO 8601: 2026-01-01 (00:00 UTC) or 2026-01-01T12:00:00Z (a time needs its zone).',
    'Impossible dates (2026-02-30) and cutoffs in the future are refused.',
    'Branch tips and tagged snapshots are kept unless their refs are deleted.',
    '--dry-run   print what would be expired (each snapshot, the refs that would go) and change nothing',
  ].join('\n'),
  examples: ['floe expire --older-than 30d --dry-run', 'floe expire --older-than 30d', 'floe expire --older-than 2026-01-01 --delete-expired-tags --json'],
  options: { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, 'delete-expired-branches': { type: 'boolean' }, 'delete-expired-tags': { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(0);
    const given = ctx.string('older-than');
    if (given === undefined) throw new UsageError('expire needs --older-than (e.g. 30d)');
    const cutoff = parseCutoff(given, ctx.clock.nowMs());
    const dryRun = ctx.flags['dry-run'] === true;
    const repo = await openRepositoryToWrite(ctx, 'floe expire');
    const result = await repo.expireSnapshots(cutoff, {
      deleteExpiredBranches: ctx.flags['delete-expired-branches'] === true,
      deleteExpiredTags: ctx.flags['delete-expired-tags'] === true,
      dryRun,
      ...ctx.request,
    });
    if (dryRun) return printDryRun(ctx, repo, cutoff, result);
    if (ctx.json) return ctx.printJson({ olderThan: cutoff, ...result });
    ctx.print(`expired ${plural(result.releasedSnapshots.length, 'snapshot')} older than ${cutoff.toISOString()}; re-parented ${result.editedSnapshots.length}`);
    if (result.deletedBranches.length > 0) ctx.print(`deleted branches: ${result.deletedBranches.join(', ')}`);
    if (result.deletedTags.length > 0) ctx.print(`deleted tags: ${result.deletedTags.join(', ')}`);
    if (result.releasedSnapshots.length > 0) ctx.print('run `floe gc` to delete their objects');
  },
};

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The plan, each snapshot that would go with its time and message, and a reminder that nothing changed. */
async function printDryRun(ctx: CommandContext, repo: Repository, cutoff: Date, result: ExpireResult): Promise<void> {
  const info = await repo.repoInfo(ctx.request);
  const byId = new Map<string, SnapshotInfo>(info.snapshots.map((s) => [idToString(s.id), s]));
  const snapshots = result.releasedSnapshots.map((id) => {
    const s = byId.get(id);
    return { id, writtenAt: s ? new Date(Math.floor(s.flushedAt / 1000)) : null, message: s?.message ?? '' };
  });
  if (ctx.json) return ctx.printJson({ dryRun: true, olderThan: cutoff, ...result, snapshots });
  ctx.print(`would expire ${plural(snapshots.length, 'snapshot')} older than ${cutoff.toISOString()}; would re-parent ${result.editedSnapshots.length}`);
  for (const s of snapshots) ctx.print(`  ${s.id}  ${s.writtenAt?.toISOString() ?? '?'}  ${s.message}`);
  if (result.deletedBranches.length > 0) ctx.print(`would delete branches: ${result.deletedBranches.join(', ')}`);
  if (result.deletedTags.length > 0) ctx.print(`would delete tags: ${result.deletedTags.join(', ')}`);
  ctx.print('dry run: nothing was changed');
}
