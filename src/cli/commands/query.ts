// `floe query` and `floe explain`: the query DSL on a version of the repository. explain plans
// without reading data and leads with what it will cost (requests, bytes); query runs it and
// prints every array it read with the labels of its rows and columns (text, --json or --csv).
import { applyJsonQuery } from '../../query/json-query.ts';
import { query, type QueryBuilder } from '../../query/builder.ts';
import { totalCount } from '../../query/metered-store.ts';
import type { QueryPlan } from '../../query/plan/plan-types.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { writeAll } from '../io.ts';
import { formatBytes } from '../node-summary.ts';
import { describeResult, queryJson, queryText, writeQueryCsv } from '../query-output.ts';
import { parseQueryText } from '../query-text.ts';
import { openRepository } from '../repository-location.ts';
import { openReadonly, type VersionReader } from '../targets.ts';

const QUERY_HELP = [
  'QUERY is builder calls or JSON (quote it for the shell):',
  '  .from("/climate/temperature").where("time", "between", [2024-07-01, 2024-07-07]).where("lat", ">=", 30).stride("lon", 4)',
  '  {"from": "/climate/temperature", "ops": [{"nearest": ["lat", 45.1]}, {"whereIndex": ["lon", 0, 40, 2]}]}',
  'calls: from(path[, dtype]) select(paths...) where(dim, op, label|[a, b]) whereIndex(dim, start, stop[, step])',
  '       nearest(dim, label[, {tolerance}]) limit(dim, n) stride(dim, n); ops = < <= > >= between in',
  '--ref REF   the version to query (branch, tag, snapshot id; default main)',
  '--raw       stored values; without it values are CF-decoded (docs/cf.md) and from(path, dtype)',
  '            names the decoded type',
].join('\n');

async function prepare(ctx: CommandContext): Promise<{ builder: QueryBuilder; source: VersionReader }> {
  ctx.atMost(1);
  const json = parseQueryText(ctx.positional(0, 'the query'));
  const repo = await openRepository(ctx);
  const request = ctx.request;
  const source = await openReadonly(repo, ctx.string('ref') ?? 'main', request);
  // Physical values (CF decoded, docs/cf.md) unless --raw; from(path, dtype) then names the decoded type.
  const decode = ctx.flags.raw ? 'none' : 'cf';
  return { builder: applyJsonQuery(query(source, { ...request, decode }), json), source };
}

/** What a plan will cost, in one line and as JSON: data requests and bytes, the result's size, what planning read. */
export function planEstimate(plan: QueryPlan) {
  const e = plan.expected;
  const planning = totalCount(plan.planning);
  const resultBytes = plan.arrays.reduce((n, a) => n + a.resultBytes, 0);
  return { requests: e.requests, bytes: e.bytes, unknownSizeObjects: e.unknownSizeObjects, resultBytes, planningRequests: planning.requests, planningBytes: planning.bytes };
}

export function estimateLine(plan: QueryPlan): string {
  const e = planEstimate(plan);
  const unknown = e.unknownSizeObjects > 0 ? ` + ${e.unknownSizeObjects} whole object${e.unknownSizeObjects === 1 ? '' : 's'} of unknown size` : '';
  const arrays = plan.arrays.map((a) => `[${a.resultShape.join(' x ')}] ${a.dtype}`).join(' + ');
  return `estimate: ${e.requests} request${e.requests === 1 ? '' : 's'}, ${formatBytes(e.bytes)} of data to fetch${unknown}; result ${arrays}, ${formatBytes(e.resultBytes)} in memory; planning read ${e.planningRequests} request${e.planningRequests === 1 ? '' : 's'}, ${formatBytes(e.planningBytes)}`;
}

export const explainCommand: CommandSpec = {
  usage: "'QUERY' [--ref REF] [--raw]",
  details: QUERY_HELP,
  examples: [`floe explain '.from("/climate/temperature").where("lat", "between", [30, 60])' --ref v1.0`],
  options: { ref: { type: 'string' }, raw: { type: 'boolean' } },
  async run(ctx) {
    const explained = await (await prepare(ctx)).builder.explain();
    if (ctx.json) return ctx.printJson({ estimate: planEstimate(explained.plan), plan: explained.plan, text: explained.text });
    ctx.print(estimateLine(explained.plan));
    ctx.print(explained.text);
  },
};

export const queryCommand: CommandSpec = {
  usage: "'QUERY' [--ref REF] [--raw] [--plan] [--csv] [--threshold N]",
  details: [
    QUERY_HELP,
    '--plan      print the plan first',
    '--csv       one row per selected element: each dimension\'s label, then each array\'s value',
    '--threshold N   print every value up to N values per array (default 1000), else only the edges',
  ].join('\n'),
  examples: [
    `floe query '.from("/climate/temperature").where("time", "=", 2024-07-01).nearest("lat", 52.5).nearest("lon", 13.4)'`,
    `floe query '{"from": "/climate/lat", "ops": [{"limit": ["lat", 5]}]}' --json`,
    `floe query '.from("/climate/temperature").where("time", "between", [2024-07-01, 2024-07-03]).nearest("lat", 52.5).nearest("lon", 13.4)' --csv`,
  ],
  options: { ref: { type: 'string' }, raw: { type: 'boolean' }, plan: { type: 'boolean' }, csv: { type: 'boolean' }, threshold: { type: 'string' } },
  async run(ctx) {
    if (ctx.json && ctx.flags.csv) throw new UsageError('--json and --csv are alternatives; pick one');
    const { builder, source } = await prepare(ctx);
    const result = await builder.execute();
    const described = await describeResult(source, result, ctx.request);
    if (ctx.json) return ctx.printJson(queryJson(builder.toString(), described));
    if (ctx.flags.csv) return writeQueryCsv((text) => writeAll(ctx.io.stdout, text), described);
    if (ctx.flags.plan) ctx.print((await builder.explain()).text);
    ctx.print(queryText(described, { threshold: ctx.number('threshold') ?? 1000, lineWidth: ctx.io.stdout.columns ?? 75 }));
    const r = result.report;
    ctx.note(`${r.total.requests} requests, ${formatBytes(r.total.bytes)} in ${r.elapsedMs.toFixed(0)} ms`);
  },
};
