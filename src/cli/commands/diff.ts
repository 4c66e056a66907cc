// `floe diff A B`: what changed from version A to version B: nodes and chunk coordinates.
import type { DiffResult } from '../../txn/index.ts';
import type { CommandSpec } from '../command.ts';
import { openRepository } from '../repository-location.ts';
import { diffSide, resolveVersion } from '../targets.ts';

const SHOWN_CHUNKS = 8;

export const diffCommand: CommandSpec = {
  usage: 'FROM TO',
  details: 'FROM and TO are branches, tags, snapshot ids, or ref~N.',
  examples: ['floe diff v1.0 main', 'floe diff main~1 main --json'],
  async run(ctx) {
    ctx.atMost(2);
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const from = await resolveVersion(repo, ctx.positional(0, 'FROM version'), request);
    const to = await resolveVersion(repo, ctx.positional(1, 'TO version'), request);
    const diff = await repo.diff({ ...diffSide(from, 'from'), ...diffSide(to, 'to'), ...request });
    if (ctx.json) return ctx.printJson(diff);
    for (const line of describeDiff(diff)) ctx.print(line);
  },
};

export function describeDiff(diff: DiffResult): string[] {
  const lines: string[] = [];
  const list = (label: string, paths: string[]) => paths.forEach((p) => lines.push(`${label} ${p}`));
  list('+ group  ', diff.newGroups);
  list('+ array  ', diff.newArrays);
  list('- group  ', diff.deletedGroups);
  list('- array  ', diff.deletedArrays);
  list('~ group  ', diff.updatedGroups);
  list('~ array  ', diff.updatedArrays);
  for (const m of diff.movedNodes) lines.push(`> moved    ${m.from} -> ${m.to}`);
  for (const [path, chunks] of Object.entries(diff.updatedChunks)) {
    const shown = chunks.slice(0, SHOWN_CHUNKS).map((c) => `[${c.join(',')}]`).join(' ');
    const more = chunks.length > SHOWN_CHUNKS ? ` ... ${chunks.length - SHOWN_CHUNKS} more` : '';
    lines.push(`~ chunks   ${path}: ${chunks.length} chunk${chunks.length === 1 ? '' : 's'} ${shown}${more}`);
  }
  if (lines.length === 0) lines.push('no differences');
  return lines;
}
