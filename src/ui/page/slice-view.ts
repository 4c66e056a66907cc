// The slice viewer: an array of a version and a selection, drawn with src/plot as a heat map
// (two kept dimensions) or a line (one), values decoded by the CF rules, axes in coordinate units
// (dates on time axes), the colour bar titled with the units, missing values hatched as no data.
// Zoom and pan re-query (buttons, or + - and the arrow keys on the focused plot); the selection
// downloads as CSV or .npy. The canvas carries its layout as JSON (data-layout) for tests.
/// <reference lib="dom" />
import { ZarrArray } from '../../engine/array.ts';
import { normalizeSelection, type DimSelection, type Selection } from '../../engine/selection.ts';
import { parseSelectionText, selectionText } from '../../engine/selection-text.ts';
import { joinPath, parentPath } from '../../format/zarr/paths.ts';
import { isFloeError } from '../../errors.ts';
import type { AxisSpec } from '../../plot/axis.ts';
import { COLORMAP_NAMES, colormapByName } from '../../plot/colormap.ts';
import { barLabel, renderHeatmap } from '../../plot/heatmap.ts';
import { coordinateLabels } from '../../plot/label-text.ts';
import { renderLinePlot } from '../../plot/line-plot.ts';
import { rgbToRgba } from '../../plot/raster.ts';
import type { Session } from '../../txn/index.ts';
import { cfAxisCalendar } from '../../query/plan/cf-axis.ts';
import { loadCoordinate } from '../../query/plan/coordinate.ts';
import { query } from '../../query/builder.ts';
import { applyJsonQuery } from '../../query/json-query.ts';
import { parseQueryText } from '../../query/query-text.ts';
import { npyBytes, selectionCsv, type ExportDim } from '../export.ts';
import { isQueryText, queryWindow } from '../query-window.ts';
import { moveWindow, type WindowMove } from '../slice-window.ts';
import { viewHash, type ViewState } from '../view-state.ts';
import { h } from './dom.ts';
import type { Connection } from './connection.ts';

