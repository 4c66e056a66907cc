// A label predicate on one dimension, resolved through that dimension's coordinate array.
// `between` is inclusive at both ends, like xarray's label slices; `in` selects listed labels.
import { floeError } from '../../errors.ts';
import { checkDimName, describeLabel, freezeLabel, type LabelValue } from './label.ts';

/** The comparisons `where` applies to one label. */
export type ComparisonOp = '=' | '<' | '<=' | '>' | '>=';
/** Every `where` operator: a comparison, `between` (inclusive) or `in` (a list of labels). */
export type WhereOp = ComparisonOp | 'between' | 'in';
export const WHERE_OPS: readonly WhereOp[] = Object.freeze(['=', '<', '<=', '>', '>=', 'between', 'in']);

/** The value a `where` takes for each operator. */
export type WhereValue<Op extends WhereOp> = Op extends 'between' ? readonly [LabelValue, LabelValue] : Op extends 'in' ? readonly LabelValue[] : LabelValue;

export type WhereNode =
  | { readonly kind: 'WhereNode'; readonly dim: string; readonly op: ComparisonOp; readonly value: LabelValue }
  | { readonly kind: 'WhereNode'; readonly dim: string; readonly op: 'between'; readonly value: readonly [LabelValue, LabelValue] }
  | { readonly kind: 'WhereNode'; readonly dim: string; readonly op: 'in'; readonly value: readonly LabelValue[] };

export const WhereNode = Object.freeze({
  is(node: { kind: string }): node is WhereNode {
    return node.kind === 'WhereNode';
  },
  create(dim: string, op: WhereOp, value: unknown): WhereNode {
    checkDimName(dim);
    if (!WHERE_OPS.includes(op)) {
      throw floeError('INVALID_ARGUMENT', `dimension "${dim}": unknown operator ${JSON.stringify(op)}; use one of ${WHERE_OPS.join(' ')}`);
    }
    if (op === 'between') {
      if (!Array.isArray(value) || value.length !== 2) {
        throw floeError('INVALID_ARGUMENT', `dimension "${dim}": between takes [low, high], got ${describeLabel(value)}`, { details: { dim } });
      }
      const pair = Object.freeze([freezeLabel(dim, value[0]), freezeLabel(dim, value[1])] as const);
      return Object.freeze({ kind: 'WhereNode', dim, op, value: pair });
    }
    if (op === 'in') {
      if (!Array.isArray(value) || value.length === 0) {
        throw floeError('INVALID_ARGUMENT', `dimension "${dim}": in takes a non-empty list of labels, got ${describeLabel(value)}`, { details: { dim } });
      }
      return Object.freeze({ kind: 'WhereNode', dim, op, value: Object.freeze(value.map((v) => freezeLabel(dim, v))) });
    }
    if (Array.isArray(value)) {
      throw floeError('INVALID_ARGUMENT', `dimension "${dim}": ${op} takes one label, got the list ${describeLabel(value)}; use "in" or "between"`);
    }
    return Object.freeze({ kind: 'WhereNode', dim, op, value: freezeLabel(dim, value) });
  },
});
