// `floe show ref:path`: a node's metadata (its zarr.json) and attributes, plus what it stores:
// the chunk grid and how much of it is stored, and the array's size decoded and as stored; for
// a numeric array, how CF decodes it (units, calendar, packing, flags, coordinates, ...).
import { floeError } from '../../errors.ts';
import { parseJson, stringifyJson } from '../../format/json.ts';
import type { CommandSpec } from '../command.ts';
import { formatBytes, summarizeNode, type NodeSummary } from '../node-summary.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly, parseTarget, type VersionReader } from '../targets.ts';
import { ZarrArray } from '../../engine/array.ts';
import type { CfVariable } from '../../format/cf/variable.ts';
import { cfLines, cfSummary } from '../cf-text.ts';

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
    const cf = summary.kind === 'array' ? await cfOf(source, target.path) : undefined;
    if (ctx.json) return ctx.printJson({ ref: target.ref, snapshotId: source.snapshotId, ...summary, ...(cf && { cf: cfSummary(cf.variable, cf.dtype, cf.units) }), metadata });
    ctx.print(`${summary.kind} ${summary.path} in ${target.ref} @ ${source.snapshotId}`);
    if (summary.kind === 'array') {
      ctx.print(`  shape       [${summary.shape!.join(', ')}]${summary.dimensionNames ? `  (${summary.dimensionNames.join(', ')})` : ''}`);
      ctx.print(`  dtype       ${summary.dtype}`);
      ctx.print(`  chunks      [${summary.chunkShape!.join(', ')}]${summary.innerChunkShape ? `, inner chunks [${summary.innerChunkShape.join(', ')}]` : ''}`);
      ctx.print(`  codecs      ${summary.codecs}`);
      for (const line of sizeLines(summary)) ctx.print(line);
    }
    const attrs = Object.entries(summary.attributes);
    ctx.print(attrs.length === 0 ? '  attributes  (none)' : '  attributes');
    for (const [k, v] of attrs) ctx.print(`    ${k}: ${stringifyJson(v, 0)}`);
    for (const line of cf ? cfLines(cf.variable, cf.dtype, cf.units) : []) ctx.print(line);
    ctx.print('zarr.json');
    ctx.print(stringifyJson(metadata).replace(/^/gm, '  '));
  },
};

/** A numeric array's CF decoding (docs/cf.md), as `floe cat` would apply it. */
async function cfOf(source: VersionReader, path: string): Promise<{ variable: CfVariable; dtype: string; units: unknown } | undefined> {
  const array = await ZarrArray.open(source.store, path);
  if (!/^(int|uint|float)$/.test(array.dataType.kind)) return undefined;
  return { variable: await array.cfVariable(), dtype: array.dtype, units: array.attributes.units };
}

/** The grid (chunks, and inner chunks per shard), what is stored of it, and the sizes decoded and stored. */
export function sizeLines(s: NodeSummary): string[] {
  const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
  const unit = s.innerChunksPerShard !== undefined ? 'shard' : 'chunk';
  const inner = s.innerChunksPerShard !== undefined ? `, ${plural(s.innerChunksPerShard, 'inner chunk')} each` : '';
  const lines = [`  grid        ${plural(s.gridChunks ?? 0, unit)} [${(s.gridShape ?? []).join(' x ')}]${inner}`];
  const stored = s.storedBytes ?? 0;
  const decoded = s.storedDecodedBytes !== undefined ? `, ${formatBytes(s.storedDecodedBytes)} decoded${stored > 0 ? ` (compression ${(s.storedDecodedBytes / stored).toFixed(2)})` : ''}` : '';
  lines.push(`  stored      ${(s.chunksStored ?? 0).toLocaleString('en-US')} of ${plural(s.gridChunks ?? 0, unit)}: ${formatBytes(stored)}${decoded}`);
  const values = plural((s.shape ?? []).reduce((a, b) => a * b, 1), 'value');
  lines.push(`  array       ${s.decodedBytes !== undefined ? `${formatBytes(s.decodedBytes)} decoded, ${values}` : `${values} (variable-length: the size is known only by reading)`}`);
  return lines;
}
