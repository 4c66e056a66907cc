// `floe plot ref:path[slice]`: a 2-D slice as a PNG heat map with a colour bar.
import { writeFileSync } from 'node:fs';
import { encode } from 'fast-png';
import { floeError } from '../../errors.ts';
import { UsageError, type CommandSpec } from '../command.ts';
import { barLabel, renderHeatmap } from '../plot/heatmap.ts';
import { openTargetArray, readTarget } from '../read-target.ts';
import { openRepository } from '../repository-location.ts';
import { parseTarget } from '../targets.ts';

const MAX_VALUES = 1 << 26;

export const plotCommand: CommandSpec = {
  usage: "'ref:path[slice]' [-o FILE] [--vmin V] [--vmax V]",
  details: [
    'The selection must leave two dimensions (rows top to bottom, columns left to right). NaN is grey.',
    '-o FILE        output file (default: <array name>.png)',
    '--vmin/--vmax  the colour range (default: the finite minimum and maximum)',
  ].join('\n'),
  examples: ["floe plot 'v1.0:/climate/temperature[182]' -o july.png", "floe plot 'main:/climate/temperature[:, 90, :]' --vmin 250 --vmax 310"],
  options: { output: { type: 'string', short: 'o' }, vmin: { type: 'string' }, vmax: { type: 'string' } },
  async run(ctx) {
    ctx.atMost(1);
    const target = parseTarget(ctx.positional(0, 'the array slice (ref:path[slice])'));
    const repo = await openRepository(ctx);
    const opened = await openTargetArray(repo, target, ctx.request);
    if (opened.shape.length !== 2) {
      throw new UsageError(`the selection has ${opened.shape.length} dimensions [${opened.shape.join(', ')}]; plot needs 2, e.g. ${target.ref}:${target.path}[0] for the first plane`);
    }
    const kind = opened.array.dataType.kind;
    if (kind !== 'float' && kind !== 'int' && kind !== 'uint' && kind !== 'bool') throw floeError('UNSUPPORTED', `plot draws numbers; ${target.path} is ${opened.array.dtype}`);
    const values = await readTarget(opened, target, MAX_VALUES, ctx.request);
    const numbers = values.data instanceof BigInt64Array || values.data instanceof BigUint64Array ? Float64Array.from(values.data, Number) : (values.data as ArrayLike<number>);
    const [rows, cols] = opened.shape as [number, number];
    const range = { ...(ctx.number('vmin') !== undefined ? { min: ctx.number('vmin')! } : {}), ...(ctx.number('vmax') !== undefined ? { max: ctx.number('vmax')! } : {}) };
    const map = renderHeatmap(numbers, rows, cols, range);
    const file = ctx.resolvePath(ctx.string('output') ?? `${target.path.split('/').pop() || 'plot'}.png`);
    writeFileSync(file, encode({ width: map.layout.width, height: map.layout.height, data: map.pixels, channels: 3, depth: 8 }));
    const result = { file, width: map.layout.width, height: map.layout.height, rows, cols, min: map.min, max: map.max };
    if (ctx.json) return ctx.printJson(result);
    ctx.print(`wrote ${file}: ${rows} x ${cols} values as ${result.width} x ${result.height} px, colours from ${barLabel(map.min)} to ${barLabel(map.max)}`);
  },
};
