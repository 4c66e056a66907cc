// `floe status`: the repository at a glance: storage, availability, spec version, refs, flags.
// (A CLI has no open session between commands, so there are no uncommitted changes to show.)
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import type { CommandSpec } from '../command.ts';
import { detectStorageKind, openRepository } from '../repository-location.ts';

export const statusCommand: CommandSpec = {
  usage: '',
  examples: ['floe status', 'floe status --repo ./climate.icechunk --json'],
  async run(ctx) {
    ctx.atMost(0);
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const [status, branches, tags, flags, info] = await Promise.all([
      repo.status(request), repo.listBranches(request), repo.listTags(request), repo.featureFlags(request), repo.repoInfo(request),
    ]);
    const tips = await mapLimit(branches, DEFAULT_CONCURRENCY, async (name) => ({ name, snapshotId: await repo.lookupBranch(name, request) }));
    const result = {
      repository: ctx.repoPath,
      storage: detectStorageKind(ctx.repoPath),
      specVersion: repo.specVersion,
      availability: status.availability,
      reason: status.limitedAvailabilityReason ?? undefined,
      branches: tips,
      tags: tags.length,
      snapshots: info.snapshots.length,
      featureFlags: Object.fromEntries(flags.map((f) => [f.name, f.enabled])),
    };
    if (ctx.json) return ctx.printJson(result);
    ctx.print(`repository ${result.repository} (${result.storage}, Icechunk spec ${result.specVersion})`);
    ctx.print(`status     ${result.availability}${result.reason ? ` (${result.reason})` : ''}`);
    ctx.print(`snapshots  ${result.snapshots}, tags ${result.tags}`);
    ctx.print('branches');
    for (const b of tips) ctx.print(`  ${b.name.padEnd(22)} ${b.snapshotId}`);
    const off = flags.filter((f) => !f.enabled).map((f) => f.name);
    ctx.print(`features   ${off.length === 0 ? 'all enabled' : `disabled: ${off.join(', ')}`}`);
  },
};
