// A positional selection on one dimension: indices start, start+step, ... below stop. Negative
// bounds count from the end (Python slices); a null bound is open. Steps are positive: result
// order always follows the array's index order.
import { floeError } from '../../errors.ts';
import { checkDimName } from './label.ts';

export interface WhereIndexNode {
  readonly kind: 'WhereIndexNode';
  readonly dim: string;
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number;
}

export const WhereIndexNode = Object.freeze({
  is(node: { kind: string }): node is WhereIndexNode {
    return node.kind === 'WhereIndexNode';
  },
  create(dim: string, start: number | null, stop: number | null, step = 1): WhereIndexNode {
    checkDimName(dim);
    for (const [name, v] of [['start', start], ['stop', stop]] as const) {
      if (v !== null && !Number.isInteger(v)) throw floeError('INVALID_SELECTION', `dimension "${dim}": whereIndex ${name} must be an integer or null, got ${v}`, { details: { dim } });
    }
    if (!Number.isInteger(step) || step < 1) {
      throw floeError('INVALID_SELECTION', `dimension "${dim}": whereIndex step must be a positive integer, got ${step}`, { details: { dim } });
    }
    return Object.freeze({ kind: 'WhereIndexNode', dim, start, stop, step });
  },
});
