// `floe tag`: list tags with their snapshots; create or delete one. Tags never move: "resetting"
// a tag is delete + create, which Icechunk refuses for a name once deleted, so there is no reset.
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { UsageError, type CommandSpec } from '../command.ts';
import { openRepository, openRepositoryToWrite } from '../repository-location.ts';
import { resolveVersion } from '../targets.ts';
import { snapshotIdOf } from './version-id.ts';

export const tagCommand: CommandSpec = {
  usage: '[list | create NAME [REF] | delete NAME]',
  details: 'REF is a branch, tag, snapshot id or id prefix, with ~N, ^ or @{DATE} (default main). Tags are immutable; a deleted name cannot be reused.',
  examples: ['floe tag', 'floe tag create v1.0 main', 'floe tag delete v1.0', 'floe tag --json'],
  async run(ctx) {
    const [action = 'list', name, ref] = ctx.positionals;
    const repo = action === 'list' ? await openRepository(ctx) : await openRepositoryToWrite(ctx, `floe tag ${action}`);
    const request = ctx.request;
    switch (action) {
      case 'list': {
        ctx.atMost(1);
        const rows = await mapLimit(await repo.listTags(request), DEFAULT_CONCURRENCY, async (t) => ({ name: t, snapshotId: await repo.lookupTag(t, request) }));
        if (ctx.json) return ctx.printJson(rows);
        for (const r of rows) ctx.print(`${r.name.padEnd(24)} ${r.snapshotId}`);
        return;
      }
      case 'create': {
        ctx.atMost(3);
        if (!name) throw new UsageError('tag create needs a NAME');
        const id = await snapshotIdOf(repo, await resolveVersion(repo, ref ?? 'main', request), request);
        await repo.createTag(name, id, request);
        return ctx.json ? ctx.printJson({ action: 'created', tag: name, snapshotId: id }) : ctx.print(`created tag ${name} at ${id}`);
      }
      case 'delete': {
        ctx.atMost(2);
        if (!name) throw new UsageError('tag delete needs a NAME');
        await repo.deleteTag(name, request);
        return ctx.json ? ctx.printJson({ action: 'deleted', tag: name }) : ctx.print(`deleted tag ${name}`);
      }
      default:
        throw new UsageError(`unknown action ${JSON.stringify(action)}: use list, create or delete`);
    }
  },
};
