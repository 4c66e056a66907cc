// Prints a query tree as the builder calls that made it; explain() shows this above the plan.
import { describeLabel } from './label.ts';
import { visitNode, type NodeVisitor, type OperationNode } from './node-kind.ts';

const text: NodeVisitor<string> = {
  QueryNode: (n) => [n.from, n.select, ...n.operations].filter((x) => x !== undefined).map((x) => nodeText(x)).join(''),
  FromNode: (n) => `.from(${JSON.stringify(n.path)}${n.dtype ? `, ${JSON.stringify(n.dtype)}` : ''})`,
  SelectNode: (n) => `.select(${n.paths.map((p) => JSON.stringify(p)).join(', ')})`,
  WhereNode: (n) => `.where(${JSON.stringify(n.dim)}, '${n.op}', ${describeLabel(n.value)})`,
  WhereIndexNode: (n) => `.whereIndex(${JSON.stringify(n.dim)}, ${n.start}, ${n.stop}${n.step !== 1 ? `, ${n.step}` : ''})`,
  NearestNode: (n) => `.nearest(${JSON.stringify(n.dim)}, ${describeLabel(n.value)}${n.tolerance !== undefined ? `, { tolerance: ${n.tolerance} }` : ''})`,
  LimitNode: (n) => `.limit(${JSON.stringify(n.dim)}, ${n.count})`,
  StrideNode: (n) => `.stride(${JSON.stringify(n.dim)}, ${n.step})`,
};

export function nodeText(node: OperationNode): string {
  return visitNode(text, node);
}
