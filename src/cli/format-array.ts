// NumPy-style printing of an n-d array (`print(a)`): nested brackets, values right-aligned to a
// common width, floats with the fewest decimals that still read back exactly (float32 judged as
// float32), and with more than `threshold` values only `edgeItems` at each end of every
// dimension around a `...`.
import type { ArrayData, DataType, TypedArray } from '../format/zarr/data-types.ts';
import { checkedAt } from '../engine/indexing.ts';

export interface FormatOptions {
  /** Above this many values, elide the middle of every dimension. Default 1000 (NumPy's). */
  threshold?: number;
  edgeItems?: number;
  lineWidth?: number;
  /** A vlen-array array's element type: each element prints as the list of its values. */
  elementType?: DataType | undefined;
  /** Strings print without quotes (dates as ISO text). */
  unquoted?: boolean | undefined;
}

type Cell = number | null; // an element index, or null for the elision mark

export function formatArray(data: ArrayData, shape: readonly number[], dataType: DataType, options: FormatOptions = {}): string {
  const threshold = options.threshold ?? 1000;
  const edge = options.edgeItems ?? 3;
  const lineWidth = options.lineWidth ?? 75;
  const total = shape.reduce((a, b) => a * b, 1);
  const elide = total > threshold;
  // Per dimension: the indices shown (null where elided) and the dimension's C-order stride.
  const levels = shape.map((n, d) => ({
    shown: elide && n > 2 * edge ? [...range(0, edge), null, ...range(n - edge, n)] : range(0, n),
    stride: shape.slice(d + 1).reduce((a, b) => a * b, 1),
  }));

  const indices: number[] = [];
  collect(0, 0);
  const text = options.unquoted && Array.isArray(data) ? (i: number) => String(data[i]) : elementFormatter(data, dataType, indices, options.elementType);
  const width = Math.max(0, ...indices.map((i) => text(i).length));
  if (shape.length === 0) return text(0);
  return render(0, 0);

  function collect(dim: number, offset: number): void {
    const level = levels[dim];
    if (level === undefined) return void indices.push(offset); // past the last dimension: an element
    for (const i of level.shown) if (i !== null) collect(dim + 1, offset + i * level.stride);
  }

  function render(dim: number, offset: number): string {
    const level = levels[dim];
    if (level === undefined) return text(offset); // past the last dimension: an element
    const indent = ' '.repeat(dim + 1);
    if (dim === shape.length - 1) {
      const items = level.shown.map((i: Cell) => (i === null ? '...' : text(offset + i * level.stride).padStart(width)));
      return '[' + wrap(items, lineWidth - dim - 2, indent) + ']';
    }
    // Blocks of a 3-d (or higher) array are separated by blank lines, one fewer per level in.
    const separator = '\n'.repeat(shape.length - dim - 1) + indent;
    const rows = level.shown.map((i: Cell) => (i === null ? '...' : render(dim + 1, offset + i * level.stride)));
    return '[' + rows.join(separator) + ']';
  }
}

function wrap(items: string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line !== '' && line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else line = line === '' ? item : `${line} ${item}`;
  }
  lines.push(line);
  return lines.join('\n' + indent);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/**
 * A formatter for one element index, chosen once from the elements that will be shown. The
 * elements of a vlen-array array (`elementType` given) print as lists: `[1, 2, 3]`.
 */
export function elementFormatter(data: ArrayData, dataType: DataType, shownIndices: readonly number[], elementType?: DataType): (i: number) => string {
  const lanes = dataType.lanes;
  if (elementType && Array.isArray(data)) return (i) => elementList(elementAt(data as TypedArray[], i), elementType);
  switch (dataType.kind) {
    case 'bool':
      return (i) => ((data as Uint8Array)[i] ? 'True' : 'False');
    case 'string':
      return (i) => `'${String((data as string[])[i]).replace(/'/g, "\\'")}'`;
    case 'binary':
      return (i) => `b'${Buffer.from(elementAt(data as Uint8Array[], i)).toString('hex')}'`;
    case 'raw':
      return (i) => '0x' + Buffer.from((data as Uint8Array).subarray(i * lanes, (i + 1) * lanes)).toString('hex');
    case 'int':
    case 'uint':
      return (i) => String((data as ArrayLike<number | bigint>)[i]);
    case 'float':
    case 'complex': {
      const values = data as Float32Array | Float64Array;
      const single = values instanceof Float32Array;
      const sample = shownIndices.flatMap((i) => Array.from(values.subarray(i * lanes, (i + 1) * lanes)));
      const num = floatFormatter(sample, single);
      if (dataType.kind === 'float') return (i) => num(elementAt(values, i));
      return (i) => {
        const im = elementAt(values, 2 * i + 1);
        return `${num(elementAt(values, 2 * i))}${im < 0 || Object.is(im, -0) ? '-' : '+'}${num(Math.abs(im))}j`;
      };
    }
  }
}

/** One vlen-array element's values, each printed as a flat array of its type prints them. */
export function elementList(element: TypedArray, elementType: DataType): string {
  const indices = range(0, element.length / Math.max(1, elementType.lanes));
  const text = elementFormatter(element, elementType, indices);
  return `[${indices.map(text).join(', ')}]`;
}

/** NumPy's rules in short: integers print as `3.`, tiny or huge magnitudes in exponent form. */
export function floatFormatter(sample: readonly number[], single: boolean): (v: number) => string {
  const finite = sample.filter((v) => Number.isFinite(v));
  const same = single ? (a: number, b: number) => Math.fround(a) === b : (a: number, b: number) => a === b;
  const special = (v: number) => (Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');
  const abs = finite.map(Math.abs).filter((v) => v > 0);
  const [lo, hi] = abs.length > 0 ? [Math.min(...abs), Math.max(...abs)] : [1, 1];
  const exponent = hi >= 1e8 || lo < 1e-4 || hi / lo > 1e3;
  if (exponent) {
    const digits = Math.max(0, ...finite.map((v) => fewest((d) => v.toExponential(d), v, same, 8)));
    return (v) => (Number.isFinite(v) ? v.toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2') : special(v));
  }
  const decimals = Math.max(0, ...finite.map((v) => fewest((d) => v.toFixed(d), v, same, 8)));
  return (v) => (Number.isFinite(v) ? (decimals === 0 ? `${v.toFixed(0)}.` : v.toFixed(decimals)) : special(v));
}

/** The fewest digits (up to `max`) with which `text(d)` reads back as `v`. */
function fewest(text: (d: number) => string, v: number, same: (a: number, b: number) => boolean, max: number): number {
  for (let d = 0; d < max; d++) if (same(Number(text(d)), v)) return d;
  return max;
}

/** The element a shown index names; the indices come from the array's own shape. */
function elementAt<T>(data: ArrayLike<T>, i: number): T {
  return checkedAt(data, i, 'INVALID_ARGUMENT', 'element index outside the array data');
}
