// An array printed with its labels beside the values, as a reader of `floe query` wants it:
// dimensions of length one are stated once (`lat = 52.5`), one dimension left is a column of
// labels and values, two are a table with the row labels down the side and the column labels
// across the top, and more are such tables one after another, each headed by the labels of the
// dimensions in front. Like NumPy's print, more than `threshold` values show only `edgeItems` at
// each end of every dimension, and columns that do not fit the line width are elided in the middle.
import type { ArrayData, DataType } from '../format/zarr/data-types.ts';
import { elementFormatter } from './format-array.ts';

export interface LabelledDim {
  readonly name: string;
  /** One label per position of the result along this dimension. */
  readonly labels: readonly string[];
}

export interface LabelledOptions {
  readonly threshold?: number;
  readonly edgeItems?: number;
  readonly lineWidth?: number;
  /** The values' column title for one dimension (default "value"). */
  readonly valueName?: string;
  /** A vlen-array array's element type: each element prints as the list of its values. */
  readonly elementType?: DataType | undefined;
  /** Strings print without quotes (dates as ISO text). */
  readonly unquoted?: boolean | undefined;
}

type Shown = readonly (number | null)[]; // positions shown, null where elided

const positions = (n: number, elide: boolean, edge: number): Shown =>
  elide && n > 2 * edge ? [...range(0, edge), null, ...range(n - edge, n)] : range(0, n);

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

const label = (dim: LabelledDim, i: number): string => dim.labels[i] ?? String(i);

export function formatLabelled(data: ArrayData, shape: readonly number[], dataType: DataType, dims: readonly LabelledDim[], options: LabelledOptions = {}): string {
  const edge = options.edgeItems ?? 3;
  const total = shape.reduce((a, b) => a * b, 1);
  if (total === 0) return '(no values selected)';
  const elide = total > (options.threshold ?? 1000);
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const kept = shape.map((n, d) => d).filter((d) => (shape[d] ?? 0) !== 1);
  const single = shape.map((n, d) => d).filter((d) => (shape[d] ?? 0) === 1);
  const shown = new Map(kept.map((d) => [d, positions(shape[d] ?? 0, elide, edge)]));
  // Every element that will be printed, so floats share one number of decimals.
  const offsets: number[] = [];
  const walk = (k: number, offset: number): void => {
    const d = kept[k];
    if (d === undefined) return void offsets.push(offset);
    for (const i of shown.get(d) ?? []) if (i !== null) walk(k + 1, offset + i * (strides[d] ?? 0));
  };
  walk(0, 0);
  const text = options.unquoted && Array.isArray(data) ? (i: number) => String(data[i]) : elementFormatter(data, dataType, offsets, options.elementType);
  const lines = single.map((d) => `${dimAt(dims, d).name} = ${label(dimAt(dims, d), 0)}`);
  if (kept.length === 0) return [...lines, text(0)].join('\n');
  const cell = (offset: number) => text(offset);
  if (kept.length === 1) {
    const [d] = kept as [number];
    return [...lines, column(dimAt(dims, d), shown.get(d) ?? [], (i) => cell(i * (strides[d] ?? 0)), options.valueName ?? 'value')].join('\n');
  }
  const rowDim = kept[kept.length - 2] ?? 0;
  const colDim = kept[kept.length - 1] ?? 0;
  const outer = kept.slice(0, -2);
  const blocks: string[] = [];
  const block = (k: number, offset: number, heading: string[]): void => {
    const d = outer[k];
    if (d === undefined) {
      const table = grid(dimAt(dims, rowDim), dimAt(dims, colDim), shown.get(rowDim) ?? [], shown.get(colDim) ?? [], (r, c) => cell(offset + r * (strides[rowDim] ?? 0) + c * (strides[colDim] ?? 0)), options.lineWidth ?? 75);
      blocks.push(heading.length > 0 ? `[${heading.join(', ')}]\n${table}` : table);
      return;
    }
    for (const i of shown.get(d) ?? []) {
      if (i === null) blocks.push('...');
      else block(k + 1, offset + i * (strides[d] ?? 0), [...heading, `${dimAt(dims, d).name} = ${label(dimAt(dims, d), i)}`]);
    }
  };
  block(0, 0, []);
  return [...lines, blocks.join('\n\n')].join('\n');
}

function dimAt(dims: readonly LabelledDim[], d: number): LabelledDim {
  return dims[d] ?? { name: `#${d}`, labels: [] };
}

/** One dimension: labels down the left, values right-aligned beside them. */
function column(dim: LabelledDim, shown: Shown, value: (i: number) => string, valueName: string): string {
  const rows = shown.map((i) => (i === null ? ['...', '...'] : [label(dim, i), value(i)]));
  const w0 = Math.max(dim.name.length, ...rows.map((r) => (r[0] ?? '').length));
  const w1 = Math.max(valueName.length, ...rows.map((r) => (r[1] ?? '').length));
  return [[dim.name, valueName], ...rows].map(([a = '', b = '']) => `${a.padEnd(w0)}  ${b.padStart(w1)}`.trimEnd()).join('\n');
}

/** Two dimensions: a corner `row \ col`, column labels across, row labels down, values right-aligned. */
function grid(rowDim: LabelledDim, colDim: LabelledDim, rows: Shown, cols: Shown, value: (r: number, c: number) => string, lineWidth: number): string {
  const corner = `${rowDim.name} \\ ${colDim.name}`;
  const rowLabels = rows.map((r) => (r === null ? '...' : label(rowDim, r)));
  const w0 = Math.max(corner.length, ...rowLabels.map((l) => l.length));
  const columns = cols.map((c) => {
    const cells = rows.map((r) => (r === null || c === null ? '...' : value(r, c)));
    const head = c === null ? '...' : label(colDim, c);
    return { head, cells, width: Math.max(head.length, ...cells.map((s) => s.length)) };
  });
  const fitted = fitColumns(columns, lineWidth - w0);
  const line = (first: string, parts: string[]) => [first.padEnd(w0), ...parts].join('  ').trimEnd();
  return [
    line(corner, fitted.map((c) => c.head.padStart(c.width))),
    ...rowLabels.map((l, k) => line(l, fitted.map((c) => (c.cells[k] ?? '').padStart(c.width)))),
  ].join('\n');
}

interface Col {
  readonly head: string;
  readonly cells: readonly string[];
  readonly width: number;
}

/** As many columns from both ends as fit in `room`, with one `...` column between when some do not. */
function fitColumns(columns: readonly Col[], room: number): readonly Col[] {
  const width = (cs: readonly Col[]) => cs.reduce((n, c) => n + 2 + c.width, 0);
  if (width(columns) <= room || columns.length <= 2) return columns;
  const gap: Col = { head: '...', cells: (columns[0]?.cells ?? []).map(() => '...'), width: 3 };
  let [left, right] = [1, 1];
  // Bounded: each step adds one column, at most columns.length steps.
  for (let step = 0; step < columns.length; step++) {
    const wantLeft = left <= right;
    const next = wantLeft ? [...columns.slice(0, left + 1), gap, ...columns.slice(columns.length - right)] : [...columns.slice(0, left), gap, ...columns.slice(columns.length - right - 1)];
    if (left + right + 1 >= columns.length || width(next) > room) break;
    if (wantLeft) left++;
    else right++;
  }
  return [...columns.slice(0, left), gap, ...columns.slice(columns.length - right)];
}
