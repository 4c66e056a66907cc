// What `floe query` prints: every array the query read (the `from` array and each `select`ed one)
// with the labels of its rows and columns (the coordinate values of the selected positions; dates
// for CF time), as text, JSON (`labels` and `arrays` beside the original fields) or CSV (one row
// per element, a column per dimension's label and per array).
import { nodeMetadata, type ReadSource } from '../engine/read-source.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import { floeError } from '../errors.ts';
import { parseDataType, type ArrayData, type DataType, type TypedArray } from '../format/zarr/data-types.ts';
import { setIndices } from '../query/plan/dim-set.ts';
import type { ArrayResult, QueryResult } from '../query/result-types.ts';
import { labelsAt, loadDimCoordinate, valuesAt, type DimCoordinate } from './dimension-labels.ts';
import { elementList } from './format-array.ts';
import { formatLabelled } from './labelled-table.ts';
import { numberLabel } from '../plot/label-text.ts';

export interface ResultDim {
  readonly name: string;
  /** Positions selected along the dimension, in result order. */
  readonly indices: readonly number[];
  readonly coordinate: DimCoordinate | undefined;
  /** Text labels of those positions (the positions themselves without a coordinate). */
  readonly labels: readonly string[];
}

export interface DescribedResult {
  readonly result: QueryResult;
  readonly dims: readonly ResultDim[];
  /** Each array's `units` attribute, by path. */
  readonly units: ReadonlyMap<string, string>;
}

/** Loads the labels of every dimension of the result and the arrays' units. */
export async function describeResult(source: ReadSource, result: QueryResult, request?: AbortOptions): Promise<DescribedResult> {
  const dims: ResultDim[] = [];
  for (const d of result.plan.dims) {
    const indices = setIndices(d.set);
    const coordinate = await loadDimCoordinate(source, result.path, d.name, d.length, request);
    dims.push({ name: d.name, indices, coordinate, labels: labelsAt(coordinate, indices) });
  }
  const units = new Map<string, string>();
  for (const path of Object.keys(result.arrays)) {
    const node = await source.node(path, request);
    const u = node ? nodeMetadata(node).attributes.units : undefined;
    if (typeof u === 'string') units.set(path, u);
  }
  return { result, dims, units };
}

/** An array as it is shown: a decoded time variable's dates as ISO text ('NaT' where missing), else its data. */
function shown(a: ArrayResult): { data: ArrayData; dataType: DataType; dtype: string; dates: boolean } {
  const dates = a.cf?.dates;
  if (dates) return { data: dates.map((d) => (d === null ? 'NaT' : d.toString())), dataType: parseDataType('string'), dtype: 'date', dates: true };
  return { data: a.data, dataType: parseDataType(a.dtype), dtype: a.dtype, dates: false };
}

/** What the header says of a decoded array: its stored type, a time's units and calendar. */
function decodedNote(a: ArrayResult): string {
  const cf = a.cf;
  if (!cf) return '';
  const time = cf.variable.time;
  if (time) return ` (${time.calendar} calendar, stored ${cf.storedDtype} ${time.units})`;
  return cf.storedDtype === a.dtype ? '' : ` (stored ${cf.storedDtype})`;
}

/** JSON fields of a decoded array: stored type, calendar, and the stored values when kept. */
function decodedJson(a: ArrayResult): Record<string, unknown> {
  const cf = a.cf;
  if (!cf) return {};
  const time = cf.variable.time;
  return { storedDtype: cf.storedDtype, ...(time && { timeUnits: time.units, calendar: time.calendar }), ...(cf.stored && { stored: cf.stored }) };
}

/** A vlen-array result's element type (its elements print as lists of values). */
const elementTypeOf = (a: ArrayResult): DataType | undefined => (a.elementDtype === undefined ? undefined : parseDataType(a.elementDtype));
const arraysOf = (result: QueryResult): ArrayResult[] => Object.values(result.arrays);
const dimByName = (described: DescribedResult, name: string): ResultDim | undefined => described.dims.find((d) => d.name === name);

/** Each array as a header line and its labelled values, blank lines between arrays. */
export function queryText(described: DescribedResult, options: { threshold?: number; lineWidth?: number } = {}): string {
  return arraysOf(described.result)
    .map((a) => {
      const units = a.cf?.variable.time ? undefined : described.units.get(a.path);
      const view = shown(a);
      const header = `${a.path} ${view.dtype}${decodedNote(a)}${a.elementDtype ? ` of ${a.elementDtype}` : ''} [${a.shape.join(', ')}] (${a.dims.join(', ')})${units ? `, units ${units}` : ''}`;
      const dims = a.dims.map((name) => ({ name, labels: dimByName(described, name)?.labels ?? [] }));
      const body = formatLabelled(view.data, a.shape, view.dataType, dims, { ...options, valueName: a.path.split('/').pop() || a.path, elementType: elementTypeOf(a), unquoted: view.dates });
      return `${header}\n${body}`;
    })
    .join('\n\n');
}

/** JSON label values: numbers for numeric coordinates, ISO dates for CF time, strings, or positions. */
function jsonLabels(dim: ResultDim): readonly (number | string)[] {
  if (!dim.coordinate) return dim.indices;
  if (dim.coordinate.time || dim.coordinate.cfTime || !(dim.coordinate.values instanceof Float64Array)) return dim.labels;
  return Array.from(valuesAt(dim.coordinate, dim.indices) as Float64Array);
}

