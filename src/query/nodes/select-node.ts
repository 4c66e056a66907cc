// Further arrays read with the same dimension selections as the `from` array (its coordinates,
// or other variables on the same grid). Relative paths resolve in the `from` array's group.
import { floeError } from '../../errors.ts';

export interface SelectNode {
  readonly kind: 'SelectNode';
  readonly paths: readonly string[];
}

export const SelectNode = Object.freeze({
  is(node: { kind: string }): node is SelectNode {
    return node.kind === 'SelectNode';
  },
  create(paths: readonly string[]): SelectNode {
    for (const p of paths) {
      if (typeof p !== 'string' || p === '') throw floeError('INVALID_ARGUMENT', `select() takes array paths, got ${JSON.stringify(p)}`);
    }
    return Object.freeze({ kind: 'SelectNode', paths: Object.freeze([...new Set(paths)]) });
  },
  cloneWithPaths(node: SelectNode, paths: readonly string[]): SelectNode {
    return SelectNode.create([...node.paths, ...paths]);
  },
});
