// The value a `set` writes, checked whole before any chunk is read or written: its shape, the kind
// of its storage, the reach of its strides, and (for string and binary arrays) every element the
// selection takes. The codecs would refuse a bad element too, but only once they encode its chunk,
// after other chunks were already written.
import { floeError, isFloeError } from '../errors.ts';
import type { ArrayData, DataType } from '../format/zarr/data-types.ts';
import { parseFillValue, type FillValueInput } from '../format/zarr/fill-value.ts';
import { isFloat16Array, type Float16Data } from '../format/zarr/float16-array.ts';
import { cStrides, product, type NdArray, type StridedView } from '../format/zarr/ndarray.ts';
import { zipEvery, zipMap } from './indexing.ts';
import { resultShape, type DimSelection } from './selection.ts';

/** A value to write: an NdArray or flat C-order data of the selection's shape, or one scalar. */
export type WriteValue = NdArray | ArrayData | Float16Data | number | bigint | boolean | string;

/** What the value is written into, for checks and messages. */
export interface WriteTarget {
  readonly path: string;
  readonly dataType: DataType;
}

/** A view of `value` at the full rank of `dims` (integer-indexed dimensions get stride 0). */
export function writeSource(target: WriteTarget, dims: readonly DimSelection[], value: WriteValue): StridedView {
  if (isScalar(value)) return scalarSource(target, dims, value);
  const shape = resultShape(dims);
  const given: NdArray = isNdArray(value) ? value : { data: value as ArrayData, shape, stride: cStrides(shape) };
  const nd = target.dataType.name === 'float16' && isFloat16Array(given.data) ? { ...given, data: Float32Array.from(given.data) } : given; // exact
  checkShape(target, nd, shape, isNdArray(value));
  checkDataKind(target, nd.data);
  checkReach(target, nd);
  checkElements(target, nd.data, nd.shape, nd.stride);
  // checkShape matched nd.shape to the kept dimensions, so nd.stride has one entry per kept one.
  const kept = nd.stride.values();
  const stride = dims.map((d) => {
    if (d.drop) return 0;
    const s = kept.next();
    if (s.done === true) throw floeError('INVALID_ARGUMENT', `value has ${nd.stride.length} dimensions, fewer than the selection keeps`, { where: target.path });
    return s.value;
  });
  return { data: nd.data, offset: 0, stride };
}

function scalarSource(target: WriteTarget, dims: readonly DimSelection[], value: number | bigint | boolean | string): StridedView {
  const { path, dataType } = target;
  try {
    const one = parseFillValue(dataType, value as FillValueInput);
    checkElements(target, one.memory, [1], [1]);
    return { data: one.memory, offset: 0, stride: dims.map(() => 0) };
  } catch (err) {
    if (!isFloeError(err, 'INVALID_METADATA')) throw err;
    // parseFillValue speaks of fill values; say it is the written value instead, keeping its reason.
    const reason = err.message.replace(/^.*? is not valid for data type \S+: /, '');
    throw floeError('INVALID_ARGUMENT', `cannot write ${show(value)} to ${dataType.name} array ${path}: ${reason}; pass a value the data type can hold`, {
      where: path,
      cause: err,
    });
  }
}

function checkShape(target: WriteTarget, nd: NdArray, shape: readonly number[], given: boolean): void {
  if (nd.shape.length !== shape.length || nd.shape.some((n, i) => n !== shape[i])) {
    throw floeError('INVALID_SELECTION', `value has shape [${nd.shape.join(', ')}] but the selection has shape [${shape.join(', ')}]`, { where: target.path });
  }
  const need = product(shape) * target.dataType.lanes;
  if (!given && nd.data.length !== need) {
    throw floeError('INVALID_SELECTION', `value holds ${nd.data.length} numbers, the selection needs ${need}`, { where: target.path });
  }
  if (given && nd.stride.length !== nd.shape.length) {
    throw floeError('INVALID_ARGUMENT', `value has ${nd.shape.length} dimensions but ${nd.stride.length} strides`, { where: target.path });
  }
}

function checkDataKind(target: WriteTarget, data: ArrayData): void {
  const sample = target.dataType.allocate(0);
  if (data.constructor !== sample.constructor) {
    const want = (sample.constructor as { name: string }).name;
    throw floeError('INVALID_ARGUMENT', `a ${target.dataType.name} array takes values in a ${want}, got ${data.constructor.name}`, { where: target.path });
  }
}

/** An NdArray's strides must stay inside its data, or the copy would read past its end. */
function checkReach(target: WriteTarget, nd: NdArray): void {
  if (product(nd.shape) === 0) return;
  let low = 0;
  let high = 0;
  zipEvery(nd.shape, nd.stride, (n, s) => {
    const span = (n - 1) * s;
    if (span < 0) low += span;
    else high += span;
    return true;
  });
  const elements = nd.data.length / target.dataType.lanes;
  if (low < 0 || high >= elements) {
    throw floeError('INVALID_ARGUMENT', `value's strides [${nd.stride.join(', ')}] reach elements ${low}..${high} but its data holds ${elements}`, { where: target.path });
  }
}

/** Variable-length arrays hold elements in a JS array: check each one the write takes. */
function checkElements(target: WriteTarget, data: ArrayData, shape: readonly number[], stride: readonly number[]): void {
  const kind = target.dataType.kind;
  if (kind !== 'string' && kind !== 'binary') return;
  const items = data as readonly unknown[];
  forEachOffset(shape, stride, (offset, index) => {
    const problem = elementProblem(items[offset], kind);
    if (problem) {
      throw floeError('INVALID_ARGUMENT', `element [${index.join(', ')}] of the value written to ${target.dataType.name} array ${target.path} ${problem}`, {
        where: target.path,
      });
    }
  });
}

// A lone UTF-16 surrogate has no UTF-8 form; TextEncoder would silently replace it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function elementProblem(item: unknown, kind: 'string' | 'binary'): string | undefined {
  if (kind === 'binary') return item instanceof Uint8Array ? undefined : `must be a Uint8Array, got ${describe(item)}`;
  if (typeof item !== 'string') return `must be a string, got ${describe(item)}`;
  return LONE_SURROGATE.test(item) ? 'contains a lone UTF-16 surrogate, which UTF-8 cannot represent' : undefined;
}

/** Visits every element of a strided block: its offset in the data and its index. */
function forEachOffset(shape: readonly number[], stride: readonly number[], visit: (offset: number, index: number[]) => void): void {
  const index = new Array<number>(shape.length).fill(0);
  const dims = zipMap(shape, stride, (n, s) => ({ n, s }));
  const walk = (d: number, offset: number): void => {
    const dim = dims[d];
    if (dim === undefined) return visit(offset, index); // past the last dimension
    for (let i = 0; i < dim.n; i++) {
      index[d] = i;
      walk(d + 1, offset + i * dim.s);
    }
  };
  walk(0, 0);
}

function isScalar(v: WriteValue): v is number | bigint | boolean | string {
  return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'string';
}

function isNdArray(v: WriteValue): v is NdArray {
  return typeof v === 'object' && v !== null && !ArrayBuffer.isView(v) && !Array.isArray(v) && 'shape' in v && 'data' in v;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return `${typeof v} ${show(v)}`;
}

function show(v: unknown): string {
  return typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? JSON.stringify(v) : String(v);
}
