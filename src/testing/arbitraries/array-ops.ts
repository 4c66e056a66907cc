// Sequences of reads and writes on one array. A write's values come from a seed (see chunk-data.ts)
// and take one of three forms: flat C-order data, the same data with Fortran strides, or a scalar.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import { resolveOrUndefined, type ModelItem } from '../model/array-model.ts';
import { selectionArb, type SelectionOptions } from './selections.ts';

/** How a write passes its values: flat C-order data, the same data with Fortran strides, or a scalar. */
export type WriteForm = 'flat' | 'fortran' | 'scalar';

/**
 * One operation of a generated sequence: a write of values from `seed`, or a read (optionally into an `out` buffer).
 */
export type ArrayOp =
  | { readonly kind: 'write'; readonly selection: ModelItem[]; readonly form: WriteForm; readonly seed: number }
  | { readonly kind: 'read'; readonly selection: ModelItem[]; readonly useOut: boolean };

/** Options of {@link arrayOpsArb}. */
export interface ArrayOpsOptions extends SelectionOptions {
  /** Default all three. */
  readonly writeForms?: readonly WriteForm[];
  /** Default 6. */
  readonly maxOps?: number;
  /** Replace selections of no elements by the whole array; default false. */
  readonly nonEmptySelections?: boolean;
}

/** fast-check arbitrary of read and write sequences on an array of `shape`. */
export function arrayOpsArb(shape: readonly number[], options: ArrayOpsOptions = {}): Arbitrary<ArrayOp[]> {
  const any = selectionArb(shape, options);
  const empty = (items: ModelItem[]): boolean => resolveOrUndefined(items, shape)?.some((d) => d.indices.length === 0) ?? false;
  const sel = options.nonEmptySelections ? any.map((items) => (empty(items) ? [] : items)) : any;
  const forms = options.writeForms ?? ['flat', 'fortran', 'scalar'];
  const write = fc.record({ kind: fc.constant('write' as const), selection: sel, form: fc.constantFrom(...forms), seed: fc.nat() });
  const read = fc.record({ kind: fc.constant('read' as const), selection: sel, useOut: fc.boolean() });
  return fc.array(fc.oneof({ arbitrary: write, weight: 3 }, { arbitrary: read, weight: 2 }), { minLength: 1, maxLength: options.maxOps ?? 6 });
}
