// `floe query` and `floe explain`: the query DSL on a version of the repository. explain plans
// without reading data (which requests, how many bytes); query runs it and prints the values.
import { parseDataType } from '../../format/zarr/data-types.ts';
import { applyJsonQuery } from '../../query/json-query.ts';
import { query, type QueryBuilder } from '../../query/builder.ts';
import type { CommandContext, CommandSpec } from '../command.ts';
import { formatArray } from '../format-array.ts';
import { formatBytes } from '../node-summary.ts';
import { parseQueryText } from '../query-text.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly } from '../targets.ts';

const QUERY_HELP = [
  'QUERY is builder calls or JSON (quote it for the shell):',
  '  .from("/climate/temperature").where("time", "between", [2024-07-01, 2024-07-07]).where("lat", ">=", 30).stride("lon", 4)',
  '  {"from": "/climate/temperature", "ops": [{"nearest": ["lat", 45.1]}, {"whereIndex": ["lon", 0, 40, 2]}]}',
  'calls: from(path[, dtype]) select(paths...) where(dim, op, label|[a, b]) whereIndex(dim, start, stop[, step])',
  '       nearest(dim, label[, {tolerance}]) limit(dim, n) stride(dim, n); ops = < <= > >= between in',
  '--ref REF   the version to query (branch, tag, snapshot id; default main)',
].join('\n');

async function prepare(ctx: CommandContext): Promise<QueryBuilder> {
  ctx.atMost(1);
  const json = parseQueryText(ctx.positional(0, 'the query'));
  const repo = await openRepository(ctx);
  const request = ctx.request;
  return applyJsonQuery(query(await openReadonly(repo, ctx.string('ref') ?? 'main', request), { ...request }), json);
}

export const explainCommand: CommandSpec = {
  usage: "'QUERY' [--ref REF]",
  details: QUERY_HELP,
  examples: [`floe explain '.from("/climate/temperature").where("lat", "between", [30, 60])' --ref v1.0`],
  options: { ref: { type: 'string' } },
  async run(ctx) {
    const explained = await (await prepare(ctx)).explain();
    if (ctx.json) return ctx.printJson({ plan: explained.plan, text: explained.text });
    ctx.print(explained.text);
  },
};

export const queryCommand: CommandSpec = {
  usage: "'QUERY' [--ref REF] [--plan]",
  details: `${QUERY_HELP}\n--plan      print the plan first`,
  examples: [
    `floe query '.from("/climate/temperature").where("time", "=", 2024-07-01).nearest("lat", 52.5).nearest("lon", 13.4)'`,
    `floe query '{"from": "/climate/lat", "ops": [{"limit": ["lat", 5]}]}' --json`,
  ],
  options: { ref: { type: 'string' }, plan: { type: 'boolean' } },
  async run(ctx) {
    const q = await prepare(ctx);
    const result = await q.execute();
    const r = result.report;
    if (ctx.json) return ctx.printJson({ query: q.toString(), path: result.path, dtype: result.dtype, dims: result.dims, shape: result.shape, data: result.data, report: r });
    if (ctx.flags.plan) ctx.print((await q.explain()).text);
    const dataType = parseDataType(result.dtype);
    ctx.print(`${result.path} ${result.dtype} [${result.shape.join(', ')}] (${result.dims.join(', ')})`);
    ctx.print(formatArray(result.data, result.shape, dataType, { lineWidth: ctx.io.stdout.columns ?? 75 }));
    ctx.note(`${r.total.requests} requests, ${formatBytes(r.total.bytes)} in ${r.elapsedMs.toFixed(0)} ms`);
  },
};
