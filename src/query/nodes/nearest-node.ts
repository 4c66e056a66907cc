// Selects the one coordinate label closest to a value; with a tolerance (in the coordinate's own
// units: days for "days since ...", whatever the value is a Date or a number), a label farther
// away than that fails the query. Ties go to the lower index.
import { floeError } from '../../errors.ts';
import { checkDimName, freezeLabel, type LabelValue } from './label.ts';

export interface NearestNode {
  readonly kind: 'NearestNode';
  readonly dim: string;
  readonly value: LabelValue;
  readonly tolerance: number | undefined;
}

/**
 * Options of {@link QueryBuilder.nearest}: with `tolerance` (in the coordinate's units), a nearest
 * label farther away than that fails the query with `NOT_FOUND`.
 */
export interface NearestOptions {
  tolerance?: number;
}

export const NearestNode = Object.freeze({
  is(node: { kind: string }): node is NearestNode {
    return node.kind === 'NearestNode';
  },
  create(dim: string, value: unknown, options: NearestOptions = {}): NearestNode {
    checkDimName(dim);
    const label = freezeLabel(dim, value);
    // Text is a date on a CF time coordinate ("2001-02-30" on 360_day); on others the plan refuses it.
    const { tolerance } = options;
    if (tolerance !== undefined && !(typeof tolerance === 'number' && tolerance >= 0)) {
      throw floeError('INVALID_ARGUMENT', `dimension "${dim}": tolerance must be a number >= 0, got ${String(tolerance)}`, { details: { dim } });
    }
    return Object.freeze({ kind: 'NearestNode', dim, value: label, tolerance });
  },
});
