// Thinning after the predicates: `limit` keeps the first n selected indices of a dimension.
// Thinning nodes apply in the order they were called (limit then stride differs from stride then limit).
import { floeError } from '../../errors.ts';
import { checkDimName } from './label.ts';

export interface LimitNode {
  readonly kind: 'LimitNode';
  readonly dim: string;
  readonly count: number;
}

export const LimitNode = Object.freeze({
  is(node: { kind: string }): node is LimitNode {
    return node.kind === 'LimitNode';
  },
  create(dim: string, count: number): LimitNode {
    checkDimName(dim);
    if (!Number.isInteger(count) || count < 0) throw floeError('INVALID_ARGUMENT', `dimension "${dim}": limit must be an integer >= 0, got ${count}`, { details: { dim } });
    return Object.freeze({ kind: 'LimitNode', dim, count });
  },
});
