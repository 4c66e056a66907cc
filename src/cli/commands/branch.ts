// `floe branch`: list branches with their tips; create, delete, or reset one.
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { UsageError, type CommandSpec } from '../command.ts';
import { openRepository, openRepositoryToWrite } from '../repository-location.ts';
import { resolveVersion } from '../targets.ts';
import { snapshotIdOf } from './version-id.ts';

export const branchCommand: CommandSpec = {
  usage: '[list | create NAME [FROM] | delete NAME | reset NAME TO]',
  details: 'FROM and TO are refs: a branch, tag, snapshot id or id prefix, with ~N, ^ or @{DATE} (FROM defaults to main). reset moves a branch like `git reset --hard`.',
  examples: ['floe branch', 'floe branch create experiment v1.0', 'floe branch reset experiment main~1', 'floe branch delete experiment'],
  async run(ctx) {
    const [action = 'list', name, other] = ctx.positionals;
    const repo = action === 'list' ? await openRepository(ctx) : await openRepositoryToWrite(ctx, `floe branch ${action}`);
    const request = ctx.request;
    switch (action) {
      case 'list': {
        ctx.atMost(1);
        const rows = await mapLimit(await repo.listBranches(request), DEFAULT_CONCURRENCY, async (b) => ({ name: b, snapshotId: await repo.lookupBranch(b, request) }));
        if (ctx.json) return ctx.printJson(rows);
        for (const r of rows) ctx.print(`${r.name.padEnd(24)} ${r.snapshotId}`);
        return;
      }
      case 'create': {
        ctx.atMost(3);
        if (!name) throw new UsageError('branch create needs a NAME');
        const id = await snapshotIdOf(repo, await resolveVersion(repo, other ?? 'main', request), request);
        await repo.createBranch(name, id, request);
        return report(ctx, { action: 'created', branch: name, snapshotId: id });
      }
      case 'delete': {
        ctx.atMost(2);
        if (!name) throw new UsageError('branch delete needs a NAME');
        await repo.deleteBranch(name, request);
        return report(ctx, { action: 'deleted', branch: name });
      }
      case 'reset': {
        ctx.atMost(3);
        if (!name || !other) throw new UsageError('branch reset needs NAME and TO');
        const from = await repo.lookupBranch(name, request);
        const id = await snapshotIdOf(repo, await resolveVersion(repo, other, request), request);
        // Conditional on the tip we just read: a commit landing meanwhile makes this a CONFLICT, not a lost commit.
        await repo.resetBranch(name, id, from, request);
        return report(ctx, { action: 'reset', branch: name, snapshotId: id, previousSnapshotId: from });
      }
      default:
        throw new UsageError(`unknown action ${JSON.stringify(action)}: use list, create, delete or reset`);
    }
  },
};

function report(ctx: Parameters<CommandSpec['run']>[0], result: Record<string, string>): void {
  if (ctx.json) return ctx.printJson(result);
  const { action, branch, snapshotId } = result;
  ctx.print(`${action} branch ${branch}${snapshotId ? ` at ${snapshotId}` : ''}`);
}
