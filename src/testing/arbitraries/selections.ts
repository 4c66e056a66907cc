// Selections in NumPy basic-indexing form: integers (negative ones too, rarely out of bounds so both
// sides must refuse), slices with any bounds and steps (negative, larger than the dimension), the
// whole dimension, and at most one ellipsis standing for a run of dimensions.
import fc from '../fast-check.ts';
import type { Arbitrary } from 'fast-check';
import type { ModelItem } from '../model/array-model.ts';

/** Options of the selection arbitraries. */
export interface SelectionOptions {
  /** Negative slice steps; default true. */
  readonly negativeSteps?: boolean;
  /** Integers just outside the dimension (an implementation must refuse them); default true. */
  readonly outOfBounds?: boolean;
  /** '...' items; default true. */
  readonly ellipsis?: boolean;
}

/**
 * fast-check arbitrary of one selection item over a dimension of length `n`: slices with any
 * bounds and steps, the whole dimension, or an integer (sometimes just out of bounds).
 */
export function selectionItemArb(n: number, options: SelectionOptions = {}): Arbitrary<ModelItem> {
  const bound = fc.option(fc.integer({ min: -n - 2, max: n + 2 }), { freq: 3 });
  const steps = options.negativeSteps === false ? [null, 1, 2, 3, n + 1] : [null, 1, 2, 3, -1, -2, -3, n + 1, -(n + 1)];
  const arbs: Arbitrary<ModelItem>[] = [
    fc.record({ kind: fc.constant('slice' as const), start: bound, stop: bound, step: fc.constantFrom(...steps) }),
    fc.constant({ kind: 'all' as const }),
  ];
  if (options.outOfBounds !== false) arbs.push(fc.integer({ min: -n - 1, max: n }).map((i) => ({ kind: 'index' as const, i })));
  if (n > 0) arbs.push(fc.integer({ min: -n, max: n - 1 }).map((i) => ({ kind: 'index' as const, i })));
  return fc.oneof(...arbs);
}

/** fast-check arbitrary of NumPy-style basic selections of `shape`, with at most one ellipsis. */
export function selectionArb(shape: readonly number[], options: SelectionOptions = {}): Arbitrary<ModelItem[]> {
  const ellipsis = options.ellipsis === false ? fc.constant(null) : fc.option(fc.tuple(fc.nat(shape.length), fc.nat(shape.length)));
  return fc
    .tuple(fc.tuple(...shape.map((n) => selectionItemArb(n, options))), fc.option(fc.nat(shape.length)), ellipsis)
    .map(([items, keep, dots]) => {
      // '...' stands for a run of dimensions (possibly none); without one, trailing items may be left out.
      if (dots) {
        const [a, b] = [Math.min(...dots), Math.max(...dots)];
        return [...items.slice(0, a), { kind: 'ellipsis' as const }, ...items.slice(b)];
      }
      return keep === null ? items : items.slice(0, keep);
    });
}

/** A selection written the way Python would: `[1, 2:5:-1, ..., :]` (for readable reports). */
export function describeSelection(items: readonly ModelItem[]): string {
  const part = (it: ModelItem): string => {
    if (it.kind === 'index') return String(it.i);
    if (it.kind === 'all') return ':';
    if (it.kind === 'ellipsis') return '...';
    return `${it.start ?? ''}:${it.stop ?? ''}${it.step === null ? '' : `:${it.step}`}`;
  };
  return `[${items.map(part).join(', ')}]`;
}
