// `floe cat ref:path[slice]`: an array's values, printed like NumPy (with elision when large).
import type { CommandSpec } from '../command.ts';
import { formatArray } from '../format-array.ts';
import { writeAll } from '../io.ts';
import { writeJsonWithArray } from '../json-output.ts';
import { cfUnits } from '../cf-text.ts';
import { openTargetArray, readTargetValues } from '../read-target.ts';
import { openRepository } from '../repository-location.ts';
import { parseTarget } from '../targets.ts';

/** 64 Mi values: a few hundred MB in memory at most. */
const MAX_VALUES = 1 << 26;

export const catCommand: CommandSpec = {
  usage: "'ref:path[slice]' [--threshold N] [--raw]",
  details: [
    'slice: NumPy basic indexing, one item per dimension: 3, -1, 10:20, ::2, :, ... (quote it for the shell).',
    '--threshold N   print every value up to N values (default 1000), else only the edges',
    '--raw           the stored values; without it values are CF-decoded (docs/cf.md): packed and',
    '                missing values as floats (nan where missing), times as dates on their calendar',
  ].join('\n'),
  examples: ["floe cat 'main:/weather/temperature[0, :4, :5]'", "floe cat 'v1.0:/weather/lat[::60]' --json"],
  options: { threshold: { type: 'string' }, raw: { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(1);
    const target = parseTarget(ctx.positional(0, 'the array (ref:path[slice])'));
    const repo = await openRepository(ctx);
    const opened = await openTargetArray(repo, target, ctx.request);
    const values = await readTargetValues(opened, target, MAX_VALUES, ctx.flags.raw === true, ctx.request);
    const elementType = (await opened.array.vlenArrayElement())?.dataType;
    const cf = values.cf?.cf;
    for (const warning of cf?.warnings ?? []) ctx.note(`floe cat: not decoded: ${warning}`);
    if (ctx.json) {
      const element = elementType?.name;
      const dtype = cf ? (cf.time ? 'date' : values.dataType.name) : opened.array.dtype;
      const decoded = cf ? { storedDtype: opened.array.dtype, ...cfUnits(cf, opened.array.attributes.units) } : {};
      const head = { path: target.path, ref: target.ref, dtype, ...decoded, ...(element && { elementDtype: element }), shape: values.shape };
      return writeJsonWithArray((text) => writeAll(ctx.io.stdout, text), head, 'data', values.data);
    }
    ctx.print(formatArray(values.data, values.shape, values.dataType, {
      threshold: ctx.number('threshold') ?? 1000, lineWidth: ctx.io.stdout.columns ?? 75, elementType, unquoted: cf?.time !== undefined,
    }));
  },
};
