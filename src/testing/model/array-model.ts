// The reference model of a Zarr array: one dense flat buffer holding every element, fill value
// included, indexed the obvious way. It shares no code with the engine (src/engine): its
// selection semantics are written out from Python's `slice.indices` and NumPy basic indexing, and
// elements are kept as raw memory bytes so every comparison is bit-exact (NaN payloads too).
import { checkedAt, zipMap } from '../../engine/indexing.ts';

/** A selection item in a form both the model and the engine adapter understand. */
export type ModelItem =
  | { readonly kind: 'index'; readonly i: number }
  | { readonly kind: 'slice'; readonly start: number | null; readonly stop: number | null; readonly step: number | null }
  | { readonly kind: 'all' }
  | { readonly kind: 'ellipsis' };

/** CPython's `slice(start, stop, step).indices(n)` (Objects/sliceobject.c), step defaulting to 1. */
export function pythonSliceIndices(start: number | null, stop: number | null, step: number | null, n: number): [number, number, number] {
  const st = step ?? 1;
  if (st === 0) throw new Error('slice step cannot be zero');
  const lower = st < 0 ? -1 : 0;
  const upper = st < 0 ? n - 1 : n;
  const bound = (v: number | null, dflt: number): number => {
    if (v === null) return dflt;
    if (v < 0) return Math.max(v + n, lower);
    return Math.min(v, upper);
  };
  return [bound(start, st < 0 ? upper : lower), bound(stop, st < 0 ? lower : upper), st];
}

/** Python's `list(range(start, stop, step))`. */
export function pythonRange(start: number, stop: number, step: number): number[] {
  const out: number[] = [];
  if (step > 0) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  return out;
}

/** Per dimension: the selected indices and whether the dimension is dropped (integer index). */
export interface ModelDim {
  readonly indices: readonly number[];
  readonly drop: boolean;
}

/** Resolves a selection like NumPy basic indexing; throws `RangeError` where the engine must refuse. */
export function resolveSelection(items: readonly ModelItem[], shape: readonly number[]): ModelDim[] {
  const ellipses = items.filter((it) => it.kind === 'ellipsis').length;
  if (ellipses > 1) throw new RangeError('more than one ellipsis');
  const explicit = items.length - ellipses;
  if (explicit > shape.length) throw new RangeError('too many indices');
  const expanded: ModelItem[] = [];
  for (const it of items) {
    if (it.kind === 'ellipsis') for (let k = 0; k < shape.length - explicit; k++) expanded.push({ kind: 'all' });
    else expanded.push(it);
  }
  while (expanded.length < shape.length) expanded.push({ kind: 'all' });
  return zipMap(shape, expanded, (n, it) => {
    if (it.kind === 'all') return { indices: pythonRange(0, n, 1), drop: false };
    if (it.kind === 'index') {
      if (it.i < -n || it.i >= n) throw new RangeError(`index ${it.i} out of bounds for length ${n}`);
      return { indices: [it.i < 0 ? it.i + n : it.i], drop: true };
    }
    if (it.kind === 'slice') return { indices: pythonRange(...pythonSliceIndices(it.start, it.stop, it.step, n)), drop: false };
    throw new RangeError('unexpected ellipsis');
  });
}

/** The shape of a resolved selection's result (integer-indexed dimensions dropped). */
export function resultShapeOf(dims: readonly ModelDim[]): number[] {
  return dims.filter((d) => !d.drop).map((d) => d.indices.length);
}

/** Visits every selected element in C order of the result: its flat index in the full array. */
function forEachSelected(dims: readonly ModelDim[], shape: readonly number[], visit: (flat: number, k: number) => void): void {
  if (dims.some((d) => d.indices.length === 0)) return;
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  // An odometer over the selected indices: each axis's position in its index list.
  const axes = zipMap(dims, strides, (dim, stride) => ({ indices: dim.indices, stride, pos: 0 }));
  const innerFirst = [...axes].reverse();
  for (let k = 0; ; k++) {
    let flat = 0;
    for (const a of axes) flat += checkedAt(a.indices, a.pos, 'INVALID_SELECTION', 'odometer position') * a.stride;
    visit(flat, k);
    let wrapped = true;
    for (const a of innerFirst) {
      if (++a.pos < a.indices.length) {
        wrapped = false;
        break;
      }
      a.pos = 0;
    }
    if (wrapped) return;
  }
}

/**
 * Elements are `elementBytes` raw memory bytes each (numeric types) or strings. A fixed-size model
 * stores one Uint8Array; a string model one string[].
 */
export class ModelArray {
  readonly size: number;
  private readonly bytes: Uint8Array | undefined;
  private readonly strings: string[] | undefined;

  constructor(
    readonly shape: readonly number[],
    /** Memory bytes per element; 0 for strings. */
    readonly elementBytes: number,
    /** The fill value: `elementBytes` bytes, or a one-string array. */
    fill: Uint8Array | readonly string[],
  ) {
    this.size = shape.reduce((a, b) => a * b, 1);
    if (elementBytes === 0) {
      this.strings = new Array<string>(this.size).fill(checkedAt(fill as readonly string[], 0, 'INVALID_ARGUMENT', 'string fill value'));
    } else {
      this.bytes = new Uint8Array(this.size * elementBytes);
      for (let i = 0; i < this.size; i++) this.bytes.set(fill as Uint8Array, i * elementBytes);
    }
  }

  /**
   * Writes C-ordered values of the selection's shape (bytes or strings); a one-element value is
   * broadcast to every selected element.
   */
  write(dims: readonly ModelDim[], values: Uint8Array | readonly string[], broadcast: boolean): void {
    const w = this.elementBytes;
    const strings = this.strings;
    forEachSelected(dims, this.shape, (flat, k) => {
      const src = broadcast ? 0 : k;
      if (strings) strings[flat] = checkedAt(values as readonly string[], src, 'INVALID_ARGUMENT', 'value shorter than the selection');
      else this.bytes!.set((values as Uint8Array).subarray(src * w, (src + 1) * w), flat * w);
    });
  }

  /** The selected elements in C order: raw memory bytes, or strings. */
  read(dims: readonly ModelDim[]): Uint8Array | string[] {
    const n = dims.reduce((a, d) => a * d.indices.length, 1);
    const w = this.elementBytes;
    const strings = this.strings;
    if (strings) {
      const out = new Array<string>(n);
      forEachSelected(dims, this.shape, (flat, k) => (out[k] = checkedAt(strings, flat, 'INVALID_SELECTION', 'element outside the model array')));
      return out;
    }
    const out = new Uint8Array(n * w);
    forEachSelected(dims, this.shape, (flat, k) => out.set(this.bytes!.subarray(flat * w, (flat + 1) * w), k * w));
    return out;
  }
}

/** `resolveSelection`, or undefined where an implementation must refuse the selection. */
export function resolveOrUndefined(items: readonly ModelItem[], shape: readonly number[]): ModelDim[] | undefined {
  try {
    return resolveSelection(items, shape);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}
