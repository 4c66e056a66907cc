// Thinning after the predicates: `stride` keeps every n-th selected index of a dimension.
// Thinning nodes apply in the order they were called.
import { floeError } from '../../errors.ts';
import { checkDimName } from './label.ts';

export interface StrideNode {
  readonly kind: 'StrideNode';
  readonly dim: string;
  readonly step: number;
}

export const StrideNode = Object.freeze({
  is(node: { kind: string }): node is StrideNode {
    return node.kind === 'StrideNode';
  },
  create(dim: string, step: number): StrideNode {
    checkDimName(dim);
    if (!Number.isInteger(step) || step < 1) throw floeError('INVALID_ARGUMENT', `dimension "${dim}": stride must be an integer >= 1, got ${step}`, { details: { dim } });
    return Object.freeze({ kind: 'StrideNode', dim, step });
  },
});