/** Values one view reads at most (a 2048 x 2048 plane). */
const MAX_VALUES = 1 << 22;
const MAX_LABELS = 10_000_000;
const KEYS: Readonly<Record<string, WindowMove>> = { '+': 'zoom-in', '=': 'zoom-in', '-': 'zoom-out', ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

interface Axis extends AxisSpec {
  readonly labels: readonly string[];
}

export async function sliceView(conn: Connection, state: ViewState): Promise<HTMLElement> {
  const section = h('section', {}, h('h1', {}, 'Slice'), form(state));
  const { session } = await conn.session(state.ref);
  if (state.sel !== undefined && isQueryText(state.sel)) {
    // A query: shown as the selection its plan makes, which the address then names.
    const window = queryWindow((await applyJsonQuery(query(session), parseQueryText(state.sel)).explain()).plan);
    if ('refused' in window) {
      note(section, `The query cannot be shown: ${window.refused}.`);
      const cover = window.cover;
      if (cover) section.append(h('p', {}, h('a', { href: viewHash({ ...state, path: cover.path, sel: selectionText(cover.selection) || '[]' }) }, `Show ${cover.path}${selectionText(cover.selection)}`)));
      return section;
    }
    location.replace(viewHash({ ...state, path: window.path, sel: selectionText(window.selection) || '[]' }));
    return section;
  }
  if (state.path === undefined) return section;
  const array = await ZarrArray.open(session.store, state.path);
  const selection = parseSelectionText((state.sel ?? '').trim().replace(/^\[/, '').replace(/\]$/, ''));
  const dims = normalizeSelection(selection, array.shape, state.path);
  const count = dims.reduce((n, d) => n * d.count, 1);
  const kept = dims.filter((d) => !d.drop).length;
  if (kept !== 1 && kept !== 2) return note(section, `The selection keeps ${kept} dimensions of [${array.shape.join(', ')}]; the viewer draws 2 (a heat map) or 1 (a line): fix the others with integers, e.g. [0, :, :].`);
  if (count > MAX_VALUES) return note(section, `The selection has ${count} values, more than the ${MAX_VALUES} the viewer reads at once: add a step (::4) or a smaller range.`);
  const kind = array.dataType.kind;
  if (kind !== 'float' && kind !== 'int' && kind !== 'uint' && kind !== 'bool') return note(section, `The viewer draws numbers; ${state.path} holds ${array.dtype}.`);
  const result = await array.get(selection, { decode: 'cf' });
  if (Array.isArray(result.data)) return note(section, `${state.path} holds dates (CF time): its values are not drawn as colours.`);
  const data = result.data;
  const numbers: ArrayLike<number> = data instanceof BigInt64Array || data instanceof BigUint64Array ? Float64Array.from(data, Number) : (data as ArrayLike<number>);
  const axes = await describeAxes(session, array, state.path, selection);
  const attributes = array.attributes;
  const units = typeof attributes.units === 'string' && result.cf.time === undefined ? attributes.units : undefined;
  const longName = typeof attributes.long_name === 'string' ? attributes.long_name : typeof attributes.standard_name === 'string' ? attributes.standard_name : undefined;
  const fixed = await fixedLabels(session, array, state.path, dims);
  const title = [`${state.path}${selectionText(selection)} @ ${state.ref}`, [longName, ...fixed].filter(Boolean).join(', ')];
  const colormap = colormapByName(state.cmap ?? 'viridis');
  const name = state.path.split('/').pop() || 'values';
  const [first, second] = axes;
  const drawn = first && second
    ? renderHeatmap({ values: numbers, rows: first.indices.length, cols: second.indices.length, y: first, x: second, title, units, colormap })
    : renderLinePlot({ values: numbers, x: first ?? { name: 'index', indices: [] }, title, yTitle: `${name}${units ? ` (${units})` : ''}` });
  const { width, height } = drawn.layout;
  const span = 'range' in drawn ? drawn.range : drawn.layout.yRange;
  const summary = span === undefined ? 'no data: every value is missing' : `values from ${barLabel(span.min)} to ${barLabel(span.max)}${units ? ` ${units}` : ''}`;
  const canvas = h('canvas', { width, height, tabindex: 0, role: 'img', 'aria-label': `${title.join('; ')}: ${summary}. Keys: + and - zoom, arrows pan.`, 'data-layout': JSON.stringify(drawn.layout) });
  const context = canvas.getContext('2d');
  context?.putImageData(new ImageData(rgbToRgba(drawn.pixels) as Uint8ClampedArray<ArrayBuffer>, width, height), 0, 0);
  const go = (move: WindowMove) => {
    location.hash = viewHash({ ...state, sel: selectionText(moveWindow(selection, array.shape, move)) || '[]' });
  };
  canvas.addEventListener('keydown', (event) => {
    const move = KEYS[event.key];
    if (!move) return;
    event.preventDefault();
    go(move);
  });
  const button = (label: string, move: WindowMove) => {
    const b = h('button', { type: 'button', 'data-move': move }, label);
    b.addEventListener('click', () => go(move));
    return b;
  };
  const moves = kept === 2
    ? [button('Zoom in (+)', 'zoom-in'), button('Zoom out (−)', 'zoom-out'), button('← Left', 'left'), button('→ Right', 'right'), button('↑ Up', 'up'), button('↓ Down', 'down')]
    : [button('Zoom in (+)', 'zoom-in'), button('Zoom out (−)', 'zoom-out'), button('← Left', 'left'), button('→ Right', 'right')];
  const exportDims: ExportDim[] = axes.map((a) => ({ name: a.name, labels: a.labels }));
  // A file name from repository text: only letters, digits and a few marks survive.
  const selText = selectionText(selection).slice(1, -1).replace(/\s+/g, '').replace(/:/g, '-'); // [0, 2:5] -> 0,2-5
  const fileBase = `${name}${selText ? `_${selText}` : ''}`.replace(/[^\w.,-]+/g, '_').replace(/^[._]+/, '').slice(0, 120) || 'selection';
  const download = (label: string, make: () => Blob | undefined, file: string) => {
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', () => {
      const blob = make();
      if (!blob) return;
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: file });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
    return b;
  };
  const npy = npyBytes(data, result.shape);
  section.append(
    h('div', { class: 'controls', role: 'group', 'aria-label': 'Zoom and pan' }, ...moves),
    canvas,
    h('p', { id: 'plot-summary' }, summary),
    h('div', { class: 'controls', role: 'group', 'aria-label': 'Download the selection' },
      download('Download CSV', () => new Blob([selectionCsv(name, exportDims, data as ArrayLike<number | bigint>)], { type: 'text/csv' }), `${fileBase}.csv`),
      npy ? download('Download .npy', () => new Blob([npy as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), `${fileBase}.npy`) : null),
    ...result.cf.warnings.map((w) => h('p', { class: 'muted' }, `CF: ${w}`)));
  return section;
}

