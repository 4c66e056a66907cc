// `floe ls [ref] [path]`: the tree of groups and arrays, with shape, dtype, chunking, codecs and
// the bytes each array stores.
import { floeError } from '../../errors.ts';
import { DEFAULT_CONCURRENCY, mapLimit } from '../../engine/storage/limiter.ts';
import { normalizePath } from '../../format/zarr/paths.ts';
import type { CommandSpec } from '../command.ts';
import { formatBytes, nodesUnder, summarizeNode, type NodeSummary } from '../node-summary.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly } from '../targets.ts';

export const lsCommand: CommandSpec = {
  usage: '[ref] [path]',
  details: 'ref defaults to main, path to /. `floe ls /weather` lists a path on main.',
  examples: ['floe ls', 'floe ls v1.0 /weather', 'floe ls main --json'],
  async run(ctx) {
    ctx.atMost(2);
    const [first, second] = ctx.positionals;
    // One argument starting with '/' is a path on main; otherwise it is a ref.
    const [ref, path] = second !== undefined ? [first!, second] : first?.startsWith('/') ? ['main', first] : [first ?? 'main', '/'];
    const root = normalizePath(path);
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const source = await openReadonly(repo, ref, request);
    const nodes = await nodesUnder(source, root, request);
    if (nodes.length === 0 && root !== '/') throw floeError('NOT_FOUND', `no group or array at ${root} in ${ref}; try \`floe ls ${ref}\``);
    const summaries = await mapLimit(nodes, DEFAULT_CONCURRENCY, (n) => summarizeNode(source, n, true, request));
    if (ctx.json) return ctx.printJson({ ref, snapshotId: source.snapshotId, nodes: summaries });
    ctx.print(`${ref} @ ${source.snapshotId}`);
    for (const s of summaries) ctx.print(treeLine(s, root));
    const arrays = summaries.filter((s) => s.kind === 'array');
    const total = arrays.reduce((n, s) => n + (s.storedBytes ?? 0), 0);
    ctx.print(`${arrays.length} array${arrays.length === 1 ? '' : 's'}, ${summaries.length - arrays.length} group${summaries.length - arrays.length === 1 ? '' : 's'}, ${formatBytes(total)} stored`);
  },
};

function treeLine(s: NodeSummary, root: string): string {
  const depth = s.path === '/' ? 0 : s.path.split('/').length - 1 - (root === '/' ? 0 : root.split('/').length - 1);
  const name = s.path === root ? s.path : s.path.slice(s.path.lastIndexOf('/') + 1);
  const indent = '  '.repeat(depth);
  if (s.kind === 'group') return `${indent}${name === '/' ? '/' : name + '/'}`;
  const dims = s.dimensionNames ? ` (${s.dimensionNames.map((d) => d ?? '-').join(', ')})` : '';
  const chunks = `chunks [${s.chunkShape!.join(', ')}]${s.innerChunkShape ? ` of [${s.innerChunkShape.join(', ')}]` : ''}`;
  return `${indent}${name}  ${s.dtype} [${s.shape!.join(', ')}]${dims}  ${chunks}  ${s.codecs}  ${s.chunksStored} chunks ${formatBytes(s.storedBytes ?? 0)}`;
}
