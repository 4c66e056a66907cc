// `floe expire`: drops snapshots older than a cutoff from the history (their objects are then
// garbage for `floe gc`). Branch tips and tag targets stay unless asked to delete those refs.
import { UsageError, type CommandSpec } from '../command.ts';
import { openRepository } from '../repository-location.ts';
import { parseCutoff } from '../time-cutoff.ts';

export const expireCommand: CommandSpec = {
  usage: '--older-than AGE|DATE [--delete-expired-branches] [--delete-expired-tags]',
  details: 'AGE is 30d, 12h, 15m, 45s or 0; DATE an ISO date. Branch tips and tagged snapshots are kept unless their refs are deleted.',
  examples: ['floe expire --older-than 30d', 'floe expire --older-than 2026-01-01 --delete-expired-tags --json'],
  options: { 'older-than': { type: 'string' }, 'delete-expired-branches': { type: 'boolean' }, 'delete-expired-tags': { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(0);
    const given = ctx.string('older-than');
    if (given === undefined) throw new UsageError('expire needs --older-than (e.g. 30d)');
    const cutoff = parseCutoff(given, ctx.clock.nowMs());
    const repo = await openRepository(ctx);
    const result = await repo.expireSnapshots(cutoff, {
      deleteExpiredBranches: ctx.flags['delete-expired-branches'] === true,
      deleteExpiredTags: ctx.flags['delete-expired-tags'] === true,
      ...ctx.request,
    });
    if (ctx.json) return ctx.printJson({ olderThan: cutoff, ...result });
    ctx.print(`expired ${result.releasedSnapshots.length} snapshot${result.releasedSnapshots.length === 1 ? '' : 's'} older than ${cutoff.toISOString()}; re-parented ${result.editedSnapshots.length}`);
    if (result.deletedBranches.length > 0) ctx.print(`deleted branches: ${result.deletedBranches.join(', ')}`);
    if (result.deletedTags.length > 0) ctx.print(`deleted tags: ${result.deletedTags.join(', ')}`);
    if (result.releasedSnapshots.length > 0) ctx.print('run `floe gc` to delete their objects');
  },
};
