// The closed set of operation-node kinds. Passes that visit nodes dispatch through maps typed
// `Record<NodeKind, ...>`, so adding a kind here fails the build until every pass handles it.
import type { FromNode } from './from-node.ts';
import type { LimitNode } from './limit-node.ts';
import type { NearestNode } from './nearest-node.ts';
import type { QueryNode } from './query-node.ts';
import type { SelectNode } from './select-node.ts';
import type { StrideNode } from './stride-node.ts';
import type { WhereIndexNode } from './where-index-node.ts';
import type { WhereNode } from './where-node.ts';

export type OperationNode = QueryNode | FromNode | SelectNode | WhereNode | WhereIndexNode | NearestNode | LimitNode | StrideNode;

export type NodeKind = OperationNode['kind'];

export type NodeOfKind<K extends NodeKind> = Extract<OperationNode, { kind: K }>;

/** A pass with one handler per kind; the mapped type makes a missing kind a compile error. */
export type NodeVisitor<R> = { readonly [K in NodeKind]: (node: NodeOfKind<K>) => R };

export function visitNode<R>(visitor: NodeVisitor<R>, node: OperationNode): R {
  // The lookup is keyed by the node's own kind, so the handler always matches the node.
  return (visitor[node.kind] as (n: OperationNode) => R)(node);
}
