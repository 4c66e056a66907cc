// The root of a query tree: the array read, extra arrays selected with it, and the per-dimension
// operations in call order. Every `cloneWith...` returns a new frozen node; nothing is mutated,
// so two queries branched from one base never share state.
import type { FromNode } from './from-node.ts';
import type { LimitNode } from './limit-node.ts';
import type { NearestNode } from './nearest-node.ts';
import type { SelectNode } from './select-node.ts';
import type { StrideNode } from './stride-node.ts';
import type { WhereIndexNode } from './where-index-node.ts';
import type { WhereNode } from './where-node.ts';

/** Operations on one dimension. Filters intersect; thinning (limit, stride) applies after them. */
export type DimOperationNode = WhereNode | WhereIndexNode | NearestNode | LimitNode | StrideNode;

export interface QueryNode {
  readonly kind: 'QueryNode';
  readonly from: FromNode | undefined;
  readonly select: SelectNode | undefined;
  readonly operations: readonly DimOperationNode[];
}

export const QueryNode = Object.freeze({
  is(node: { kind: string }): node is QueryNode {
    return node.kind === 'QueryNode';
  },
  create(): QueryNode {
    return Object.freeze({ kind: 'QueryNode', from: undefined, select: undefined, operations: Object.freeze([]) });
  },
  cloneWithFrom(node: QueryNode, from: FromNode): QueryNode {
    return Object.freeze({ ...node, from });
  },
  cloneWithSelect(node: QueryNode, select: SelectNode): QueryNode {
    return Object.freeze({ ...node, select });
  },
  cloneWithOperation(node: QueryNode, op: DimOperationNode): QueryNode {
    return Object.freeze({ ...node, operations: Object.freeze([...node.operations, op]) });
  },
});
