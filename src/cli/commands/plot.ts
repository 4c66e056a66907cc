// `floe plot ref:path[slice]`: a 2-D selection as a heat map with a colour bar, a 1-D one as a
// line plot, as PNG: titled with the array, selection and version, axes labelled in coordinate
// units (dates for CF time on any calendar), the colour bar (or y axis) titled with the units
// attribute; values CF-decoded unless --raw (packed values unpacked, missing ones drawn as no-data).
import { writeFileSync } from 'node:fs';
import { encode } from 'fast-png';
import { floeError } from '../../errors.ts';
import { normalizeSelection, type DimSelection } from '../../engine/selection.ts';
import { selectionText } from '../../engine/selection-text.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { cfAxisCalendar, labelsAt, loadDimCoordinate, valuesAt } from '../dimension-labels.ts';
import type { AxisSpec } from '../../plot/axis.ts';
import { COLORMAP_NAMES, colormapByName } from '../../plot/colormap.ts';
import { checkRequestedRange, type RequestedRange } from '../../plot/colour-range.ts';
import { barLabel, renderHeatmap } from '../../plot/heatmap.ts';
import { renderLinePlot } from '../../plot/line-plot.ts';
import { openTargetArray, readTargetValues, type OpenedTarget } from '../read-target.ts';
import { openRepository } from '../repository-location.ts';
import { parseTarget, type Target } from '../targets.ts';

const MAX_VALUES = 1 << 26;

