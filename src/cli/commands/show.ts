// `floe show ref:path`: a node's metadata (its zarr.json) and attributes, plus what it stores.
import { floeError } from '../../errors.ts';
import { parseJson, stringifyJson } from '../../format/json.ts';
import type { CommandSpec } from '../command.ts';
import { formatBytes, summarizeNode } from '../node-summary.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly, parseTarget } from '../targets.ts';

export const showCommand: CommandSpec = {
  usage: 'ref:path',
  examples: ['floe show main:/weather/temperature', 'floe show v1.0:/ --json'],
  async run(ctx) {
    ctx.atMost(1);
    const target = parseTarget(ctx.positional(0, 'the node (ref:path)'));
    const repo = await openRepository(ctx);
    const request = ctx.request;
    const source = await openReadonly(repo, target.ref, request);
    const node = await source.node(target.path, request);
    if (!node) throw floeError('NOT_FOUND', `no group or array at ${target.path} in ${target.ref}; see \`floe ls ${target.ref}\``);
    const summary = await summarizeNode(source, node, true, request);
    const metadata = parseJson(new TextDecoder().decode(node.document));
    if (ctx.json) return ctx.printJson({ ref: target.ref, snapshotId: source.snapshotId, ...summary, metadata });
    ctx.print(`${summary.kind} ${summary.path} in ${target.ref} @ ${source.snapshotId}`);
    if (summary.kind === 'array') {
      ctx.print(`  shape       [${summary.shape!.join(', ')}]${summary.dimensionNames ? `  (${summary.dimensionNames.join(', ')})` : ''}`);
      ctx.print(`  dtype       ${summary.dtype}`);
      ctx.print(`  chunks      [${summary.chunkShape!.join(', ')}]${summary.innerChunkShape ? `, inner chunks [${summary.innerChunkShape.join(', ')}]` : ''}`);
      ctx.print(`  codecs      ${summary.codecs}`);
      ctx.print(`  stored      ${summary.chunksStored} chunks, ${formatBytes(summary.storedBytes ?? 0)}`);
    }
    const attrs = Object.entries(summary.attributes);
    ctx.print(attrs.length === 0 ? '  attributes  (none)' : '  attributes');
    for (const [k, v] of attrs) ctx.print(`    ${k}: ${stringifyJson(v, 0)}`);
    ctx.print('zarr.json');
    ctx.print(stringifyJson(metadata).replace(/^/gm, '  '));
  },
};
