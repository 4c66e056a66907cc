// The array a query reads: its path in the store (or session), and optionally the data type the
// caller expects, so a mismatch fails at plan time instead of surfacing as a wrong typed array.
import { floeError } from '../../errors.ts';

export interface FromNode {
  readonly kind: 'FromNode';
  readonly path: string;
  /** Expected `data_type` name; undefined accepts any. */
  readonly dtype: string | undefined;
}

export const FromNode = Object.freeze({
  is(node: { kind: string }): node is FromNode {
    return node.kind === 'FromNode';
  },
  create(path: string, dtype?: string): FromNode {
    if (typeof path !== 'string' || path === '') throw floeError('INVALID_ARGUMENT', `from() needs an array path, got ${JSON.stringify(path)}`);
    return Object.freeze({ kind: 'FromNode', path, dtype });
  },
});