export const plotCommand: CommandSpec = {
  usage: "'ref:path[slice]' [-o FILE] [--vmin V] [--vmax V] [--cmap NAME] [--raw]",
  details: [
    'A selection leaving two dimensions is a heat map (rows top to bottom, columns left to right) with a colour bar;',
    'one leaving one dimension is a line plot. Axes are labelled from the coordinate arrays named like the',
    'dimensions (dates for CF time, on its calendar); missing values (NaN) are hatched grey. Values are',
    'CF-decoded (packed and missing values, docs/cf.md) unless --raw.',
    '-o FILE        output file (default: <array name>.png)',
    '--vmin/--vmax  the colour range, or the line plot\'s y range (default: the finite minimum and maximum)',
    `--cmap NAME    colour map: ${COLORMAP_NAMES.join(', ')} (coolwarm and bwr diverge around 0); NAME_r reverses`,
  ].join('\n'),
  examples: [
    "floe plot 'v1.0:/climate/temperature[182]' -o july.png",
    "floe plot 'main:/climate/temperature[:, 90, :]' --vmin 250 --vmax 310 --cmap magma",
    "floe plot 'v1.0:/climate/temperature[:, 8, 40]' -o series.png",
  ],
  options: { output: { type: 'string', short: 'o' }, vmin: { type: 'string' }, vmax: { type: 'string' }, cmap: { type: 'string' }, raw: { type: 'boolean' } },
  async run(ctx) {
    ctx.atMost(1);
    const target = parseTarget(ctx.positional(0, 'the array slice (ref:path[slice])'));
    const range: RequestedRange = { min: ctx.number('vmin'), max: ctx.number('vmax') };
    checkRequestedRange(range); // before any reading: a wrong range fails at once
    const colormap = colormapByName(ctx.string('cmap') ?? 'viridis');
    const repo = await openRepository(ctx);
    const opened = await openTargetArray(repo, target, ctx.request);
    if (opened.shape.length !== 1 && opened.shape.length !== 2) {
      throw new UsageError(`the selection has ${opened.shape.length} dimensions [${opened.shape.join(', ')}]; plot draws 2 (a heat map) or 1 (a line), e.g. ${target.ref}:${target.path}[0] for the first plane`);
    }
    const kind = opened.array.dataType.kind;
    if (kind !== 'float' && kind !== 'int' && kind !== 'uint' && kind !== 'bool') throw floeError('UNSUPPORTED', `plot draws numbers; ${target.path} is ${opened.array.dtype}`);
    const values = await readTargetValues(opened, target, MAX_VALUES, ctx.flags.raw === true, ctx.request);
    if (values.cf?.cf.time) throw floeError('UNSUPPORTED', `${target.path} holds dates (CF time); plot draws numbers: plot the variable that uses it as a coordinate, or its stored numbers with --raw`);
    for (const warning of values.cf?.cf.warnings ?? []) ctx.note(`floe plot: not decoded: ${warning}`);
    const numbers = values.data instanceof BigInt64Array || values.data instanceof BigUint64Array ? Float64Array.from(values.data, Number) : (values.data as ArrayLike<number>);
    const { axes, fixed } = await describeDims(ctx, opened, target);
    const attributes = opened.array.attributes;
    const units = typeof attributes.units === 'string' ? attributes.units : undefined;
    const longName = typeof attributes.long_name === 'string' ? attributes.long_name : typeof attributes.standard_name === 'string' ? attributes.standard_name : undefined;
    const title = [`${target.path}${selectionText(target.selection)} @ ${target.ref}`, [longName, ...fixed].filter(Boolean).join(', ')];
    const shown = ctx.string('output') ?? `${target.path.split('/').pop() || 'plot'}.png`;
    const file = ctx.resolvePath(shown);
    const [first, second] = axes;
    const drawn = second && first
      ? renderHeatmap({ values: numbers, rows: first.indices.length, cols: second.indices.length, y: first, x: second, title, units, colormap, range })
      : renderLinePlot({ values: numbers, x: first ?? { name: 'index', indices: [] }, title, yTitle: `${target.path.split('/').pop() || target.path}${units ? ` (${units})` : ''}`, range });
    const { width, height } = drawn.layout;
    writeFileSync(file, encode({ width, height, data: drawn.pixels, channels: 3, depth: 8 }));
    const span = 'range' in drawn ? drawn.range : drawn.layout.yRange;
    // --json also gives the layout a reader checks a picture by: where the data is drawn, the axes' ticks, the colour bar's title.
    const area = 'field' in drawn.layout ? drawn.layout.field : drawn.layout.plot;
    const bar = 'colourbar' in drawn.layout ? { colourbarTitle: drawn.layout.colourbar?.units ?? null } : {};
    const result = {
      file, kind: second ? 'heatmap' : 'line', width, height, shape: opened.shape, min: span?.min ?? null, max: span?.max ?? null, noData: span === undefined,
      area, xAxis: drawn.layout.xAxis, yAxis: drawn.layout.yAxis, ...bar,
    };
    if (ctx.json) return ctx.printJson(result);
    const what = span === undefined ? 'no data (all values missing)' : second ? `colours from ${barLabel(span.min)} to ${barLabel(span.max)} (${colormap.name})` : `y from ${barLabel(span.min)} to ${barLabel(span.max)}`;
    ctx.print(`wrote ${shown}: ${opened.shape.join(' x ')} values as ${width} x ${height} px, ${what}`);
  },
};

/** Axis specs of the kept dimensions and "name = label" for the ones an integer index dropped. */
async function describeDims(ctx: CommandContext, opened: OpenedTarget, target: Target): Promise<{ axes: AxisSpec[]; fixed: string[] }> {
  const { array, source } = opened;
  const dims: DimSelection[] = normalizeSelection(target.selection, array.shape);
  const axes: AxisSpec[] = [];
  const fixed: string[] = [];
  for (const [d, sel] of dims.entries()) {
    const name = array.dimensionNames?.[d] ?? `dim ${d}`;
    const indices = Array.from({ length: sel.count }, (_, k) => sel.start + k * sel.step);
    const coordinate = await loadDimCoordinate(source, target.path, name, array.shape[d] ?? 0, ctx.request);
    if (sel.drop) {
      fixed.push(`${name} = ${labelsAt(coordinate, indices).join('')}`);
      continue;
    }
    axes.push({ name, units: coordinate?.units, values: valuesAt(coordinate, indices), indices, time: coordinate?.time, float32: coordinate?.float32, calendar: cfAxisCalendar(coordinate) });
  }
  return { axes, fixed };
}
