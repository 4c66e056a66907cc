// `floe log [ref]`: the ancestry of a version, newest first, like `git log`.
import type { AbortOptions } from '../../engine/storage/types.ts';
import type { SnapshotDescription } from '../../txn/index.ts';
import type { CommandSpec } from '../command.ts';
import { openRepository } from '../repository-location.ts';
import { resolveVersion } from '../targets.ts';

export const logCommand: CommandSpec = {
  usage: '[ref] [-n COUNT]',
  details: 'ref is a branch, tag, snapshot id or unique id prefix (default main), with ~N (N-th ancestor), ^ (parent) or @{DATE} (as of an ISO date): main~3, 3KJ9, main@{2026-11-01}.',
  examples: ['floe log', 'floe log v1.0 -n 5', 'floe log main --json'],
  options: { n: { type: 'string', short: 'n' } },
  async run(ctx) {
    ctx.atMost(1);
    const limit = ctx.number('n') ?? Infinity;
    const repo = await openRepository(ctx);
    const ref = ctx.positionals[0] ?? 'main';
    const entries: SnapshotDescription[] = [];
    const request = ctx.request;
    for await (const s of repo.ancestry({ ...(await resolveVersion(repo, ref, request)), ...request })) {
      if (entries.length >= limit) break;
      entries.push(s);
    }
    if (ctx.json) return ctx.printJson(entries);
    const labels = await refLabels(repo, request);
    for (const s of entries) {
      const names = labels.get(s.id);
      ctx.print(`${s.id}${names ? `  (${names.join(', ')})` : ''}`);
      ctx.print(`  ${s.writtenAt.toISOString()}  ${s.message}`);
    }
  },
};

/** Snapshot id -> the branches and tags that point at it, for decorating the log. */
async function refLabels(repo: Awaited<ReturnType<typeof openRepository>>, request: AbortOptions): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (id: string, label: string) => out.set(id, [...(out.get(id) ?? []), label]);
  for (const b of await repo.listBranches(request)) add(await repo.lookupBranch(b, request), b);
  for (const t of await repo.listTags(request)) add(await repo.lookupTag(t, request), `tag: ${t}`);
  return out;
}