function note(section: HTMLElement, text: string): HTMLElement {
  section.append(h('p', { class: 'error' }, text));
  return section;
}

function form(state: ViewState): HTMLFormElement {
  const input = (label: string, name: string, value: string, size: number) => h('label', {}, label, h('input', { name, value, size, autocomplete: 'off', spellcheck: 'false' }));
  const select = h('select', { name: 'cmap' }, ...COLORMAP_NAMES.map((n) => h('option', { value: n, selected: n === (state.cmap ?? 'viridis') }, n)));
  const f = h('form', { class: 'slice', 'aria-label': 'What to show' },
    input('Version (branch, tag, snapshot)', 'ref', state.ref, 14),
    input('Array', 'path', state.path ?? '', 28),
    input('Selection [i, a:b, ::s] or query .from(…)…', 'sel', state.sel ?? '', 36),
    h('label', {}, 'Colour map', select),
    h('button', { type: 'submit' }, 'Show'));
  f.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(f);
    const text = (k: string) => String(data.get(k) ?? '').trim() || undefined;
    location.hash = viewHash({ view: 'slice', ref: text('ref') ?? 'main', path: text('path'), sel: text('sel'), cmap: text('cmap') });
  });
  return f;
}

/** Each kept dimension's axis: its coordinate (same name beside the array) when one fits, positions otherwise. */
async function describeAxes(session: Session, array: ZarrArray, path: string, selection: Selection): Promise<Axis[]> {
  const axes: Axis[] = [];
  for (const [d, sel] of normalizeSelection(selection, array.shape).entries()) {
    if (sel.drop) continue;
    const name = array.dimensionNames?.[d] ?? `dim ${d}`;
    const indices = Array.from({ length: sel.count }, (_, k) => sel.start + k * sel.step);
    const coordinate = await coordinateOf(session, path, name, array.shape[d] ?? 0);
    if (!coordinate) {
      axes.push({ name, indices, labels: indices.map(String) });
      continue;
    }
    const all = coordinate.values;
    const values = all instanceof Float64Array ? Float64Array.from(indices, (i) => all[i] ?? NaN) : indices.map((i) => all[i] ?? '');
    const calendar = values instanceof Float64Array ? coordinate.calendar : undefined; // dates on the coordinate's own calendar
    const labels = calendar && values instanceof Float64Array ? calendar.labels(values) : coordinateLabels(values, coordinate.time, coordinate.float32);
    axes.push({ name, indices, values, units: coordinate.units, time: coordinate.time, float32: coordinate.float32, calendar, labels });
  }
  return axes;
}

/** "name = label" for each dimension an integer index dropped: its coordinate's label (a date on a time axis), or the index. */
async function fixedLabels(session: Session, array: ZarrArray, path: string, dims: readonly DimSelection[]): Promise<string[]> {
  const out: string[] = [];
  for (const [d, sel] of dims.entries()) {
    if (!sel.drop) continue;
    const name = array.dimensionNames?.[d] ?? `dim ${d}`;
    const coordinate = await coordinateOf(session, path, name, array.shape[d] ?? 0);
    const all = coordinate?.values;
    const value = all === undefined ? undefined : all instanceof Float64Array ? Float64Array.of(all[sel.start] ?? NaN) : [all[sel.start] ?? ''];
    const label = value && coordinate ? (value instanceof Float64Array && coordinate.calendar ? coordinate.calendar.labels(value) : coordinateLabels(value, coordinate.time, coordinate.float32))[0] : undefined;
    out.push(`${name} = ${label ?? sel.start}`);
  }
  return out;
}

async function coordinateOf(session: Session, arrayPath: string, dim: string, length: number) {
  const path = joinPath(parentPath(arrayPath), dim);
  const node = await session.node(path);
  if (!node || node.kind !== 'array') return undefined;
  try {
    const c = await loadCoordinate(session.store, path, dim, MAX_LABELS);
    if (c.values.length !== length) return undefined;
    const meta = await ZarrArray.open(session.store, path);
    const units = typeof meta.attributes.units === 'string' ? meta.attributes.units : undefined;
    const calendar = c.values instanceof Float64Array ? cfAxisCalendar(c.cfTime, c.time !== undefined, c.values, path) : undefined;
    return { values: c.values, units, time: c.time, calendar, float32: c.dtype === 'float32' || c.dtype === 'float16' };
  } catch (err) {
    if (isFloeError(err, 'UNSUPPORTED', 'INVALID_ARGUMENT')) return undefined; // no label order, or a calendar JS dates cannot hold
    throw err;
  }
}