/** The query's JSON: the `from` array's fields as before, plus labels, coordinates and every array. */
export function queryJson(queryText: string, described: DescribedResult): Record<string, unknown> {
  const { result, dims, units } = described;
  return {
    query: queryText,
    path: result.path, dtype: shown(result).dtype, ...decodedJson(result), dims: result.dims, shape: result.shape, units: units.get(result.path), data: shown(result).data,
    labels: Object.fromEntries(dims.map((d) => [d.name, jsonLabels(d)])),
    coordinates: Object.fromEntries(dims.map((d) => [d.name, { path: d.coordinate?.path ?? null, units: d.coordinate?.units ?? null, indices: d.indices }])),
    arrays: arraysOf(result).map((a) => ({ path: a.path, dtype: shown(a).dtype, ...decodedJson(a), elementDtype: a.elementDtype, dims: a.dims, shape: a.shape, units: units.get(a.path), data: shown(a).data })),
    report: result.report,
  };
}

/** CSV rows above this are refused (a select of arrays with other dimensions multiplies rows). */
const MAX_CSV_ROWS = 1 << 26;
const ROWS_PER_WRITE = 1 << 14;

/**
 * Tidy CSV: a header of dimension names and array names, then one row per combination of the
 * selected positions with each dimension's label and each array's value there (an array without
 * one of the dimensions repeats along it).
 */
export async function writeQueryCsv(write: (text: string) => Promise<void>, described: DescribedResult): Promise<void> {
  const { dims } = described;
  const arrays = arraysOf(described.result);
  const counts = dims.map((d) => d.indices.length);
  const rows = counts.reduce((a, b) => a * b, 1);
  if (rows > MAX_CSV_ROWS) throw floeError('INVALID_ARGUMENT', `the CSV would have ${rows} rows (more than ${MAX_CSV_ROWS}); narrow the query or use --json`);
  const names = arrays.map((a) => a.path.split('/').pop() || a.path);
  const header = [...dims.map((d) => d.name), ...arrays.map((a, k) => (names.indexOf(names[k] ?? '') !== k || names.lastIndexOf(names[k] ?? '') !== k || dims.some((d) => d.name === names[k]) ? a.path : names[k] ?? a.path))];
  // Per array: its element stride along each result dimension (0 where it lacks the dimension).
  const cells = arrays.map((a) => {
    const strides = dims.map((d) => {
      const k = a.dims.indexOf(d.name);
      return k < 0 ? 0 : a.shape.slice(k + 1).reduce((x, y) => x * y, 1);
    });
    const element = elementTypeOf(a);
    const view = shown(a);
    return { strides, text: element ? (i: number) => csvQuote(elementList((a.data as TypedArray[])[i] ?? new Uint8Array(), element)) : csvCells(view.data, view.dataType) };
  });
  await write(header.map(csvQuote).join(',') + '\n');
  if (rows === 0) return;
  const position = new Array<number>(dims.length).fill(0);
  let batch: string[] = [];
  for (let row = 0; row < rows; row++) {
    const fields = dims.map((d, k) => csvQuote(d.labels[position[k] ?? 0] ?? ''));
    for (const c of cells) fields.push(c.text(position.reduce((sum, p, k) => sum + p * (c.strides[k] ?? 0), 0)));
    batch.push(fields.join(','));
    if (batch.length === ROWS_PER_WRITE) (await write(batch.join('\n') + '\n'), (batch = []));
    // Odometer: the last dimension moves fastest (C order, like the data).
    for (let k = dims.length - 1; k >= 0; k--) {
      position[k] = (position[k] ?? 0) + 1;
      if ((position[k] ?? 0) < (counts[k] ?? 0)) break;
      position[k] = 0;
    }
  }
  if (batch.length > 0) await write(batch.join('\n') + '\n');
}

export function csvQuote(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** One array's element i as a CSV field: shortest exact numbers (float32 as float32), NaN spelled out. */
function csvCells(data: ArrayData, dataType: DataType): (i: number) => string {
  const lanes = dataType.lanes;
  switch (dataType.kind) {
    case 'bool':
      return (i) => ((data as Uint8Array)[i] ? 'true' : 'false');
    case 'string':
      return (i) => csvQuote((data as string[])[i] ?? '');
    case 'binary':
      return (i) => hex((data as Uint8Array[])[i] ?? new Uint8Array());
    case 'raw':
      return (i) => hex((data as Uint8Array).subarray(i * lanes, (i + 1) * lanes));
    case 'int':
    case 'uint':
      return (i) => String((data as ArrayLike<number | bigint>)[i]);
    case 'float': {
      const single = data instanceof Float32Array;
      return (i) => numberLabel((data as Float32Array | Float64Array)[i] ?? NaN, single);
    }
    case 'complex': {
      const values = data as Float32Array | Float64Array;
      const single = values instanceof Float32Array;
      return (i) => {
        const [re, im] = [values[2 * i] ?? NaN, values[2 * i + 1] ?? NaN];
        return `${numberLabel(re, single)}${im < 0 || Object.is(im, -0) ? '-' : '+'}${numberLabel(Math.abs(im), single)}j`;
      };
    }
  }
}
